package bot

import (
	"context"
	"errors"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

// SetMessageReaction is accepted and not recorded: the life cycle's tests
// do not steer.
func (f *fakeTelegram) SetMessageReaction(context.Context, *tgbot.SetMessageReactionParams) (bool, error) {
	return true, nil
}

// GetFile knows no file.
func (f *fakeTelegram) GetFile(context.Context, *tgbot.GetFileParams) (*models.File, error) {
	return nil, errors.New("fake telegram: no files")
}

func (f *fakeTelegram) FileDownloadLink(*models.File) string { return "" }
