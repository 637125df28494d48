package matrix

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
)

// handlerTimeout bounds one event's work, opencode's answer included.
const handlerTimeout = 30 * time.Second

// Serve reads the room until ctx ends and hands what allowed people do to
// core: votes, ✅ reactions, replies and commands. It first forgets the
// records of requests posted more than keepRecords ago. An event being handled
// when ctx ends is finished, within handlerTimeout.
func (f *Frontend) Serve(ctx context.Context, core frontend.Core) error {
	if n, err := f.prune(time.Now().Add(-keepRecords)); err != nil {
		f.log.Warn().Err(err).Msg("matrix: could not forget old records; kept")
	} else if n > 0 {
		f.log.Info().Int("requests", n).Msg("matrix: forgot the records of old requests")
	}
	return f.c.Run(ctx, func(ctx context.Context, ev Event) error {
		hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handlerTimeout)
		defer cancel()
		return f.Handle(hctx, core, ev)
	})
}

// Handle acts on one event of the room. Only the allow-list counts:
// anyone else's event is dropped here, and gets no answer. It fails only
// when the State cannot be read, which a retry may mend.
func (f *Frontend) Handle(ctx context.Context, core frontend.Core, ev Event) error {
	log := f.log.With().Str("event", ev.ID).Str("sender", ev.Sender).Str("kind", ev.Kind.String()).Logger()
	if !f.c.allow.Allows(ev.Sender) {
		log.Debug().Msg("matrix: ignoring an event of someone not on the allow-list")
		return nil
	}
	switch ev.Kind {
	case KindVote:
		return f.vote(ctx, core, log, ev)
	case KindReaction:
		if !IsCheck(ev.Key) || !f.check.First(ev) {
			return nil
		}
		return f.submit(ctx, core, log, ev, ev.Target)
	case KindCommand:
		f.command(ctx, core, log, ev)
		return nil
	case KindText:
		if ev.ReplyTo == "" {
			// A message in a request's thread is a reply to it too.
			ev.ReplyTo = ev.Thread
		}
		if ev.ReplyTo == "" || ev.Replaces != "" {
			return nil // an answer is a reply; an edit changes no answer given
		}
		return f.reply(ctx, core, log, ev)
	}
	return nil
}

// vote acts on a vote on one of the front-end's polls: a single choice
// answers at once; a multiple choice is kept until ✅ or "done".
func (f *Frontend) vote(ctx context.Context, core frontend.Core, log zerolog.Logger, ev Event) error {
	var rec eventRecord
	ok, err := f.get(keyEvent+ev.Poll, &rec)
	if err != nil {
		return err
	}
	if !ok || !rec.Poll {
		log.Debug().Str("poll", ev.Poll).Msg("matrix: vote on a poll that is not a request's, ignored")
		return nil
	}
	if rec.Ended != 0 && ev.Time.UnixMilli() > rec.Ended {
		log.Info().Str("poll", ev.Poll).Msg("matrix: vote after the poll ended, ignored")
		return nil
	}
	var req requestRecord
	if _, err := f.get(keyRequest+rec.Msg, &req); err != nil {
		return err
	}
	if req.Key == "" || req.Closed {
		log.Info().Str("poll", ev.Poll).Msg("matrix: vote on a closed request, ignored")
		return nil
	}
	if rec.Multi {
		key := keyVote + ev.Poll + "/" + ev.Sender
		var prev ballotRecord
		if _, err := f.get(key, &prev); err != nil {
			return err
		}
		if ev.Time.UnixMilli() < prev.At {
			return nil // an older vote paged in late
		}
		return f.put(key, ballotRecord{At: ev.Time.UnixMilli(), Answers: ev.Answers})
	}
	if len(ev.Answers) == 0 {
		return nil // withdrawn
	}
	c, ok := choiceOf(rec, ev.Answers[0])
	if !ok {
		log.Info().Str("answer", ev.Answers[0]).Msg("matrix: vote for an answer the poll does not have, ignored")
		return nil
	}
	f.press(ctx, core, log, req.Key, rec.Msg, rec.Step, c.Action, c.Option, c.Reply, ev, "vote "+c.ID)
	return nil
}

