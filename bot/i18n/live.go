package i18n

// Live is every text of a busy session's live status (HERMES_LIVE_STATUS).
// Arguments are escaped already.
type Live struct {
	// Working says the turn has run for elapsed ("1m05s").
	Working func(elapsed string) string
	// Done says the turn ended after elapsed.
	Done func(elapsed string) string
	// Unfollowed says hermes-bot stopped following the turn after elapsed.
	Unfollowed func(elapsed string) string
	// Tokens says how many tokens the turn used ("12.3k").
	Tokens func(n string) string
}

var liveEnglish = Live{
	Working: func(elapsed string) string { return "working for " + elapsed },
	Done:    func(elapsed string) string { return "turn done in " + elapsed },
	Unfollowed: func(elapsed string) string {
		return "no longer followed after " + elapsed + " (hermes-bot stopped)"
	},
	Tokens: func(n string) string { return n + " tokens" },
}

var liveChinese = Live{
	Working: func(elapsed string) string { return "运行中，已 " + elapsed },
	Done:    func(elapsed string) string { return "本轮完成，用时 " + elapsed },
	Unfollowed: func(elapsed string) string {
		return "已运行 " + elapsed + "，hermes-bot 已停止，不再跟踪"
	},
	Tokens: func(n string) string { return n + " 个 token" },
}
