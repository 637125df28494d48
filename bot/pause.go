package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Pausing: an always answer that lets the agent change files pauses
// auto-approval in its directory until a person resumes it.

// AutoApproval returns the policy and the always answers that pause
// auto-approval in their directory (rememberAlways, untrusted).
func (b *Bridge) AutoApproval(ctx context.Context) (frontend.AutoApproval, error) {
	policy := string(AutoApproveOff)
	if b.cfg.AutoApprove == AutoApproveLow {
		policy = string(AutoApproveLow)
	}
	paused, err := b.store.AlwaysList()
	if err != nil {
		return frontend.AutoApproval{Policy: policy}, fmt.Errorf("auto-approval state: %w", err)
	}
	return frontend.AutoApproval{Policy: policy, Paused: paused}, nil
}

// ResumeAutoApproval forgets the always answer recorded for dir of server:
// user says opencode forgot it (a restart does), so commands there may be
// auto-approved again.
func (b *Bridge) ResumeAutoApproval(ctx context.Context, log zerolog.Logger, server, dir string, user frontend.User) (bool, error) {
	had, err := b.store.ForgetAlways(server, dir)
	if err != nil {
		return false, fmt.Errorf("resume auto-approval: %w", err)
	}
	if had {
		log.Info().Str("server", server).Str("directory", dir).Str("by", user.DisplayName()).
			Msg("auto-approval resumed: the always answer recorded here is forgotten")
	}
	return had, nil
}

// changesFiles reports whether an "always" answer to a request of kind
// lets the agent change files without asking from then on.
func changesFiles(kind string) bool {
	switch strings.ToLower(strings.TrimSpace(kind)) {
	case "edit", "write", "multiedit", "patch", "apply_patch", "external_directory":
		return true
	}
	return false
}

// rememberAlways records that e, answered "always", widened opencode's
// rules for its directory, when it did; the first such answer there also
// tells the group that auto-approval is paused, when it is on.
func (b *Bridge) rememberAlways(ctx context.Context, log zerolog.Logger, e *pending.Entry) {
	if e.Permission == nil || !changesFiles(e.Permission.Kind) || e.Directory == "" {
		return
	}
	if e.Generation == 2 {
		// OpenCode 2 saves the answer as a rule /rules lists and revokes;
		// nothing of its /api surface is auto-approved to pause.
		return
	}
	added, err := b.store.RememberAlways(e.Server, e.Directory, e.Permission.Kind)
	if err != nil {
		log.Error().Err(err).Msg("could not record that an always answer let the agent change files; auto-approval may go on in this directory")
		return
	}
	log.Warn().Str("permission", e.Permission.Kind).
		Msg("an always answer lets the agent change files here without asking; no command of this directory is auto-approved from now on")
	if !added || b.cfg.AutoApprove != AutoApproveLow {
		return
	}
	a := pending.Always{Server: e.Server, Directory: e.Directory, Kind: e.Permission.Kind, At: b.now()}
	for _, fe := range b.fes {
		if err := fe.AutoApprovalPaused(ctx, a); err != nil {
			log.Warn().Err(err).Str("frontend", fe.Name()).Msg("could not tell the group that auto-approval is paused here; /autoapprove shows it")
		}
	}
}