// press hands a press of the request of message msg to core, with the text
// of a stock reply (frontend.Quick) if any. What the life cycle answers it
// with is said in the room, replying to ev, when it is news (a refusal, a
// problem with the selection): a poll shows the vote itself, and the
// message the outcome.
func (f *Frontend) press(ctx context.Context, core frontend.Core, log zerolog.Logger, key, msg string, field int,
	act frontend.Action, option int, text string, ev Event, data string) {
	var ack string
	core.HandlePress(ctx, log, frontend.Press{
		Key: key, Action: act, Question: field, Option: option, Text: text, User: userOf(ev.Sender),
		Frontend: Name, From: place{Room: f.c.RoomID(), Event: msg}.encode(), FromCarries: true,
		Data: data, At: time.Now(),
		Ack: func(text string) { ack = text },
	})
	if f.quietAck(ack) {
		return
	}
	h := esc(ack)
	if _, err := f.c.Send(ctx, TxnID(ev.ID, Name, "ack", data), Message{Text: ack, HTML: h, Notice: true, ReplyTo: ev.ID}); err != nil {
		log.Warn().Err(err).Msg("matrix: could not answer a vote")
	}
}

// quietAck reports whether an answer to a press says nothing the room
// does not show already.
func (f *Frontend) quietAck(text string) bool {
	tx := f.tx
	return text == "" || text == tx.Toast(i18n.ToastSending) || text == tx.Toast(i18n.ToastTypeAnswer) ||
		strings.HasPrefix(text, "☑ ") || strings.HasPrefix(text, "☐ ") || strings.HasPrefix(text, tx.SavedNext(""))
}

// submit takes the selection of ev's sender on a multiple-choice poll
// (target: the poll, or the request's message) as the answer.
func (f *Frontend) submit(ctx context.Context, core frontend.Core, log zerolog.Logger, ev Event, target string) error {
	var rec eventRecord
	ok, err := f.get(keyEvent+target, &rec)
	if err != nil || !ok {
		return err
	}
	var req requestRecord
	if _, err := f.get(keyRequest+rec.Msg, &req); err != nil {
		return err
	}
	if req.Closed || !req.Multi || len(req.Polls) == 0 {
		return nil
	}
	poll := req.Polls[len(req.Polls)-1]
	if poll.Ended {
		return nil
	}
	var pr eventRecord
	if _, err := f.get(keyEvent+poll.ID, &pr); err != nil {
		return err
	}
	var b ballotRecord
	if _, err := f.get(keyVote+poll.ID+"/"+ev.Sender, &b); err != nil {
		return err
	}
	want := map[int]bool{}
	skip := false
	for _, id := range b.Answers {
		if c, ok := choiceOf(pr, id); ok {
			switch c.Action {
			case frontend.Toggle:
				want[c.Option] = true
			case frontend.Skip:
				skip = true
			}
		}
	}
	if skip {
		f.press(ctx, core, log, req.Key, rec.Msg, poll.Step, frontend.Skip, 0, "", ev, "skip")
		return nil
	}
	selected, ok := f.selected(ctx, core, req.Key, poll.Step)
	if !ok {
		return nil
	}
	for _, c := range pr.Choices {
		if c.Action == frontend.Toggle && want[c.Option] != selected[c.Option] {
			f.press(ctx, core, log, req.Key, rec.Msg, poll.Step, frontend.Toggle, c.Option, "", ev, "toggle "+c.ID)
		}
	}
	log.Info().Str("poll", poll.ID).Int("options", len(want)).Msg("matrix: selection submitted")
	f.press(ctx, core, log, req.Key, rec.Msg, poll.Step, frontend.Submit, 0, "", ev, "submit")
	return nil
}

// selected is which options of request key's question field are selected
// now, by index; ok is false when it no longer waits.
func (f *Frontend) selected(ctx context.Context, core frontend.Core, key string, field int) (map[int]bool, bool) {
	open, err := core.Open(ctx, false)
	if err != nil {
		f.log.Warn().Err(err).Msg("matrix: could not read the open requests")
		return nil, false
	}
	for _, e := range open {
		if e.UID != key || e.Current != field || field >= len(e.Questions) {
			continue
		}
		sel := map[int]bool{}
		for i, o := range e.Questions[field].Options {
			if slices.Contains(e.Selected, o.Label) {
				sel[i] = true
			}
		}
		return sel, true
	}
	return nil, false
}

// reply acts on a reply: to an open request's poll or message it is a
// typed answer (or "done", or a reject's reason); to anything else the
// bot posted about a session it continues that session.
func (f *Frontend) reply(ctx context.Context, core frontend.Core, log zerolog.Logger, ev Event) error {
	var rec eventRecord
	ok, err := f.get(keyEvent+ev.ReplyTo, &rec)
	if err != nil {
		return err
	}
	text, about := strings.TrimSpace(ev.Text), ev.ReplyTo
	if ok {
		var req requestRecord
		if _, err := f.get(keyRequest+rec.Msg, &req); err != nil {
			return err
		}
		if req.Key != "" && !req.Closed {
			if req.Multi && strings.EqualFold(text, "done") {
				return f.submit(ctx, core, log, ev, ev.ReplyTo)
			}
			f.typed(ctx, core, log, ev, req, rec.Msg, text)
			return nil
		}
		about = rec.Msg
	}
	f.steer(ctx, core, log, ev, about, text)
	return nil
}

