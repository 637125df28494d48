package telegram

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/internal/tracker"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Config is what the Telegram front-end needs to know of its deployment.
type Config struct {
	// ChatID is the chat requests are posted to; updates from any other
	// chat are refused.
	ChatID int64
	// AllowedUserIDs may answer; empty lets anyone in the chat answer.
	AllowedUserIDs []int64
	// BotID is the bot's own user ID; its own messages are never answers.
	BotID int64
	// BotUsername is the bot's username, without "@": a command
	// addressed as /cmd@name is answered only when name is this.
	BotUsername string
	// OnChatMigrated, if set, is called when the chat announces that it
	// was upgraded to a supergroup (a service message with
	// migrate_to_chat_id), after the front-end has switched to the new ID.
	OnChatMigrated func(oldChatID, newChatID int64)
	// ThreadID is the forum topic requests are posted in
	// (TELEGRAM_THREAD_ID); 0: the chat itself, or a forum's General topic.
	ThreadID int
	// TopicPerProject posts each project directory's requests in a forum
	// topic of its own, created on first use and remembered in the store;
	// ThreadID is where they go when it cannot be created.
	TopicPerProject bool
	// Lang is the language of every text the bot writes for people: "en"
	// (the default) or "zh" (HERMES_LANG).
	Lang string
	// Version is hermes-bot's version, for /status.
	Version string
	// Servers tell /status how each opencode server's event stream is,
	// a line each in this order.
	Servers []ServerStatus
	// StartedAt is when hermes-bot started, for the uptime /status
	// shows; New's time if zero.
	StartedAt time.Time
	// Now is the clock (time.Now if nil): when updates arrive, and when
	// creating a forum topic is tried again.
	Now func() time.Time
	// Later, if set, takes the edits RefreshLater hands over without
	// waiting for them; set it to the Outbox that is New's Telegram, so
	// that those edits keep their order with the others of their message.
	// Nil: RefreshLater waits for its edit, within the handler timeout.
	Later LaterEditor
	// StaleSteer: a steering message older than this is sent only after
	// a tap (HERMES_STALE_STEER); 0: never asks.
	StaleSteer time.Duration
	// MaxUpload is the most bytes of files a prompt takes, and /file
	// sends (HERMES_MAX_UPLOAD); 0: no files either way.
	MaxUpload int64
	// QuickReplies are stock replies offered as buttons below a question
	// that takes a typed answer (HERMES_QUICK_REPLIES); a button carries
	// its index.
	QuickReplies []string
	// AfterFunc is the timer that ends the wait for a split text's next
	// part (parts.go) and that shows a live status due (live.go);
	// time.AfterFunc if nil.
	AfterFunc AfterFunc
}

// Frontend shows requests in a Telegram group and reads what people do
// there: it renders requests as HTML with inline keyboards, makes the Bot
// API calls (through the Telegram it is given: the Outbox, in a
// deployment), and turns updates into frontend.Press and frontend.Input
// for the life cycle (see Handler). Make one with New.
type Frontend struct {
	cfg   Config
	tg    Telegram
	text  *i18n.Text
	store *pending.Store
	// state is the front-end's own bookkeeping in store (state.go).
	state *State
	log   zerolog.Logger
	// chatID starts as cfg.ChatID and follows a supergroup migration.
	chatID  atomic.Int64
	started time.Time
	// running counts the update handlers running, for Wait.
	running tracker.Tracker
	offsets offsetTracker

	// topicMu serialises finding or creating a project's forum topic;
	// topicFailed, under it, holds when creating one last failed.
	topicMu     sync.Mutex
	topicFailed map[topicFailKey]time.Time

	// asking is read-held while a steering prompt is sent and remembered;
	// a reply to an unknown bot message takes it once, so it cannot
	// overtake the remembering. prompting is the same for the prompts of
	// typed answers (prompts.go).
	asking, prompting sync.RWMutex
	// held are the replies waiting for a choice of delivery (deliver.go).
	held heldPrompts
	// reactFailed is set once a reaction failed, so that is logged once.
	reactFailed atomic.Bool
	// revokeMu serialises Revoke presses: handlers run concurrently, and
	// one's edit, listed before another's revoke, would undo its list.
	revokeMu sync.Mutex

	// parts joins the parts of a text Telegram split; order lets
	// messages reach it in update order (parts.go).
	parts joiner
	order updateOrder
	after AfterFunc
	// live are the busy sessions' status messages (live.go).
	live liveMsgs

	now func() time.Time
	// Tests shorten it.
	handlerTimeout time.Duration
}

var _ frontend.Frontend = (*Frontend)(nil)

