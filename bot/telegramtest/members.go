package telegramtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Member statuses getChatMember reports, as Telegram names them.
const (
	MemberCreator       = "creator"
	MemberAdministrator = "administrator"
	MemberMember        = "member"
	MemberRestricted    = "restricted" // a member who may not send messages
	MemberLeft          = "left"
	MemberKicked        = "kicked"
)

// WithPrivacyDisabled makes getMe report can_read_all_group_messages true,
// as for a bot whose privacy mode was turned off with @BotFather. It
// changes only what getMe reports: the fake delivers every message either
// way.
func WithPrivacyDisabled() Option {
	return func(s *Server) { s.privacyOff = true }
}

// SetMember sets what getChatMember reports for user u in a known chat;
// status is one of the Member… constants. Without it the bot is a
// "member" of every chat, and any other user is unknown ("user not found").
func (s *Server) SetMember(chatID int64, u User, status string) error {
	switch status {
	case MemberCreator, MemberAdministrator, MemberMember, MemberRestricted, MemberLeft, MemberKicked:
	default:
		return fmt.Errorf("telegramtest: set member: unknown status %q", status)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chats[chatID] == nil {
		return fmt.Errorf("telegramtest: set member: chat %d is not known (AddChat first)", chatID)
	}
	if s.members[chatID] == nil {
		s.members[chatID] = make(map[int64]member)
	}
	s.members[chatID][u.ID] = member{user: u, status: status}
	s.notifyLocked()
	return nil
}

type member struct {
	user   User
	status string
}

func (s *Server) getChatMember(_ context.Context, p params) (any, *apiError) {
	if strings.TrimSpace(p["chat_id"]) == "" {
		return nil, badRequest("chat_id is empty")
	}
	userID, err := strconv.ParseInt(strings.TrimSpace(p["user_id"]), 10, 64)
	if err != nil || userID <= 0 {
		return nil, badRequest("invalid user_id specified")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(p["chat_id"])
	if c == nil {
		return nil, badRequest("chat not found")
	}
	m, ok := s.members[c.id][userID]
	if !ok {
		if userID != s.bot.ID {
			return nil, badRequest("user not found")
		}
		m = member{user: s.bot, status: MemberMember}
	}
	out := map[string]any{"status": m.status, "user": s.wireUser(m.user, m.user.ID == s.bot.ID)}
	switch m.status {
	case MemberCreator:
		out["is_anonymous"] = false
	case MemberAdministrator:
		for _, k := range []string{"can_be_edited", "is_anonymous", "can_promote_members", "can_change_info"} {
			out[k] = false
		}
		for _, k := range []string{"can_manage_chat", "can_delete_messages", "can_manage_video_chats",
			"can_restrict_members", "can_invite_users", "can_post_stories", "can_edit_stories",
			"can_delete_stories", "can_pin_messages"} {
			out[k] = true
		}
	case MemberRestricted:
		out["is_member"] = true
		out["until_date"] = 0
		for _, k := range []string{"can_send_messages", "can_send_audios", "can_send_documents", "can_send_photos",
			"can_send_videos", "can_send_video_notes", "can_send_voice_notes", "can_send_polls",
			"can_send_other_messages", "can_add_web_page_previews", "can_change_info", "can_invite_users",
			"can_pin_messages", "can_manage_topics"} {
			out[k] = false
		}
	case MemberKicked:
		out["until_date"] = 0
	}
	return out, nil
}