// typed hands text as the typed answer to req's step (or a permission's
// reject reason), asking for it first on the sender's behalf.
func (f *Frontend) typed(ctx context.Context, core frontend.Core, log zerolog.Logger, ev Event, req requestRecord, msg, text string) {
	if text == "" {
		return
	}
	if !req.Typed && !req.Reason {
		f.note(ctx, log, ev, f.tx.Matrix.NoTyped)
		return
	}
	if !core.Awaits(req.Key, req.Step, req.Reason) {
		act := frontend.Type
		if req.Reason {
			act = frontend.RejectWithReason
		}
		f.quiet.Store(req.Key, true)
		f.press(ctx, core, log, req.Key, msg, req.Step, act, 0, "", ev, "reply")
		f.quiet.Delete(req.Key)
	}
	core.HandleInput(ctx, log, frontend.Input{Key: req.Key, Field: req.Step, Reason: req.Reason, Text: text,
		User: userOf(ev.Sender), Frontend: Name, Received: time.Now()})
}

// steer continues the session the message about replies to is about.
func (f *Frontend) steer(ctx context.Context, core frontend.Core, log zerolog.Logger, ev Event, about, text string) {
	if text == "" {
		return
	}
	ref, ok, err := core.SessionAt(ctx, Name, place{Room: f.c.RoomID(), Event: about}.encode())
	if err != nil {
		log.Warn().Err(err).Msg("matrix: could not tell which session a reply is about")
		return
	}
	if !ok {
		log.Debug().Msg("matrix: a reply to a message about no session, ignored")
		return
	}
	log.Info().Str("sessionID", ref.ID).Msg("matrix: reply continues a session")
	st, err := core.ContinueSession(ctx, log, ref, text, userOf(ev.Sender), frontend.DeliverQueue)
	switch {
	case err == nil:
		title := st.Title
		if title == "" {
			title = ref.ID
		}
		f.note(ctx, log, ev, f.tx.Steer.SentTo(esc(title)))
	case errors.Is(err, frontend.ErrSessionGone):
		f.note(ctx, log, ev, f.tx.Steer.Gone)
	default:
		log.Warn().Err(err).Msg("matrix: could not continue the session")
		f.note(ctx, log, ev, f.tx.Steer.Unreachable)
	}
}

// note answers ev with a notice (HTML); its transaction ID is ev's, so
// handling ev again sends it once.
func (f *Frontend) note(ctx context.Context, log zerolog.Logger, ev Event, h string) {
	if _, err := f.c.Send(ctx, TxnID(ev.ID, Name, "note"), Message{Text: plain(h), HTML: h, Notice: true, ReplyTo: ev.ID}); err != nil {
		log.Warn().Err(err).Msg("matrix: could not answer")
	}
}

// command answers /pending, /status and /help (or !pending, …).
func (f *Frontend) command(ctx context.Context, core frontend.Core, log zerolog.Logger, ev Event) {
	var h string
	switch ev.Command {
	case "pending":
		h = f.pendingList(ctx, core)
	case "status":
		h = f.status(ctx, core)
	case "autoapprove":
		h = f.autoApprove(ctx, core, log, ev)
	case "help":
		h = f.tx.Matrix.Help
	default:
		return
	}
	log.Info().Str("command", ev.Command).Msg("matrix: command received")
	f.note(ctx, log, ev, h)
}

func (f *Frontend) pendingList(ctx context.Context, core frontend.Core) string {
	tx := f.tx
	open, err := core.Open(ctx, true)
	if err != nil {
		f.log.Error().Err(err).Msg("matrix: could not list open requests for /pending")
		return tx.StoreUnreadable
	}
	if len(open) == 0 {
		return tx.NothingPending
	}
	now := time.Now()
	lines := []string{tx.WaitingN(len(open))}
	for i, e := range open {
		if i == 20 {
			lines = append(lines, tx.MoreN(len(open)-i))
			break
		}
		lines = append(lines, pendingLine(tx, e, now))
	}
	return strings.Join(lines, "<br>\n")
}

