package bot

import (
	"maps"
	"slices"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/pending"
)

// viewOf is e as a front-end sees it.
func viewOf(e *pending.Entry) *frontend.View {
	v := &frontend.View{UID: e.UID, Kind: frontend.Kind(e.Kind), RequestID: e.RequestID, Server: e.Server, Directory: e.Directory,
		SessionID: e.SessionID, SessionTitle: e.SessionTitle, ParentSessionID: e.ParentSessionID, ParentTitle: e.ParentTitle,
		Generation: e.Generation, Current: e.Current, Answers: clone2(e.Answers), Selected: slices.Clone(e.Selected),
		Expired: e.ExpiredNotified, CreatedAt: e.CreatedAt, ExpiresAt: e.ExpiresAt}
	if len(e.Places) > 0 {
		v.Places = maps.Clone(e.Places)
	}
	for _, l := range e.Context {
		v.Context = append(v.Context, frontend.ContextLine{Tool: l.Tool, Text: l.Text})
	}
	for _, q := range e.Questions {
		f := frontend.Question{Text: q.Text, Header: q.Header, Multiple: q.Multiple, Custom: q.Custom, Key: q.Key, Type: q.Type,
			Required: q.Required, Format: q.Format, Pattern: q.Pattern, Placeholder: q.Placeholder,
			MinLength: q.MinLength, MaxLength: q.MaxLength, Minimum: q.Minimum, Maximum: q.Maximum,
			MinItems: q.MinItems, MaxItems: q.MaxItems, Default: q.Default}
		for _, o := range q.Options {
			f.Options = append(f.Options, frontend.Option{Label: o.Label, Description: o.Description, Value: o.Value})
		}
		v.Questions = append(v.Questions, f)
	}
	if p := e.Permission; p != nil {
		v.Permission = &frontend.Permission{Kind: p.Kind, Patterns: slices.Clone(p.Patterns), Always: slices.Clone(p.Always), Metadata: p.Metadata}
		if r := p.Run; r != nil {
			v.Permission.Run = &frontend.Run{Read: r.Read, Workdir: r.Workdir, Elsewhere: r.Elsewhere, Timeout: r.Timeout, Root: r.Root, Agent: r.Agent}
		}
	}
	if f := e.Form; f != nil {
		v.Form = &frontend.Form{Mode: f.Mode, URL: f.URL, Title: f.Title}
	}
	return v
}

func clone2(s [][]string) [][]string {
	if s == nil {
		return nil
	}
	out := make([][]string, len(s))
	for i, x := range s {
		out[i] = slices.Clone(x)
	}
	return out
}
