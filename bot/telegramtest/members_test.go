package telegramtest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

func TestGetChatMember(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	ctx := testContext(t)
	get := func(userID int64) (*models.ChatMember, error) {
		return b.GetChatMember(ctx, &bot.GetChatMemberParams{ChatID: groupID, UserID: userID})
	}

	m, err := get(botID)
	if err != nil || m.Type != models.ChatMemberTypeMember || m.Member.User.ID != botID || !m.Member.User.IsBot {
		t.Fatalf("the bot by default = %+v, %v; want a member", m, err)
	}
	if _, err := get(alice.ID); !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), "user not found") {
		t.Fatalf("an unknown user: %v, want user not found", err)
	}
	if _, err := b.GetChatMember(ctx, &bot.GetChatMemberParams{ChatID: -999, UserID: botID}); !errors.Is(err, bot.ErrorBadRequest) ||
		!strings.Contains(err.Error(), "chat not found") {
		t.Fatalf("an unknown chat: %v, want chat not found", err)
	}

	cases := []struct {
		status string
		check  func(*models.ChatMember) bool
	}{
		{telegramtest.MemberAdministrator, func(m *models.ChatMember) bool {
			return m.Type == models.ChatMemberTypeAdministrator && m.Administrator.User.ID == alice.ID && m.Administrator.CanDeleteMessages
		}},
		{telegramtest.MemberCreator, func(m *models.ChatMember) bool {
			return m.Type == models.ChatMemberTypeOwner && m.Owner.User.ID == alice.ID
		}},
		{telegramtest.MemberRestricted, func(m *models.ChatMember) bool {
			return m.Type == models.ChatMemberTypeRestricted && m.Restricted.IsMember && !m.Restricted.CanSendMessages
		}},
		{telegramtest.MemberLeft, func(m *models.ChatMember) bool {
			return m.Type == models.ChatMemberTypeLeft && m.Left.User.FirstName == "Alice"
		}},
		{telegramtest.MemberKicked, func(m *models.ChatMember) bool { return m.Type == models.ChatMemberTypeBanned }},
	}
	for _, tc := range cases {
		if err := s.SetMember(groupID, alice, tc.status); err != nil {
			t.Fatal(err)
		}
		m, err := get(alice.ID)
		if err != nil || !tc.check(m) {
			t.Errorf("%s: got %+v, %v", tc.status, m, err)
		}
	}

	if err := s.SetMember(groupID, alice, "owner"); err == nil {
		t.Error("SetMember with an unknown status: want an error")
	}
	if err := s.SetMember(-999, alice, telegramtest.MemberMember); err == nil {
		t.Error("SetMember in an unknown chat: want an error")
	}
}

func TestPrivacyMode(t *testing.T) {
	ctx := testContext(t)
	for _, tc := range []struct {
		opts    []telegramtest.Option
		readAll bool
	}{{nil, false}, {[]telegramtest.Option{telegramtest.WithPrivacyDisabled()}, true}} {
		s := newServer(t, tc.opts...)
		me, err := newBot(t, s).GetMe(ctx)
		if err != nil || me.CanReadAllGroupMessages != tc.readAll {
			t.Errorf("getMe = %+v, %v; want can_read_all_group_messages %v", me, err, tc.readAll)
		}
	}
}