func pendingLine(tx *i18n.Text, e *frontend.View, now time.Time) string {
	kind, what := tx.KindQuestion, ""
	if e.Kind == frontend.KindPermission {
		kind, what = tx.KindPermission, permissionWhat(tx, e)
	} else if e.Current < len(e.Questions) {
		what = oneLine(e.Questions[e.Current].Text, 120)
	}
	label := "<b>" + kind + "</b>"
	if p := placeAt(e.Places[Name]); p.Event != "" {
		label = `<a href="` + esc(link(p)) + `">` + label + "</a>"
	}
	s := "• " + label + " · " + esc(projectName(tx, e.Directory))
	if t := strings.TrimSpace(e.SessionTitle); t != "" {
		s += " · <i>" + esc(oneLine(t, 60)) + "</i>"
	}
	if what != "" {
		s += ": " + esc(cut(what, 120))
	}
	return s + " (" + tx.Asked(tx.Since(now.Sub(e.CreatedAt))) + ")"
}

// status answers !status with the words of Telegram's /status.
func (f *Frontend) status(ctx context.Context, core frontend.Core) string {
	tx, now := f.tx, time.Now()
	head := "🤖 <b>hermes-bot</b>"
	if v := f.cfg.Version; v != "" {
		head += " " + esc(v)
	}
	lines := []string{head + tx.Up(tx.Span(now.Sub(f.cfg.StartedAt)))}
	for _, s := range f.cfg.Servers {
		l := "opencode"
		if s.Name != "" {
			l += " <code>" + esc(s.Name) + "</code>"
		}
		l += ": "
		if s.Status == nil {
			lines = append(lines, l+tx.StateUnknown)
			continue
		}
		st := s.Status.State()
		switch {
		case st.Connected:
			l += tx.Connected
			if !st.Since.IsZero() {
				l += tx.ConnectedFor(tx.Span(now.Sub(st.Since)))
			}
		case st.Since.IsZero():
			l += tx.NotConnectedYet
		default:
			l += tx.NotConnectedFor(tx.Span(now.Sub(st.Since)))
		}
		if st.Version != "" {
			l += tx.Version(esc(st.Version), st.Generation)
		}
		lines = append(lines, l)
		if st.LastError != "" && !st.Connected {
			lines = append(lines, tx.LastError(esc(tx.ErrorWords(st.LastError)), tx.Since(now.Sub(st.LastErrorAt))))
		}
	}
	open, err := core.Open(ctx, false)
	if err != nil {
		lines = append(lines, tx.WaitingUnknown)
	} else {
		lines = append(lines, tx.WaitingCount(len(open)))
	}
	return strings.Join(lines, "<br>\n")
}

// autoApprove answers !autoapprove: the policy and where an always answer
// paused it, numbered; "!autoapprove resume N" resumes the Nth.
func (f *Frontend) autoApprove(ctx context.Context, core frontend.Core, log zerolog.Logger, ev Event) string {
	tx := f.tx
	a, err := core.AutoApproval(ctx)
	if err != nil {
		log.Warn().Err(err).Msg("matrix: could not read the auto-approval state")
		return tx.Pause.Unreadable
	}
	if arg, ok := strings.CutPrefix(ev.Args, "resume"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil || n < 1 || n > len(a.Paused) {
			return tx.Matrix.ResumeWhich(len(a.Paused))
		}
		p := a.Paused[n-1]
		resumed, err := core.ResumeAutoApproval(ctx, log, p.Server, p.Directory, userOf(ev.Sender))
		switch {
		case err != nil:
			log.Warn().Err(err).Msg("matrix: could not resume auto-approval")
			return tx.Matrix.ResumeFailed
		case !resumed:
			return tx.Pause.NotPaused
		}
		return tx.Pause.ResumedBy(esc(projectName(tx, p.Directory)), esc(ev.Sender))
	}
	head := tx.Pause.PolicyLow
	if a.Policy != "low" {
		head = tx.Pause.PolicyOff
	}
	if len(a.Paused) == 0 {
		return head + "<br>\n" + tx.Pause.NothingPaused
	}
	lines := []string{head, tx.Pause.Head}
	for i, p := range a.Paused {
		where := esc(projectName(tx, p.Directory))
		if p.Server != "" {
			where = "<code>" + esc(p.Server) + "</code>: " + where
		}
		lines = append(lines, strconv.Itoa(i+1)+". "+tx.Pause.Line(where, esc(p.Kind))+" · "+tx.Since(time.Since(p.At)))
	}
	lines = append(lines, tx.Matrix.ResumeHow)
	return strings.Join(lines, "<br>\n")
}
