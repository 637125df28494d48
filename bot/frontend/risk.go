package frontend

import (
	"github.com/hermes-bot/hermes-bot/bot/risk"
)

// Assess is the risk of permission request v as auto-approval judges it,
// with what its tool call runs, so the level a front-end shows is the one
// the life cycle decides on.
func Assess(v *View) risk.Assessment {
	p := v.Permission
	if p == nil {
		p = &Permission{}
	}
	var run *risk.Run
	if r := p.Run; r != nil {
		run = &risk.Run{Read: r.Read, Timeout: r.Timeout}
		if r.Elsewhere {
			run.Elsewhere = r.Workdir
		}
	}
	return risk.AssessRun(v.Directory, p.Kind, p.Patterns, p.Metadata, run)
}
