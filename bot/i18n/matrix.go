package i18n

import "strconv"

// Matrix is every text only the Matrix front-end writes: a request is
// answered there by a poll and by replies, and commands start with "!".
// Texts that are HTML say so; arguments are escaped where they are.
// Poll questions and the reasons a poll ended are plain text.
type Matrix struct {
	// AllowWhat is a permission's poll question; what is the command.
	AllowWhat func(what string) string
	// LinkDone is a link form's poll question; YourAnswer a field's
	// without text or title.
	LinkDone, YourAnswer string
	// How to answer, under a request (HTML, in italics): a permission, a
	// link form, a multiple choice (OrReplyOwn follows when an answer may
	// be typed), a choice that may be typed, a choice, a typed answer.
	HowPermission, HowLink, HowMulti, OrReplyOwn, HowVoteOrReply, HowVote, HowReply string
	// Answers follows an outcome with the answers given (HTML).
	Answers func(list string) string
	// Closed ends a request closed some other way.
	Closed string
	// NextQuestion and MovedNewer say why a poll ended.
	NextQuestion, MovedNewer string
	// MovedTo and ClosedSee replace a stale copy of a request, linking
	// to the current message (HTML; href escaped).
	MovedTo, ClosedSee func(href string) string
	// CollectAnswer and CollectReason ask who to reply with the answer,
	// or with a reject's reason (HTML).
	CollectAnswer, CollectReason func(who string) string
	// NoTyped answers a reply to a question that only takes votes.
	NoTyped string
	// Help answers !help (HTML).
	Help string
	// Paused says auto-approval stopped in project after an always answer
	// to a request of kind, and how to resume it (HTML).
	Paused func(project, kind string) string
	// ResumeHow ends !autoapprove's list (HTML); ResumeWhich answers a
	// resume without a number from 1 to n; ResumeFailed one that could
	// not be saved.
	ResumeHow    string
	ResumeWhich  func(n int) string
	ResumeFailed string
}

var matrixEnglish = Matrix{
	AllowWhat:      func(what string) string { return "Allow " + what + "?" },
	LinkDone:       "Done with the link?",
	YourAnswer:     "Your answer?",
	HowPermission:  "Vote in the poll: allow once, always, or reject. A reply to this message rejects, with your text as the reason.",
	HowLink:        "Open the link, then vote Done (or Cancel) in the poll.",
	HowMulti:       `Vote for every option you want, then react ✅ on the poll or reply "done" to it.`,
	OrReplyOwn:     " Or reply to this message with your own answer.",
	HowVoteOrReply: "Vote in the poll, or reply to this message with your own answer.",
	HowVote:        "Vote in the poll.",
	HowReply:       "Reply to this message with your answer.",
	Answers:        func(list string) string { return ": " + list },
	Closed:         "Closed",
	NextQuestion:   "Moved on to the next question.",
	MovedNewer:     "Moved to a newer message.",
	MovedTo: func(href string) string {
		return `↪️ This request is shown in <a href="` + href + `">a newer message</a>.`
	},
	ClosedSee: func(href string) string {
		return `↪️ This request closed: see <a href="` + href + `">its message</a>.`
	},
	CollectAnswer: func(who string) string {
		return who + ": reply to the request's message (or to this one) with your answer."
	},
	CollectReason: func(who string) string {
		return who + ": reply to the request's message (or to this one) with the reason of the reject."
	},
	NoTyped: "This question takes no typed answer: vote in its poll.",
	Help: "hermes-bot carries opencode's questions and permission requests here. Vote in a request's poll to answer; " +
		"for a multiple choice, vote, then react ✅ on the poll or reply \"done\". Reply to a request's message to type an answer " +
		"(to a permission: to reject with a reason), to a notice to continue its session. Commands: !pending, !status, " +
		"!autoapprove (and !autoapprove resume N), !help.",
	Paused: func(p, k string) string {
		return "⏸ Auto-approval paused in <b>" + p + "</b>: " + k +
			" was allowed always there. Restart opencode, then resume it with !autoapprove."
	},
	ResumeHow: "Restart opencode first (it forgets such answers), then send <code>!autoapprove resume N</code>.",
	ResumeWhich: func(n int) string {
		return "Say which to resume: a number from 1 to " + strconv.Itoa(n) + "."
	},
	ResumeFailed: "Auto-approval could not be resumed: the store could not be written.",
}

var matrixChinese = Matrix{
	AllowWhat:      func(what string) string { return "允许 " + what + "？" },
	LinkDone:       "链接中的操作完成了吗？",
	YourAnswer:     "你的答案？",
	HowPermission:  "请在投票中选择：允许一次、始终允许或拒绝。回复这条消息即为拒绝，回复内容会作为原因。",
	HowLink:        "请打开链接，然后在投票中选择“完成”（或“取消”）。",
	HowMulti:       "请投票选出所有需要的选项，然后对投票添加 ✅ 回应，或回复“done”。",
	OrReplyOwn:     "也可以回复这条消息，输入你自己的答案。",
	HowVoteOrReply: "请在投票中选择，或回复这条消息，输入你自己的答案。",
	HowVote:        "请在投票中选择。",
	HowReply:       "请回复这条消息，输入你的答案。",
	Answers:        func(list string) string { return "：" + list },
	Closed:         "已结束",
	NextQuestion:   "已转到下一个问题。",
	MovedNewer:     "已移到一条更新的消息。",
	MovedTo: func(href string) string {
		return `↪️ 该请求已移到<a href="` + href + `">一条更新的消息</a>。`
	},
	ClosedSee: func(href string) string {
		return `↪️ 该请求已结束：见<a href="` + href + `">它的消息</a>。`
	},
	CollectAnswer: func(who string) string {
		return who + "：请回复该请求的消息（或这条消息），输入你的答案。"
	},
	CollectReason: func(who string) string {
		return who + "：请回复该请求的消息（或这条消息），说明拒绝的原因。"
	},
	NoTyped: "这个问题不接受输入的答案：请在它的投票中选择。",
	Help: "hermes-bot 把 opencode 的问题和权限请求发到这里。在请求的投票中选择即可回答；" +
		"多选时先投票，再对投票添加 ✅ 回应或回复“done”。回复请求的消息可以输入答案" +
		"（对权限请求则是拒绝并说明原因），回复通知可以继续该会话。命令：!pending、!status、" +
		"!autoapprove（以及 !autoapprove resume N）、!help。",
	Paused: func(p, k string) string {
		return "⏸ <b>" + p + "</b> 中的自动批准已暂停：那里对 " + k +
			" 选择了“始终允许”。请先重启 opencode，再用 !autoapprove 恢复。"
	},
	ResumeHow: "请先重启 opencode（它会忘记这类回答），再发送 <code>!autoapprove resume N</code>。",
	ResumeWhich: func(n int) string {
		return "请说明要恢复哪一个：1 到 " + strconv.Itoa(n) + " 之间的数字。"
	},
	ResumeFailed: "无法恢复自动批准：无法写入存储。",
}
