package i18n

import "strconv"

// Steer is every text of steering from the chat: continuing, starting and
// stopping sessions. Texts that are HTML say so; arguments are escaped.
type Steer struct {
	// CmdNew, CmdSessions, CmdStop are setMyCommands descriptions.
	CmdNew, CmdSessions, CmdStop string
	// Off is the one line /new and /sessions answer when nobody may steer.
	Off string
	// NotAllowed is the toast of a steering button pressed by someone who
	// may not steer.
	NotAllowed string
	// SentTo confirms a prompt reached session title (HTML).
	SentTo func(title string) string
	// Started confirms a new session in project began with title (HTML).
	Started func(project, title string) string
	// Gone and Unreachable say why a prompt or a stop did not happen.
	Gone, Unreachable string
	// ChooseProject heads /new's project buttons; NoProjects when there are none.
	ChooseProject, NoProjects string
	// NewPrompt asks for the first prompt of a session in project (HTML);
	// NewPlaceholder is the reply box's placeholder.
	NewPrompt      func(project string) string
	NewPlaceholder string
	// ContinuePrompt asks what session title does next (HTML).
	ContinuePrompt      func(title string) string
	ContinuePlaceholder string
	// ReplyToContinue ends a notice (HTML).
	ReplyToContinue string
	// Buttons.
	BtnContinue, BtnStop, BtnStopConfirm, BtnCancel string
	// SessionsHead heads /sessions (HTML); NoSessions when there are none.
	SessionsHead, NoSessions string
	// The states /sessions shows.
	Working, Waiting, Idle, Failed string
	// Latest labels the link to a session's latest message.
	Latest string
	// StopConfirm asks before stopping session title (HTML).
	StopConfirm func(title string) string
	// StoppedBy says session title was stopped by who, closing n of its
	// requests (HTML).
	StoppedBy func(title, who string, n int) string
	// StopCancelled replaces the confirmation when not stopped.
	StopCancelled string
	// StopHow explains /stop typed without replying to a session's message.
	StopHow string
	// StoppedFooter ends a request's message closed by the stop (HTML).
	StoppedFooter func(who string) string
	// Working is the toast of a steering button while its work runs.
	OnIt string
}

var steerEnglish = Steer{
	CmdNew:        "Start a new agent session in a project",
	CmdSessions:   "Recent sessions, their state, and Stop buttons",
	CmdStop:       "Reply to a session's message to stop it",
	Off:           "Steering is off: set TELEGRAM_ALLOWED_USER_IDS to the people who may steer the agent from here.",
	NotAllowed:    "You are not allowed to steer sessions here",
	SentTo:        func(title string) string { return "→ sent to <b>" + title + "</b>" },
	Started:       func(project, title string) string { return "→ new session in <b>" + project + "</b>: " + title },
	Gone:          "⚠️ Not sent: opencode no longer knows that session.",
	Unreachable:   "⚠️ Not done: opencode cannot be reached right now; try again.",
	ChooseProject: "Start a session in which project?",
	NoProjects:    "opencode knows no project yet: open one in opencode first.",
	NewPrompt: func(p string) string {
		return "✏️ Reply to this message with the first prompt of a new session in <b>" + p + "</b>."
	},
	NewPlaceholder: "What should the agent do?",
	ContinuePrompt: func(t string) string {
		return "✏️ Reply to this message with what <b>" + t + "</b> should do next."
	},
	ContinuePlaceholder: "What next?",
	ReplyToContinue:     "<i>↩️ Reply to this message to continue the session.</i>",
	BtnContinue:         "▶️ Continue",
	BtnStop:             "⏹ Stop",
	BtnStopConfirm:      "⏹ Yes, stop it",
	BtnCancel:           "Cancel",
	SessionsHead:        "🗂 <b>Recent sessions</b>",
	NoSessions:          "No sessions yet.",
	Working:             "working",
	Waiting:             "waiting for you",
	Idle:                "idle",
	Failed:              "failed",
	Latest:              "latest message",
	StopConfirm: func(t string) string {
		return "⏹ Stop <b>" + t + "</b>? Its turn is aborted and the questions it waits on are rejected."
	},
	StoppedBy: func(t, who string, n int) string {
		s := "⏹ <b>" + t + "</b> stopped by " + who
		switch n {
		case 0:
			return s + "."
		case 1:
			return s + "; 1 request closed."
		}
		return s + "; " + strconv.Itoa(n) + " requests closed."
	},
	StopCancelled: "Not stopped.",
	StopHow:       "To stop a session, reply /stop to a message about it, or use /sessions.",
	StoppedFooter: func(who string) string { return "⏹ <i>Session stopped by " + who + "</i>" },
	OnIt:          "On it…",
}

var steerChinese = Steer{
	CmdNew:      "在某个项目中开始新的代理会话",
	CmdSessions: "最近的会话、状态和停止按钮",
	CmdStop:     "回复某个会话的消息以停止它",
	Off:         "远程操控已关闭：请在 TELEGRAM_ALLOWED_USER_IDS 中填写可以在这里操控代理的人。",
	NotAllowed:  "你无权在这里操控会话",
	SentTo:      func(title string) string { return "→ 已发送给 <b>" + title + "</b>" },
	Started: func(project, title string) string {
		return "→ 已在 <b>" + project + "</b> 中开始新会话：" + title
	},
	Gone:          "⚠️ 未发送：opencode 已不存在该会话。",
	Unreachable:   "⚠️ 未完成：暂时无法连接 opencode，请稍后重试。",
	ChooseProject: "在哪个项目中开始会话？",
	NoProjects:    "opencode 还不知道任何项目：请先在 opencode 中打开一个。",
	NewPrompt: func(p string) string {
		return "✏️ 回复本消息，写下在 <b>" + p + "</b> 中新会话的第一条指令。"
	},
	NewPlaceholder:      "代理要做什么？",
	ContinuePrompt:      func(t string) string { return "✏️ 回复本消息，告诉 <b>" + t + "</b> 接下来做什么。" },
	ContinuePlaceholder: "接下来做什么？",
	ReplyToContinue:     "<i>↩️ 回复本消息即可继续该会话。</i>",
	BtnContinue:         "▶️ 继续",
	BtnStop:             "⏹ 停止",
	BtnStopConfirm:      "⏹ 确定停止",
	BtnCancel:           "取消",
	SessionsHead:        "🗂 <b>最近的会话</b>",
	NoSessions:          "还没有会话。",
	Working:             "运行中",
	Waiting:             "等你回答",
	Idle:                "空闲",
	Failed:              "失败",
	Latest:              "最新消息",
	StopConfirm: func(t string) string {
		return "⏹ 停止 <b>" + t + "</b>？它当前的回合会被中止，等待中的问题会被拒绝。"
	},
	StoppedBy: func(t, who string, n int) string {
		s := "⏹ <b>" + t + "</b> 已被 " + who + " 停止"
		if n == 0 {
			return s + "。"
		}
		return s + "；关闭了 " + strconv.Itoa(n) + " 个请求。"
	},
	StopCancelled: "未停止。",
	StopHow:       "要停止会话，请用 /stop 回复关于它的消息，或使用 /sessions。",
	StoppedFooter: func(who string) string { return "⏹ <i>会话已被 " + who + " 停止</i>" },
	OnIt:          "处理中…",
}
