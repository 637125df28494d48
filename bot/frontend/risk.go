package frontend

import (
	"github.com/hermes-bot/hermes-bot/bot/risk"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Assess is the risk of permission request e as auto-approval judges it,
// with what its tool call runs, so the level a front-end shows is the one
// the life cycle decides on.
func Assess(e *pending.Entry) risk.Assessment {
	p := e.Permission
	if p == nil {
		p = &pending.Permission{}
	}
	var run *risk.Run
	if r := p.Run; r != nil {
		run = &risk.Run{Read: r.Read, Timeout: r.Timeout}
		if r.Elsewhere {
			run.Elsewhere = r.Workdir
		}
	}
	return risk.AssessRun(e.Directory, p.Kind, p.Patterns, p.Metadata, run)
}
