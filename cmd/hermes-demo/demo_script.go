package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest/webview"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// demoSession is the fake agent session every sample request comes from.
func demoSession() opencode.Session {
	return opencode.Session{ID: "ses_demo", Title: "Add orders to the shop", Directory: demoDir}
}

// demoSample is one request the fake opencode makes.
type demoSample struct {
	title string // what the page calls it
	ask   func(oc *opencodetest.Server, id string)
}

// demoSamples are the requests the fake opencode makes, one after the
// other: each waits until the one before is answered, as an agent does.
func demoSamples() []demoSample {
	question := func(q opencode.Question) func(*opencodetest.Server, string) {
		return func(oc *opencodetest.Server, id string) {
			oc.AddQuestion(demoDir, opencode.QuestionRequest{
				ID: id, SessionID: demoSession().ID, Questions: []opencode.Question{q},
				Tool: &opencode.ToolRef{MessageID: "msg_" + id, CallID: "call_" + id},
			})
		}
	}
	return []demoSample{
		{title: "question: which database", ask: question(opencode.Question{
			Header: "Database", Question: "Which database should the shop use?",
			Options: []opencode.Option{
				{Label: "SQLite", Description: "one file, nothing to run"},
				{Label: "PostgreSQL", Description: "a server, for many writers"},
			}})},
		{title: "multiple choice: which checks", ask: question(opencode.Question{
			Header: "Checks", Question: "Which checks should run before each commit?", Multiple: true,
			Options: []opencode.Option{
				{Label: "gofmt", Description: "formatting"},
				{Label: "go vet", Description: "suspicious code"},
				{Label: "go test -race", Description: "tests, with the race detector"},
			}})},
		{title: "question to answer by typing: the table's name", ask: question(opencode.Question{
			Header: "Table", Question: "What should the new table be called? Pick one, or type a name of your own.",
			Options: []opencode.Option{{Label: "orders", Description: "the usual name"}},
		})},
		{title: "permission: run the tests", ask: func(oc *opencodetest.Server, id string) {
			cmd := "go test -race ./..."
			meta, _ := json.Marshal(map[string]string{"command": cmd, "description": "Run the tests"})
			// The tool call tells where the command runs.
			oc.AddMessage(opencodetest.ToolMessage{
				ID: "msg_" + id, SessionID: demoSession().ID, Agent: "build", Cwd: demoDir, Root: demoDir,
				Calls: []opencodetest.ToolCallPart{{CallID: "call_" + id, Tool: "bash", Input: map[string]any{"command": cmd, "description": "Run the tests"}}},
			})
			oc.AddPermission(demoDir, opencode.PermissionRequest{
				ID: id, SessionID: demoSession().ID, Permission: "bash",
				Patterns: []string{cmd}, Always: []string{"go test *"}, Metadata: meta,
				Tool: &opencode.ToolRef{MessageID: "msg_" + id, CallID: "call_" + id},
			})
		}},
	}
}

// demoScript plays the samples against the fake opencode, round after
// round, and remembers what it asked so the page can name the answers.
type demoScript struct {
	oc      *opencodetest.Server
	samples []demoSample

	mu      sync.Mutex
	titles  map[string]string // by request ID
	waiting string            // the title of the request not yet answered
	round   int               // the round being asked, from 1
}

func newDemoScript(oc *opencodetest.Server) *demoScript {
	oc.SetProjects([]opencode.Project{{ID: "shop", Worktree: demoDir}})
	sess := demoSession()
	sess.Time.Created = time.Now().UnixMilli()
	sess.Time.Updated = sess.Time.Created
	oc.AddSession(sess)
	return &demoScript{oc: oc, samples: demoSamples(), titles: map[string]string{}}
}

// run asks each sample once its predecessor is answered, starting over
// after the last, and finishes the turn of every prompt, until ctx ends.
func (s *demoScript) run(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := 1; ; n++ {
			ps, err := s.oc.WaitPrompts(ctx, n)
			if err != nil {
				return // ctx ended
			}
			s.oc.FinishTurn(ps[n-1].SessionID)
		}
	}()
	defer func() { <-done }()
	// The fake keeps no history of events: wait for the bridge to listen.
	if err := s.oc.WaitConnections(ctx, 1); err != nil {
		return
	}
	asked := 0
	for round := 1; ; round++ {
		s.mu.Lock()
		s.round = round
		s.mu.Unlock()
		for i, sample := range s.samples {
			kind := "que"
			if strings.HasPrefix(sample.title, "permission") {
				kind = "per"
			}
			id := fmt.Sprintf("%s_demo%d_%d", kind, round, i+1)
			s.mu.Lock()
			s.titles[id], s.waiting = sample.title, sample.title
			s.mu.Unlock()
			sample.ask(s.oc, id)
			asked++
			if _, err := s.oc.WaitReplies(ctx, asked); err != nil {
				return // ctx ended
			}
		}
	}
}

// lines says what the fake opencode received, oldest first, and what it
// waits for.
func (s *demoScript) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	n, replies := len(s.samples), s.oc.Replies()
	startOver := func(round int) string {
		return fmt.Sprintf("the fake opencode starts over: round %d asks the same %d requests again", round, n)
	}
	for i, r := range replies {
		if i > 0 && i%n == 0 {
			out = append(out, startOver(i/n+1))
		}
		title := s.titles[r.RequestID]
		switch r.Kind {
		case opencodetest.ReplyQuestion:
			answers := make([]string, len(r.Answers))
			for i, a := range r.Answers {
				answers[i] = strings.Join(a, ", ")
			}
			out = append(out, fmt.Sprintf("opencode received: %s → %s", title, strings.Join(answers, " / ")))
		case opencodetest.RejectQuestion:
			out = append(out, fmt.Sprintf("opencode received: %s → dismissed", title))
		case opencodetest.ReplyPermission:
			line := fmt.Sprintf("opencode received: %s → %s", title, r.Reply)
			if r.Message != "" {
				line += fmt.Sprintf(" (“%s”)", r.Message)
			}
			out = append(out, line)
		}
	}
	if len(replies) > 0 && len(replies)%n == 0 && s.round > len(replies)/n {
		out = append(out, startOver(s.round))
	}
	if s.waiting != "" && len(replies) < len(s.titles) {
		out = append(out, "opencode waits for an answer to the "+s.waiting)
	}
	for _, p := range s.oc.Prompts() {
		out = append(out, fmt.Sprintf("opencode received the prompt “%s” for session %s, and finished the turn at once", p.Text, p.SessionID))
	}
	return out
}

// panels returns what the page shows above the chat: the fake opencode's
// side of the story, or where the real one is.
func (d *demo) panels(opencodeURL string) func() []webview.Panel {
	if d.script != nil {
		return func() []webview.Panel {
			return []webview.Panel{{Title: "The built-in fake opencode", Lines: d.script.lines()}}
		}
	}
	where := opencodeURL
	if u, err := url.Parse(opencodeURL); err == nil {
		u.User = nil // a password pasted into the URL stays off the page
		where = u.String()
	}
	return func() []webview.Panel {
		return []webview.Panel{{Title: "opencode at " + where, Lines: []string{
			"Its real questions and permission requests appear below as the agent asks them; your answers go to it.",
		}}}
	}
}
