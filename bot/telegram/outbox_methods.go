// The Outbox's Telegram methods: each turns its call into a job on its
// chat's queue (queued), or passes it straight through.

package telegram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

// SendMessage queues the send behind the chat's earlier calls and blocks
// until it is done or ctx ends. p is not modified.
func (o *Outbox) SendMessage(ctx context.Context, p *tgbot.SendMessageParams) (*models.Message, error) {
	if p == nil {
		return nil, errors.New("telegram sendMessage: no parameters")
	}
	q := *p
	return queued(o, ctx, "sendMessage", q.ChatID, 0, false, func(ctx context.Context, chat any) (*models.Message, error) {
		q.ChatID = chat
		return o.tg.SendMessage(ctx, &q)
	})
}

// SendDocument queues the upload as SendMessage queues a send, and
// blocks until it is done or ctx ends. An uploaded file
// (*models.InputFileUpload) is read here, once, so that a retry sends it
// whole again. p is not modified.
func (o *Outbox) SendDocument(ctx context.Context, p *tgbot.SendDocumentParams) (*models.Message, error) {
	if p == nil {
		return nil, errors.New("telegram sendDocument: no parameters")
	}
	q := *p
	var upload *models.InputFileUpload
	var data []byte
	if u, ok := q.Document.(*models.InputFileUpload); ok && u != nil && u.Data != nil {
		b, err := io.ReadAll(u.Data)
		if err != nil {
			return nil, fmt.Errorf("telegram sendDocument: read %s: %w", u.Filename, err)
		}
		upload, data = u, b
	}
	return queued(o, ctx, "sendDocument", q.ChatID, 0, false, func(ctx context.Context, chat any) (*models.Message, error) {
		c := q
		c.ChatID = chat
		if upload != nil {
			c.Document = &models.InputFileUpload{Filename: upload.Filename, Data: bytes.NewReader(data)}
		}
		return o.tg.SendDocument(ctx, &c)
	})
}

// EditMessageText queues the edit behind the chat's earlier calls about
// the same message, where it replaces any queued edit of that message, and
// blocks until it is done or ctx ends. "Message is not modified" gives
// (nil, nil). An edit of an inline message (no ChatID) passes straight
// through. p is not modified.
func (o *Outbox) EditMessageText(ctx context.Context, p *tgbot.EditMessageTextParams) (*models.Message, error) {
	if p == nil {
		return nil, errors.New("telegram editMessageText: no parameters")
	}
	q := *p
	return queued(o, ctx, "editMessageText", q.ChatID, q.MessageID, true, func(ctx context.Context, chat any) (*models.Message, error) {
		q.ChatID = chat
		return o.tg.EditMessageText(ctx, &q)
	})
}

// EditMessageTextLater queues the edit as EditMessageText does and
// returns at once, for a caller that must not wait for pacing, a 429 or
// retries (one holding a lock the next tap needs, say). The edit joins the
// same queue: the calls about its message still reach Telegram one at a
// time in the order they were made, and while queued it replaces, or is
// replaced by, a newer edit of the message by either method, everyone
// waiting for either getting the result of the one sent. No caller can
// cancel it: it is retried like any call, and stays queued until it has
// run or the Outbox closes, even if every caller of EditMessageText that
// shares it stops waiting.
//
// done, if not nil, is called exactly once with what EditMessageText
// would have returned ((nil, nil) for "message is not modified"), never on
// the caller's goroutine, so it may take locks the caller holds: on the
// goroutine that ran the edit, or on Close's for an edit Close dropped.
// Its error wraps ErrOutboxClosed if the Outbox closed before the edit was
// done, or was closed already. Close returns only after the done calls of
// the edits it ends, so done must not call Close, nor take a lock held
// around Close. An edit of an inline message (no ChatID) is sent at once,
// unqueued, as EditMessageText sends it. p is not modified.
func (o *Outbox) EditMessageTextLater(p *tgbot.EditMessageTextParams, done func(*models.Message, error)) {
	notify := func(res any, err error) {
		if done != nil {
			m, _ := res.(*models.Message) // nil for "message is not modified"
			done(m, err)
		}
	}
	if p == nil {
		go notify(nil, errors.New("telegram editMessageText: no parameters"))
		return
	}
	q := *p
	call := func(ctx context.Context, chat any) (any, error) {
		q.ChatID = chat
		return o.tg.EditMessageText(ctx, &q)
	}
	key, ok := chatKeyOf(q.ChatID)
	if !ok {
		o.detach(func(ctx context.Context) { notify(call(ctx, q.ChatID)) },
			func() { notify(nil, fmt.Errorf("telegram editMessageText: %w", ErrOutboxClosed)) })
		return
	}
	_, err := o.enqueue("editMessageText", key, q.MessageID, true, call, func(j *job) {
		j.handed = true
		if done != nil {
			j.dones = append(j.dones, notify)
		}
	})
	if err != nil {
		go notify(nil, err)
	}
}

// detach runs f under the Outbox's ctx on a goroutine Close waits for, or
// closed on a goroutine of its own if the Outbox is closed: Close may have
// returned already, and its WaitGroup must not be added to after.
func (o *Outbox) detach(f func(ctx context.Context), closed func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		go closed()
		return
	}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		f(o.ctx)
	}()
}

// CreateForumTopic queues the creation behind the chat's earlier calls,
// under the same pacing as a message. p is not modified.
func (o *Outbox) CreateForumTopic(ctx context.Context, p *tgbot.CreateForumTopicParams) (*models.ForumTopic, error) {
	if p == nil {
		return nil, errors.New("telegram createForumTopic: no parameters")
	}
	q := *p
	return queued(o, ctx, "createForumTopic", q.ChatID, 0, false, func(ctx context.Context, chat any) (*models.ForumTopic, error) {
		q.ChatID = chat
		return o.tg.CreateForumTopic(ctx, &q)
	})
}

// AnswerCallbackQuery passes straight through, never queued: Telegram
// shows a spinner until it is answered, and gives up on it after seconds.
func (o *Outbox) AnswerCallbackQuery(ctx context.Context, p *tgbot.AnswerCallbackQueryParams) (bool, error) {
	return o.tg.AnswerCallbackQuery(ctx, p)
}

// SetMessageReaction passes straight through: a reaction posts no message,
// so the group's message pacing does not count it, and it is the quick
// acknowledgement of a message that must not wait behind queued posts.
// One handler sets a message's reactions in turn, so their order holds.
func (o *Outbox) SetMessageReaction(ctx context.Context, p *tgbot.SetMessageReactionParams) (bool, error) {
	return o.tg.SetMessageReaction(ctx, p)
}

// GetFile passes straight through: it posts nothing in the chat.
func (o *Outbox) GetFile(ctx context.Context, p *tgbot.GetFileParams) (*models.File, error) {
	return o.tg.GetFile(ctx, p)
}

// FileDownloadLink is the wrapped Telegram's.
func (o *Outbox) FileDownloadLink(f *models.File) string { return o.tg.FileDownloadLink(f) }
