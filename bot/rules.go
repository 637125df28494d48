package bot

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

// Saved rules: on OpenCode 2 an "always" answer saves a rule for the
// project, kept across restarts, which people list and revoke with
// /rules. opencode 1.x keeps such answers in memory until it restarts,
// with no route to list them (see pause.go for what hermes-bot does
// about that).

var _ frontend.RuleKeeper = (*Bridge)(nil)

// SavedRules lists the rules of every server, in steerServers' order. A
// server that cannot be asked says why in its Err.
func (b *Bridge) SavedRules(ctx context.Context) ([]frontend.SavedRules, error) {
	ctx, cancel := context.WithTimeout(ctx, steerTimeout)
	defer cancel()
	var out []frontend.SavedRules
	for _, server := range b.steerServers() {
		oc := b.opencodeOf(server)
		sr := frontend.SavedRules{Server: server, Generation: oc.Generation()}
		if sr.Generation == 2 {
			saved, err := oc.ListSaved(ctx, "")
			if err != nil {
				sr.Err = steerErr("list the saved rules", err)
				b.log.Warn().Err(err).Str("server", server).Msg("could not list the rules saved by always answers")
			}
			for _, a := range saved {
				sr.Rules = append(sr.Rules, frontend.Rule{ID: a.ID, Project: a.ProjectID, Action: a.Action, Resource: a.Resource})
			}
		}
		out = append(out, sr)
	}
	return out, nil
}

// RevokeRule deletes rule id of server: the requests it allowed are asked
// again.
func (b *Bridge) RevokeRule(ctx context.Context, log zerolog.Logger, server, id string, user frontend.User) error {
	ctx, cancel := context.WithTimeout(ctx, steerTimeout)
	defer cancel()
	log = log.With().Str("server", server).Str("rule", id).Str("by", user.DisplayName()).Logger()
	if err := b.opencodeOf(server).DeleteSaved(ctx, id); err != nil {
		err = steerErr("revoke rule "+id, err)
		log.Warn().Err(err).Msg("could not revoke a saved rule")
		return err
	}
	log.Info().Msg("saved rule revoked: the requests it allowed are asked again")
	return nil
}

// withGeneration is r with the kind of its server, which decides what
// its "always" does: as the request was asked, else as the server is now
// (an entry stored before entries kept it).
func (b *Bridge) withGeneration(r frontend.Request) frontend.Request {
	if len(r.Members) > 0 {
		r.Generation = r.Members[0].Generation
		if r.Generation == 0 {
			r.Generation = b.opencodeOf(r.Members[0].Server).Generation()
		}
	}
	return r
}