// handlerTimeout bounds one update's work, opencode's resolve (about 6 s)
// and reply included.
const handlerTimeout = 30 * time.Second

// New returns a Frontend posting to cfg.ChatID through tg and keeping its
// forum topics and update offsets in its State in store. It does no I/O.
func New(cfg Config, tg Telegram, store *pending.Store, log zerolog.Logger) *Frontend {
	cfg.AllowedUserIDs = slices.Clone(cfg.AllowedUserIDs)
	cfg.QuickReplies = slices.Clone(cfg.QuickReplies)
	f := &Frontend{cfg: cfg, tg: tg, text: i18n.For(cfg.Lang), store: store, state: StateOf(store), log: log,
		now: cfg.Now, handlerTimeout: handlerTimeout}
	if f.now == nil {
		f.now = time.Now
	}
	if f.after = cfg.AfterFunc; f.after == nil {
		f.after = realAfterFunc
	}
	f.chatID.Store(cfg.ChatID)
	f.started = cfg.StartedAt
	if f.started.IsZero() {
		f.started = f.now()
	}
	return f
}

// ChatID is the chat requests are posted to now: Config.ChatID, or the
// supergroup it was migrated to. Safe for concurrent use.
func (f *Frontend) ChatID() int64 { return f.chatID.Load() }

// SetChatID switches the front-end to another chat, after a supergroup
// migration. Updates from the old chat are refused from then on. Safe
// for concurrent use.
func (f *Frontend) SetChatID(id int64) {
	if old := f.chatID.Swap(id); old != id {
		f.log.Warn().Int64("oldChatID", old).Int64("newChatID", id).Msg("chat migrated to a supergroup; posting to the new chat ID from now on")
	}
}

// allowed reports whether user may answer.
func (f *Frontend) allowed(userID int64) bool {
	return len(f.cfg.AllowedUserIDs) == 0 || slices.Contains(f.cfg.AllowedUserIDs, userID)
}

// render is r's open message: its text and keyboard.
func (f *Frontend) render(r frontend.Request) (string, *models.InlineKeyboardMarkup, error) {
	if len(r.Members) == 0 {
		return "", nil, errors.New("render: no request")
	}
	if r.Members[0].Kind == frontend.KindPermission {
		text, kb, err := renderPermission(f.text, r.Key, r.Members, r.Generation)
		if err == nil && r.Generation == 2 {
			text = f.savesRule(text, kb)
		}
		return text, kb, err
	}
	text, kb, err := renderQuestion(f.text, r.Members[0])
	if err != nil {
		return "", nil, err
	}
	kb, err = addQuickReplies(kb, r.Members[0], f.cfg.QuickReplies)
	return text, kb, err
}

// Name is Name: the front-end's places and state are kept under it.
func (f *Frontend) Name() string { return Name }

func (f *Frontend) Post(ctx context.Context, r frontend.Request) (pending.Place, error) {
	chat := f.ChatID()
	text, kb, err := f.render(r)
	if err != nil {
		return "", fmt.Errorf("post %s: %w", r.Key, err)
	}
	thread := f.threadFor(ctx, f.log.With().Str("uid", r.Key).Logger(), chat, r.Members[0].Directory)
	msg, err := f.tg.SendMessage(ctx, htmlMessage(chat, thread, text, kb, 0))
	if err != nil {
		return "", fmt.Errorf("post %s: %w", r.Key, err)
	}
	at := place{Chat: chat, Message: msg.ID, Thread: thread}
	if full := f.cutTexts(r); len(full) > 0 {
		f.sendFull(r.Key, at, full)
	}
	return at.encode(), nil
}

func (f *Frontend) Refresh(ctx context.Context, at pending.Place, r frontend.Request) error {
	text, kb, err := f.render(r)
	if err != nil {
		return fmt.Errorf("refresh %s: %w", r.Key, err)
	}
	return f.editMessage(ctx, placeAt(at), text, kb)
}

// LaterEditor hands an edit over without waiting for it (Config.Later):
// the Outbox does, so that a toggle's refresh does not wait for pacing.
// The Outbox keeps a message's edits in order, and lets a newer edit take
// the place of one still queued, so a handed-over edit never lands after
// a later one.
type LaterEditor interface {
	EditMessageTextLater(p *tgbot.EditMessageTextParams, done func(*models.Message, error))
}

var _ LaterEditor = (*Outbox)(nil)

