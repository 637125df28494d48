package bot

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// fileOpencode is what a server needs to take files with a prompt;
// *opencode.Client has it. A server without it is not sent files.
type fileOpencode interface {
	PromptFiles(ctx context.Context, dir, id, text string, files []opencode.File, maxBytes int64) error
	SessionModel(ctx context.Context, dir, id string) (opencode.ModelInfo, error)
}

// PromptFiles sends p to session ref, or to a new session in
// ref.Directory (see frontend.Steerer).
func (b *Bridge) PromptFiles(ctx context.Context, log zerolog.Logger, ref pending.SessionRef, p frontend.FilePrompt, user frontend.User) (frontend.Steered, error) {
	log = b.steerLog(log, ref, user)
	oc := b.opencodeOf(ref.Server)
	foc, ok := oc.(fileOpencode)
	if !ok {
		return frontend.Steered{}, fmt.Errorf("prompt with files: %w", frontend.ErrNoSteering)
	}
	files := make([]opencode.File, 0, len(p.Files))
	images := false
	for _, f := range p.Files {
		of, err := opencode.NewFile(f.Name, f.Data)
		if err != nil {
			return frontend.Steered{}, fmt.Errorf("prompt with files: %w: %w", frontend.ErrFileRefused, err)
		}
		images = images || of.IsImage()
		files = append(files, of)
	}
	ctx, cancel := context.WithTimeout(ctx, steerTimeout)
	defer cancel()
	res := frontend.Steered{Ref: ref}
	if ref.ID == "" {
		s, err := oc.CreateSession(ctx, ref.Directory, "")
		if err != nil {
			err = steerErr("start a session in "+ref.Directory, err)
			log.Warn().Err(err).Msg("steering: could not start a session")
			return frontend.Steered{}, err
		}
		res.Ref.ID, res.Title = s.ID, oneLine(p.Text)
		if r := []rune(res.Title); len(r) > 40 {
			res.Title = string(r[:40]) + "…"
		}
		log = log.With().Str("sessionID", s.ID).Logger()
	} else {
		s, err := oc.GetSession(ctx, ref.Directory, ref.ID)
		if err != nil {
			err = steerErr("continue session "+ref.ID, err)
			log.Warn().Err(err).Msg("steering: could not continue the session")
			return frontend.Steered{}, err
		}
		res.Title = sessionTitle(s)
	}
	if images {
		// opencode swaps an image for an error text when the model takes
		// none: better the person knows than the agent guesses.
		m, err := foc.SessionModel(ctx, ref.Directory, res.Ref.ID)
		switch {
		case err == nil && !m.Image:
			log.Info().Str("model", m.ProviderID+"/"+m.ID).Msg("steering: refusing images for a model that takes none")
			return res, fmt.Errorf("prompt session %s with files: model %s: %w", res.Ref.ID, m.ID, frontend.ErrNoImages)
		case err != nil:
			log.Info().Err(err).Msg("steering: could not tell whether the model takes images; sending them")
		}
	}
	if err := foc.PromptFiles(ctx, ref.Directory, res.Ref.ID, p.Text, files, p.MaxBytes); err != nil {
		if errors.Is(err, opencode.ErrNotAccepted) {
			err = fmt.Errorf("prompt session %s with files: %w: %w", res.Ref.ID, frontend.ErrFileRefused, err)
		} else {
			err = steerErr("prompt session "+res.Ref.ID+" with files", err)
		}
		log.Warn().Err(err).Msg("steering: could not send the files")
		return res, err
	}
	b.failed.Put(res.Ref.ID, false)
	log.Info().Int("chars", len(p.Text)).Int("files", len(files)).Msg("steering: prompt with files sent to the session")
	return res, nil
}
