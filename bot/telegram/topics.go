package telegram

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"
)

// maxTopicName is Telegram's limit on a topic's name, in characters.
const maxTopicName = 128

// topicRetry is how long after a failed createForumTopic a project's
// requests go to the fallback thread before creating is tried again, so
// a group that is no forum does not cost a call and a warning per request.
const topicRetry = 10 * time.Minute

// topicName is the name of the topic of project directory dir: its base
// name, cut to Telegram's limit.
func topicName(dir string) string {
	name := filepath.Base(filepath.Clean(dir))
	if name == "." || name == string(filepath.Separator) || name == "" {
		name = dir
	}
	if r := []rune(name); len(r) > maxTopicName {
		name = string(r[:maxTopicName])
	}
	return name
}

// threadFor returns the forum topic a new request or notice from
// project directory dir is posted in, in chat chatID: with
// topicPerProject the project's topic, created and remembered on first
// use; otherwise, or when the topic cannot be had, Config.ThreadID (0:
// the chat itself). Topics are created one at a time, so two requests of a new
// project make one topic.
func (f *Frontend) threadFor(ctx context.Context, log zerolog.Logger, chatID int64, dir string) int {
	fallback := f.cfg.ThreadID
	if !f.cfg.TopicPerProject || dir == "" {
		return fallback
	}
	f.topicMu.Lock()
	defer f.topicMu.Unlock()
	id, ok, err := f.state.ThreadFor(chatID, dir)
	if err != nil {
		log.Warn().Err(err).Int("threadID", fallback).Msg("could not look up the project's forum topic; posting in the configured thread")
		return fallback
	}
	if ok {
		return id
	}
	key := topicFailKey{chatID, dir}
	if at, failed := f.topicFailed[key]; failed && f.now().Sub(at) < topicRetry {
		return fallback
	}
	topic, err := f.tg.CreateForumTopic(ctx, &tgbot.CreateForumTopicParams{ChatID: chatID, Name: topicName(dir)})
	if err == nil && (topic == nil || topic.MessageThreadID <= 0) {
		err = errors.New("telegram createForumTopic returned no thread ID")
	}
	if err != nil {
		if f.topicFailed == nil {
			f.topicFailed = make(map[topicFailKey]time.Time)
		}
		f.topicFailed[key] = f.now()
		log.Warn().Err(err).Int("threadID", fallback).Dur("retry_in", topicRetry).
			Msg("could not create the project's forum topic (is the group a forum, and the bot an admin allowed to manage topics?); posting in the configured thread")
		return fallback
	}
	id = topic.MessageThreadID
	delete(f.topicFailed, key)
	if err := f.state.RememberThread(chatID, dir, id); err != nil {
		log.Warn().Err(err).Int("threadID", id).Msg("created the project's forum topic but could not remember it; a restart creates another")
	}
	log.Info().Int("threadID", id).Str("topic", topicName(dir)).Msg("forum topic created for the project")
	return id
}

type topicFailKey struct {
	chat int64
	dir  string
}

// threadOf is the thread to answer message m in: its topic, when it is
// in one. Outside forums message_thread_id marks reply threads, which
// must not be echoed.
func threadOf(m *models.Message) int {
	if m == nil || !m.IsTopicMessage {
		return 0
	}
	return m.MessageThreadID
}