// RefreshLater renders r now and hands the edit to Config.Later. With
// none (a front-end over a bare client, which does not pace) the edit is
// waited for, within handlerTimeout, before it returns: nothing else would
// keep the edits of a message in order.
func (f *Frontend) RefreshLater(pat pending.Place, r frontend.Request, done func(error)) {
	at := placeAt(pat)
	finish := func(err error) {
		if done != nil {
			done(err)
		}
	}
	text, kb, err := f.render(r)
	if err != nil {
		go finish(fmt.Errorf("refresh %s: %w", r.Key, err))
		return
	}
	if f.cfg.Later == nil {
		ctx, cancel := context.WithTimeout(context.Background(), f.handlerTimeout)
		defer cancel()
		go finish(f.editMessage(ctx, at, text, kb)) // the edit is done here; only finish runs apart
		return
	}
	f.cfg.Later.EditMessageTextLater(editParams(at, text, kb), func(_ *models.Message, err error) {
		finish(editResult(at, err))
	})
}

// editMessage makes the message at at show text and kb (none: no
// buttons). An edit that changes nothing is done; a message that is gone
// or an edit refused for good say so (frontend.ErrGone, ErrRefused).
func (f *Frontend) editMessage(ctx context.Context, at place, text string, kb *models.InlineKeyboardMarkup) error {
	_, err := f.tg.EditMessageText(ctx, editParams(at, text, kb))
	return editResult(at, err)
}

// editParams is the edit making the message at at show text and kb.
func editParams(at place, text string, kb *models.InlineKeyboardMarkup) *tgbot.EditMessageTextParams {
	return &tgbot.EditMessageTextParams{
		ChatID:             at.Chat,
		MessageID:          at.Message,
		Text:               text,
		ParseMode:          models.ParseModeHTML,
		LinkPreviewOptions: noPreview(),
		ReplyMarkup:        replyMarkup(kb),
	}
}

// editResult is what an edit of the message at at that returned err means
// to the life cycle.
func editResult(at place, err error) error {
	switch {
	case err == nil || isNotModified(err):
		return nil
	case isMessageGone(err):
		return fmt.Errorf("edit message %d: %w: %w", at.Message, frontend.ErrGone, err)
	case isClientError(err) && !errors.Is(err, tgbot.ErrorForbidden):
		// A 403 (the bot is out of the group) may end; any other 4xx
		// will not.
		return fmt.Errorf("edit message %d: %w: %w", at.Message, frontend.ErrRefused, err)
	}
	return fmt.Errorf("edit message %d: %w", at.Message, err)
}

// outcome is the HTML r's message ends showing once it closed as o.
func (f *Frontend) outcome(r frontend.Request, o frontend.Outcome) string {
	if len(r.Members) == 0 {
		return ""
	}
	icon, footer := f.footer(r.Members[0], o)
	footer = f.ruleFooter(r, o, footer)
	if r.Members[0].Kind == frontend.KindPermission {
		return renderPermissionOutcome(f.text, r.Members, icon, footer)
	}
	return renderOutcome(f.text, r.Members[0], icon, o.Answers, footer)
}

// footer is the icon of outcome o of e's message, and the HTML line that
// says it.
func (f *Frontend) footer(e *frontend.View, o frontend.Outcome) (icon, footer string) {
	tx := f.text
	switch o.How {
	case frontend.Answered:
		if e.IsURLForm() {
			return "✅", tx.Form.DoneBy(who(o.By))
		}
		return "✅", tx.AnsweredBy(who(o.By))
	case frontend.AnsweredElsewhere:
		return "✅", tx.AnsweredOC
	case frontend.Dismissed:
		if e.Form != nil {
			return "🚫", tx.Form.CancelledOC
		}
		return "🚫", tx.DismissedOC
	case frontend.Cancelled:
		return "🚫", tx.Form.CancelledBy(who(o.By))
	case frontend.Gone:
		return "✅", tx.GoneFooter
	case frontend.NoLongerPending:
		if e.Kind == frontend.KindPermission {
			return "⚠️", "⚠️ " + tx.NoLongerPending
		}
		return "⚠️", tx.NoLongerPending
	case frontend.Expired:
		footer = tx.Expired(human(o.TTL))
		switch o.Told {
		case frontend.NotTold:
			footer += tx.ExpiredNotTold
		case frontend.ToldRejected:
			footer += tx.ExpiredRejected
		default:
			footer += tx.ExpiredDismissed
		}
		return "⌛", footer
	case frontend.Decided:
		return decisionFooter(tx, o.Reply, e, o.By, o.Reason)
	case frontend.DecidedElsewhere:
		return elsewhereFooter(tx, o.Reply)
	case frontend.Stopped:
		return "⏹", tx.Steer.StoppedFooter(who(o.By))
	}
	return "✅", ""
}

