package bot

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

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
