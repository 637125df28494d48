package telegram

import (
	"bytes"
	"context"
	"html"
	"path"
	"strconv"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
)

// Texts a request message shows cut to fit Telegram's 4,096 units (a
// long command, a large diff, a long question) are sent whole as files
// replying to the message, so nobody approves what they could not read.

// maxCaption is Telegram's limit of a document's caption, in characters;
// ours are far shorter, but a file name quoted in one is agent text.
const maxCaption = 1024

// documentTimeout bounds sending a request's whole texts: long enough to
// wait behind a paced queue, short of holding a shutdown for ever.
const documentTimeout = 2 * time.Minute

// fullText is agent text a message shows cut, to be sent whole as a file.
type fullText struct {
	// name is the file's name: .diff for a diff, .txt otherwise.
	name string
	// caption is plain text, at most maxCaption characters once cut.
	caption string
	content string
}

// isCut reports whether shown, the escaped rendering of agent text s, is
// less than all of it.
func isCut(shown, s string) bool { return shown != html.EscapeString(clean(s)) }

// diffFileName names the file of a diff of file (one path, or several
// joined by commas): the file's base name and .diff.
func diffFileName(file string) string {
	base := ""
	if file != "" && !strings.Contains(file, ", ") {
		base = path.Base(strings.ReplaceAll(file, `\`, "/"))
	}
	name := strings.Trim(strings.Map(func(r rune) rune {
		if strings.ContainsRune(alnum+"._-", r) {
			return r
		}
		return '_'
	}, base), ".")
	if name == "" || len(name) > 100 {
		name = "changes"
	}
	return name + ".diff"
}

// fullCaption is caption followed by what it is about, if anything.
func fullCaption(caption, about string) string {
	if about = oneLine(about); about != "" {
		caption += ": " + about
	}
	return caption
}

// questionsCut returns the whole text of every question of e that its
// message shows cut, when that question is the current one.
func questionsCut(tx *i18n.Text, e *frontend.View) []fullText {
	var out []fullText
	for qi := range e.Questions {
		x := *e
		x.Current = qi
		if _, _, cut, err := renderQuestionCut(tx, &x); err != nil || !cut {
			continue
		}
		name, caption := "question.txt", tx.FullQuestion
		if len(e.Questions) > 1 {
			name = "question-" + strconv.Itoa(qi+1) + ".txt"
			caption = fullCaption(caption, title(tx, e, qi))
		}
		out = append(out, fullText{name: name, caption: caption, content: e.Questions[qi].Text})
	}
	return out
}

// cutTexts returns the whole texts r's open message shows cut.
func (f *Frontend) cutTexts(r frontend.Request) []fullText {
	if len(r.Members) == 0 {
		return nil
	}
	if r.Members[0].Kind == frontend.KindPermission {
		_, _, cut, _ := renderPermissionCut(f.text, r.Key, r.Members, r.Generation) // nil on an error
		return cut
	}
	return questionsCut(f.text, r.Members[0])
}

// sendFull sends the texts of request key cut in its message at at,
// whole, as files replying to it. It returns at once: the message is
// posted and its request must not wait for the files (a press may be
// waiting for the request's lock), which follow it through the same
// queue. A file that cannot be sent is logged; the request is posted all
// the same.
func (f *Frontend) sendFull(key string, at place, full []fullText) {
	log := f.log.With().Str("uid", key).Int("messageID", at.Message).Logger()
	f.running.Add()
	go func() {
		defer f.running.Done()
		ctx, cancel := context.WithTimeout(context.Background(), documentTimeout)
		defer cancel()
		for _, t := range full {
			p := &tgbot.SendDocumentParams{
				ChatID:          at.Chat,
				MessageThreadID: at.Thread,
				Document:        &models.InputFileUpload{Filename: t.name, Data: bytes.NewReader([]byte(t.content))},
				Caption:         plain(t.caption, maxCaption),
				ReplyParameters: &models.ReplyParameters{MessageID: at.Message, AllowSendingWithoutReply: true},
			}
			if _, err := f.tg.SendDocument(ctx, p); err != nil {
				log.Warn().Err(err).Str("file", t.name).Int("bytes", len(t.content)).
					Msg("could not send the whole text of a request as a file; its message shows it cut")
				continue
			}
			log.Debug().Str("file", t.name).Int("bytes", len(t.content)).Msg("sent the whole text of a request as a file")
		}
	}()
}