func (f *Frontend) Close(ctx context.Context, at pending.Place, c frontend.Closing) error {
	p := placeAt(at)
	f.forgetPrompts(p)
	content := c.Shown
	if content == "" {
		content = f.outcome(c.Request, c.Outcome)
	}
	if content == "" {
		return fmt.Errorf("close message %d: %w: nothing to show", p.Message, frontend.ErrRefused)
	}
	return f.editMessage(ctx, p, content, nil)
}

func (f *Frontend) Moved(ctx context.Context, stalePlace, currentPlace pending.Place, closed bool) error {
	stale, current := placeAt(stalePlace), placeAt(currentPlace)
	return f.editMessage(ctx, stale, renderMoved(f.text, stale.Chat, stale.Message, current.Message, closed), nil)
}

func (f *Frontend) Tell(ctx context.Context, at pending.Place, key string, user frontend.User, note string) error {
	p := placeAt(at)
	if _, err := f.tg.SendMessage(ctx, htmlMessage(p.Chat, p.Thread, mention(user)+": "+note, nil, p.Message)); err != nil {
		return fmt.Errorf("tell about %s: %w", key, err)
	}
	return nil
}

func (f *Frontend) Notify(ctx context.Context, n frontend.Notice) (pending.Place, error) {
	chat := f.ChatID()
	icon, what := "✅", f.text.Finished
	if n.Failed {
		icon, what = "❌", f.text.Failed
	}
	text := renderNotice(f.text, icon, n.Server, n.Directory, n.SessionID, n.Title, what, n.Body, n.Dropped)
	kb := f.noticeKeyboard(n)
	if kb != nil {
		text += "\n" + f.text.Steer.ReplyToContinue
	}
	log := f.log.With().Str("sessionID", n.SessionID).Str("directory", n.Directory).Logger()
	thread := f.threadFor(ctx, log, chat, n.Directory)
	msg, err := f.tg.SendMessage(ctx, htmlMessage(chat, thread, text, replyMarkup(kb), 0))
	if err != nil {
		return "", fmt.Errorf("notice of session %s: %w", n.SessionID, err)
	}
	return place{Chat: chat, Message: msg.ID, Thread: thread}.encode(), nil
}

func (f *Frontend) AutoApproved(ctx context.Context, e *frontend.View) error {
	chat := f.ChatID()
	thread := f.threadFor(ctx, f.log.With().Str("uid", e.UID).Logger(), chat, e.Directory)
	if _, err := f.tg.SendMessage(ctx, htmlMessage(chat, thread, renderAutoApproved(f.text, e), nil, 0)); err != nil {
		return fmt.Errorf("auto-approval notice of %s: %w", e.UID, err)
	}
	return nil
}

// userOf is the person behind a Telegram user.
func userOf(u *models.User) frontend.User {
	if u == nil {
		return frontend.User{}
	}
	return frontend.User{ID: strconv.FormatInt(u.ID, 10), Name: strings.TrimSpace(u.FirstName + " " + u.LastName), Username: u.Username}
}

// isMessageGone reports Telegram's refusal to edit a message it no longer
// has: deleted by someone, or never there.
func isMessageGone(err error) bool {
	return errors.Is(err, tgbot.ErrorBadRequest) && strings.Contains(err.Error(), "message to edit not found")
}

// noPreview keeps agent text's URLs from growing previews.
func noPreview() *models.LinkPreviewOptions {
	return &models.LinkPreviewOptions{IsDisabled: new(true)}
}

// replyMarkup is kb as a message's markup: a nil keyboard in the
// interface would be sent as one.
func replyMarkup(kb *models.InlineKeyboardMarkup) models.ReplyMarkup {
	if kb == nil {
		return nil
	}
	return kb
}

// htmlMessage is the shape of every message the front-end sends: HTML with
// link previews off, into topic threadID of chatID (0: no topic), with
// markup (nil: none), replying to message replyTo unless it is 0 (and
// sent all the same if that message is gone).
func htmlMessage(chatID int64, threadID int, text string, markup models.ReplyMarkup, replyTo int) *tgbot.SendMessageParams {
	p := &tgbot.SendMessageParams{
		ChatID:             chatID,
		MessageThreadID:    threadID,
		Text:               text,
		ParseMode:          models.ParseModeHTML,
		LinkPreviewOptions: noPreview(),
		ReplyMarkup:        markup,
	}
	if replyTo != 0 {
		p.ReplyParameters = &models.ReplyParameters{MessageID: replyTo, AllowSendingWithoutReply: true}
	}
	return p
}
