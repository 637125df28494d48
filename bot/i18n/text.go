package i18n

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hermes-bot/hermes-bot/bot/risk"
)

// Toast names a toast a press can be answered with. It is an identifier,
// not a text: a closed request is remembered by it (on disk, so the
// values never change), the metrics count outcomes by it, and Text.Toast
// says it in a person's language. Rewording a toast changes only the
// catalogs.
type Toast string

// The toasts.
const (
	ToastUnknown      Toast = "unknown"
	ToastNotAllowed   Toast = "not_allowed"
	ToastGone         Toast = "gone"
	ToastStale        Toast = "stale"
	ToastBusy         Toast = "busy"
	ToastSending      Toast = "sending"
	ToastFailed       Toast = "failed"
	ToastTypeAnswer   Toast = "type_answer"
	ToastSelectFirst  Toast = "select_first"
	ToastPromptFailed Toast = "prompt_failed"

	ToastAnswered          Toast = "answered"
	ToastAnsweredElsewhere Toast = "answered_elsewhere"
	ToastDismissed         Toast = "dismissed"
	ToastExpired           Toast = "expired"
)

// legacyToasts are the English texts that served as toast identifiers in
// closed records written before Toast existed; ParseToast reads them.
// Frozen: they are data on disk, not texts to improve.
var legacyToasts = map[string]Toast{
	"Unknown button":                                                 ToastUnknown,
	"You are not allowed to answer here":                             ToastNotAllowed,
	"This request is no longer pending":                              ToastGone,
	"This button is out of date: that question was already answered": ToastStale,
	"This request is already being answered":                         ToastBusy,
	"Sending…":                                                       ToastSending,
	"Something went wrong; try again":                                ToastFailed,
	"Reply to my message below with your answer":                     ToastTypeAnswer,
	"Select at least one option first":                               ToastSelectFirst,
	"Could not ask for a typed answer; try again":                    ToastPromptFailed,
	"This request was already answered":                              ToastAnswered,
	"This request was already answered in opencode":                  ToastAnsweredElsewhere,
	"This request was dismissed in opencode":                         ToastDismissed,
	"This request expired":                                           ToastExpired,
}

// ParseToast reads a toast as a closed record stores it: its identifier,
// or the English text older records hold. Anything else is kept as it is
// and shown as it is.
func ParseToast(s string) Toast {
	if t, ok := legacyToasts[s]; ok {
		return t
	}
	return Toast(s)
}

// The English buttons of a permission message. The end-to-end tests press
// them by these texts; keep them as they are.
const (
	btnAllowOnce    = "✅ Allow once"
	btnAllowAlways  = "♾️ Always allow"
	btnReject       = "❌ Reject"
	btnRejectReason = "💬 Reject with reason"
)

// Text is every text hermes-bot writes for people, in one language:
// toasts, message parts and buttons, command replies, notices. Texts that
// are HTML say so; a function's arguments are already escaped where the
// result is HTML. English and Chinese are the languages; TextFor picks
// one.
type Text struct {
	// Toasts; see Toast.
	ToastUnknown, ToastNotAllowed, ToastGone, ToastStale, ToastBusy,
	ToastSending, ToastFailed, ToastTypeAnswer, ToastSelectFirst,
	ToastPromptFailed, ToastAnswered, ToastAnsweredElsewhere,
	ToastDismissed, ToastExpired string
	// SavedNext is the toast after one question of several is answered.
	SavedNext func(title string) string

	// The head of a request message.
	UnknownProject string
	Session        string // before a session ID
	SubagentOf     string // before the parent session

	// Questions.
	QuestionN        func(i int) string // a question without header
	QuestionOf       func(i, n int) string
	MoreAnswered     func(k int) string
	OnlyFirstOptions func(shown, total int) string
	TypeToChoose     string
	ChooseThenSubmit string
	NoQuestionText   string
	MoreOptions      func(k int) string
	MoreQuestions    func(k int) string
	OptionN          func(i int) string
	BtnSubmit        string
	BtnTypeAnswer    string
	// PromptAnswer is the force_reply prompt for a typed answer (HTML).
	PromptAnswer      func(mention, title string) string
	AnswerPlaceholder func(title string) string
	AnsweredBy        func(who string) string

	// Permission requests.
	Permission  string
	UnknownKind string
	Identical   func(n int) string
	MoreReasons func(n int) string
	// RiskReason says one reason of a risk assessment, its detail (a
	// command, a path) quoted as it is.
	RiskReason        func(r risk.Reason) string
	Risk              func(l risk.Level) string
	File, URL         string
	Patterns          string
	MoreLines         func(n int) string
	MoreItems         func(n int) string
	AlwaysNone        string // HTML
	AlwaysAlso        string // HTML, followed by the patterns
	AlwaysEvery       func(kind string) string
	BtnAllowOnce      string
	BtnAllowAlways    string
	BtnReject         string
	BtnRejectReason   string
	ThisRequest       string
	PromptReason      func(mention, what string) string // HTML
	ReasonPlaceholder string
	By                func(who string) string
	AllowedOnce       string
	AlwaysAllowed     string
	AlsoAllowed       string // followed by the patterns
	Rejected          string
	Reason            string
	ApprovedOnceOC    string
	ApprovedAlwaysOC  string
	RejectedOC        string
	AnsweredOCAs      func(reply string) string
	AutoApproved      string
	StillOpen         func(kept, total int) string

	// Text cut to fit a message: the note the message then carries
	// (HTML), and the captions (plain) of the files holding it whole.
	CutNote      string
	FullCommand  string
	FullDiff     string
	FullQuestion string

	// Closing.
	AnsweredOC          string
	DismissedOC         string
	NoLongerPending     string // after an answer found the request gone
	GoneFooter          string // after a sync found it gone
	TellAnswerRefused   string
	TellAnswerLost      string
	TellDecisionRefused string
	TellDecisionLost    string
	Expired             func(ttl string) string // HTML
	ExpiredNotTold      string
	ExpiredRejected     string
	ExpiredDismissed    string
	MovedBelow          string
	MovedAbove          string
	ClosedBelow         string
	ClosedAbove         string
	GoToIt              string

	// Commands.
	CmdPending, CmdStatus, CmdHelp string // setMyCommands descriptions
	Help                           string // HTML
	NothingPending                 string
	StoreUnreadable                string
	WaitingN                       func(n int) string // HTML
	MoreN                          func(n int) string
	KindQuestion, KindPermission   string
	MessageN                       func(id int) string
	NotPostedYet                   string
	Asked                          func(ago string) string
	ExpiresIn                      func(span string) string
	ExpiringNow                    string
	Up                             func(span string) string
	StateUnknown                   string
	Connected                      string
	ConnectedFor                   func(span string) string
	NotConnectedYet                string
	NotConnectedFor                func(span string) string
	Version                        func(v string) string
	LastError                      func(words, ago string) string
	WaitingUnknown                 string
	WaitingCount                   func(n int) string
	PendingLists                   string
	ErrUnauthorized, ErrTransient, ErrSilent, ErrNotFound,
	ErrNotAccepted, ErrUnexpected, ErrUnsupported string
	JustNow     string
	Ago         func(span string) string
	UnderMinute string
	Minutes     func(m int) string
	Hours       func(h, m int) string // m may be 0
	Days        func(d, h int) string // h may be 0

	// Toasts in opencode's terminal after an answer from the chat (plain
	// text): who answered, and for a permission what was decided ("once",
	// "always" or "reject").
	TerminalAnswered func(who string) string
	TerminalDecided  func(reply, who string) string

	// Session notices.
	Finished, Failed string
	Skipped          func(n int) string
	OutputLimit      string
	Aborted          string
	UnknownError     string

	// Steer is steering from the chat.
	Steer Steer
}

// Languages are the languages with a catalog, by their HERMES_LANG code,
// the default first.
func Languages() []string { return []string{"en", "zh"} }

// For is the catalog of language lang (one of Languages); English for ""
// and anything else.
func For(lang string) *Text {
	if lang == "zh" {
		return &Chinese
	}
	return &English
}

// Title names question i (from 0) of a request: its header on one line,
// or "Question i+1" when it has none.
func (t *Text) Title(header string, i int) string {
	if h := strings.Join(strings.Fields(header), " "); h != "" {
		return h
	}
	return t.QuestionN(i + 1)
}

// Toast is the text of toast id in t's language; a toast no catalog
// knows (a record written by a newer release) is shown as it is.
func (t *Text) Toast(id Toast) string {
	switch id {
	case ToastUnknown:
		return t.ToastUnknown
	case ToastNotAllowed:
		return t.ToastNotAllowed
	case ToastGone:
		return t.ToastGone
	case ToastStale:
		return t.ToastStale
	case ToastBusy:
		return t.ToastBusy
	case ToastSending:
		return t.ToastSending
	case ToastFailed:
		return t.ToastFailed
	case ToastTypeAnswer:
		return t.ToastTypeAnswer
	case ToastSelectFirst:
		return t.ToastSelectFirst
	case ToastPromptFailed:
		return t.ToastPromptFailed
	case ToastAnswered:
		return t.ToastAnswered
	case ToastAnsweredElsewhere:
		return t.ToastAnsweredElsewhere
	case ToastDismissed:
		return t.ToastDismissed
	case ToastExpired:
		return t.ToastExpired
	}
	return string(id)
}

// English is the default catalog. Never modified.
var English = Text{
	ToastUnknown:           "Unknown button",
	ToastNotAllowed:        "You are not allowed to answer here",
	ToastGone:              "This request is no longer pending",
	ToastStale:             "This button is out of date: that question was already answered",
	ToastBusy:              "This request is already being answered",
	ToastSending:           "Sending…",
	ToastFailed:            "Something went wrong; try again",
	ToastTypeAnswer:        "Reply to my message below with your answer",
	ToastSelectFirst:       "Select at least one option first",
	ToastPromptFailed:      "Could not ask for a typed answer; try again",
	ToastAnswered:          "This request was already answered",
	ToastAnsweredElsewhere: "This request was already answered in opencode",
	ToastDismissed:         "This request was dismissed in opencode",
	ToastExpired:           "This request expired",
	SavedNext:              func(title string) string { return "Saved. Next: " + title },

	UnknownProject: "unknown project",
	Session:        "session ",
	SubagentOf:     "🤖 subagent of ",

	QuestionN:    func(i int) string { return "Question " + strconv.Itoa(i) },
	QuestionOf:   func(i, n int) string { return fmt.Sprintf("Question %d/%d", i, n) },
	MoreAnswered: func(k int) string { return fmt.Sprintf("✅ … and %d more answered", k) },
	OnlyFirstOptions: func(shown, total int) string {
		return fmt.Sprintf("Only the first %d of %d options have buttons.", shown, total)
	},
	TypeToChoose:     " Type an answer to choose another.",
	ChooseThenSubmit: "Choose one or more, then press Submit.",
	NoQuestionText:   "(no question text)",
	MoreOptions:      func(k int) string { return fmt.Sprintf("• … and %d more options", k) },
	MoreQuestions:    func(k int) string { return fmt.Sprintf("… and %d more questions", k) },
	OptionN:          func(i int) string { return "Option " + strconv.Itoa(i) },
	BtnSubmit:        "✅ Submit",
	BtnTypeAnswer:    "✏️ Type an answer",
	PromptAnswer: func(mention, title string) string {
		return mention + ", reply to this message with your answer to <b>" + title + "</b>:"
	},
	AnswerPlaceholder: func(title string) string { return "Answer: " + title },
	AnsweredBy:        func(who string) string { return "Answered by " + who },

	Permission:  "Permission: ",
	UnknownKind: "unknown",
	Identical: func(n int) string {
		return fmt.Sprintf("(%d identical requests; one decision answers all)", n)
	},
	MoreReasons:  func(n int) string { return fmt.Sprintf("%d more", n) },
	RiskReason:   reasonSayer(reasonEnglish, "unknown reason"),
	Risk:         func(l risk.Level) string { return l.String() + " risk" },
	File:         "File: ",
	URL:          "URL: ",
	Patterns:     "Patterns: ",
	MoreLines:    func(n int) string { return fmt.Sprintf("… %d more lines", n) },
	MoreItems:    func(n int) string { return fmt.Sprintf(" … and %d more", n) },
	AlwaysNone:   "♾️ <i>Always allow</i>: opencode named no patterns for it.",
	AlwaysAlso:   "♾️ <i>Always allow</i> would also allow from now on: ",
	AlwaysEvery:  func(kind string) string { return " — that is, every " + kind + " request" },
	BtnAllowOnce: btnAllowOnce, BtnAllowAlways: btnAllowAlways,
	BtnReject: btnReject, BtnRejectReason: btnRejectReason,
	ThisRequest: "this request",
	PromptReason: func(mention, what string) string {
		return mention + ", reply to this message with why you reject " + what +
			". The agent reads your reason and goes on without it."
	},
	ReasonPlaceholder: "Reason for rejecting",
	By:                func(who string) string { return " by " + who },
	AllowedOnce:       "Allowed once",
	AlwaysAllowed:     "Always allowed",
	AlsoAllowed:       "; from now on also allowed: ",
	Rejected:          "Rejected",
	Reason:            "Reason: ",
	ApprovedOnceOC:    "✅ Approved in opencode (once)",
	ApprovedAlwaysOC:  "♾️ Approved in opencode (always)",
	RejectedOC:        "❌ Rejected in opencode",
	AnsweredOCAs:      func(reply string) string { return "Answered in opencode (" + reply + ")" },
	AutoApproved:      "🤖 Auto-approved (low risk)",
	StillOpen: func(kept, total int) string {
		return fmt.Sprintf("%d of %d identical requests are still open. ", kept, total)
	},

	CutNote:      "✂️ <i>Cut to fit a message: the whole text follows as a file.</i>",
	FullCommand:  "The whole command",
	FullDiff:     "The whole diff",
	FullQuestion: "The whole question",

	AnsweredOC:          "Answered in opencode",
	DismissedOC:         "Dismissed in opencode",
	NoLongerPending:     "No longer pending in opencode: it was answered elsewhere or has gone.",
	GoneFooter:          "No longer pending in opencode: answered or dismissed elsewhere.",
	TellAnswerRefused:   "opencode did not accept that answer. Please answer again.",
	TellAnswerLost:      "Could not reach opencode, so the answer was not delivered. Try again.",
	TellDecisionRefused: "opencode did not accept that decision. Please decide again.",
	TellDecisionLost:    "Could not reach opencode, so the decision was not delivered. Try again.",
	Expired:             func(ttl string) string { return "⌛ <b>Expired</b>: nobody answered within " + ttl + "." },
	ExpiredNotTold:      " opencode could not be told yet; hermes-bot keeps trying.",
	ExpiredRejected:     " Rejected; the agent was told nobody answered in time.",
	ExpiredDismissed:    " Dismissed in opencode.",
	MovedBelow:          "↪️ This request moved to the message below.",
	MovedAbove:          "↪️ This request moved to the message above.",
	ClosedBelow:         "↪️ This request was closed: see the message below.",
	ClosedAbove:         "↪️ This request was closed: see the message above.",
	GoToIt:              "Go to it",

	CmdPending: "List the requests waiting for an answer",
	CmdStatus:  "Show the connection to opencode and what is waiting",
	CmdHelp:    "What this bot does and how to answer it",
	Help: "🤖 <b>hermes-bot</b> brings opencode's questions and permission requests to this chat, " +
		"and carries your answers back to the agent.\n\n" +
		"<b>Questions</b> ❓: press an option. With several choices allowed, tick them and press " +
		"<b>✅ Submit</b>. <b>✏️ Type an answer</b> asks you to reply with text.\n" +
		"<b>Permission requests</b> 🔐: <b>" + btnAllowOnce + "</b> allows this call, <b>" + btnAllowAlways +
		"</b> allows calls like it for the rest of the session, <b>" + btnReject + "</b> refuses, and <b>" +
		btnRejectReason + "</b> refuses and tells the agent why.\n" +
		"A request nobody answers is dismissed when it expires.\n\n" +
		"<b>Commands</b>\n" +
		"/pending: the requests waiting for an answer, with links to their messages\n" +
		"/status: the connection to opencode, its version, what is waiting, uptime\n" +
		"/help: this message\n\n" +
		"<b>Steering</b> (people on the allow-list only)\n" +
		"Reply to a message about a session (a finished notice, an answered request) to send it your next prompt.\n" +
		"/new: start a session in a project\n" +
		"/sessions: recent sessions, their state, and ⏹ Stop\n" +
		"/stop: reply it to a session's message to stop that session",
	NothingPending:  "✨ Nothing is waiting for you.",
	StoreUnreadable: "⚠️ Could not read the stored requests; see the log.",
	WaitingN:        func(n int) string { return fmt.Sprintf("📋 <b>Waiting for you: %d</b>", n) },
	MoreN:           func(n int) string { return fmt.Sprintf("… and %d more", n) },
	KindQuestion:    "Question",
	KindPermission:  "Permission",
	MessageN:        func(id int) string { return " (message #" + strconv.Itoa(id) + ")" },
	NotPostedYet:    " (not posted yet)",
	Asked:           func(ago string) string { return "asked " + ago },
	ExpiresIn:       func(span string) string { return ", expires in " + span },
	ExpiringNow:     ", expiring now",
	Up:              func(span string) string { return " · up " + span },
	StateUnknown:    "state unknown",
	Connected:       "✅ connected",
	ConnectedFor:    func(span string) string { return " for " + span },
	NotConnectedYet: "⏳ not connected yet",
	NotConnectedFor: func(span string) string { return "❌ not connected for " + span },
	Version:         func(v string) string { return " · version " + v },
	LastError:       func(words, ago string) string { return "Last error: " + words + ", " + ago },
	WaitingUnknown:  "Waiting for you: unknown (could not read the store)",
	WaitingCount:    func(n int) string { return fmt.Sprintf("Waiting for you: %d", n) },
	PendingLists:    " (/pending lists them)",
	ErrUnauthorized: "opencode refused the username or password",
	ErrTransient:    "opencode could not be reached, or the connection dropped",
	ErrSilent:       "the event stream went silent",
	ErrNotFound:     "opencode does not know the event stream (wrong URL?)",
	ErrNotAccepted:  "opencode refused the request",
	ErrUnexpected:   "an unexpected error (see the log)",
	ErrUnsupported:  "a server hermes-bot does not support (OpenCode 2; see the log)",
	JustNow:         "just now",
	Ago:             func(span string) string { return span + " ago" },
	UnderMinute:     "under a minute",
	Minutes:         func(m int) string { return fmt.Sprintf("%d min", m) },
	Hours: func(h, m int) string {
		if m == 0 {
			return fmt.Sprintf("%d h", h)
		}
		return fmt.Sprintf("%d h %d min", h, m)
	},
	Days: func(d, h int) string {
		if h == 0 {
			return fmt.Sprintf("%d d", d)
		}
		return fmt.Sprintf("%d d %d h", d, h)
	},

	TerminalAnswered: func(who string) string { return "Answered from Telegram by " + who },
	TerminalDecided: func(reply, who string) string {
		switch reply {
		case "once":
			return "Allowed once from Telegram by " + who
		case "always":
			return "Always allowed from Telegram by " + who
		}
		return "Rejected from Telegram by " + who
	},

	Steer:    steerEnglish,
	Finished: "finished",
	Failed:   "failed",
	Skipped: func(n int) string {
		if n == 1 {
			return "1 other notice was skipped so as not to flood the group."
		}
		return strconv.Itoa(n) + " other notices were skipped so as not to flood the group."
	},
	OutputLimit:  "the reply hit the model's output limit",
	Aborted:      "aborted",
	UnknownError: "unknown error",
}

// Chinese is the catalog in simplified Chinese. Never modified.
var Chinese = Text{
	ToastUnknown:           "未知按钮",
	ToastNotAllowed:        "你没有权限在这里回答",
	ToastGone:              "该请求已不再等待回答",
	ToastStale:             "按钮已过期：这个问题已经回答过了",
	ToastBusy:              "该请求正在被回答",
	ToastSending:           "发送中…",
	ToastFailed:            "出错了，请重试",
	ToastTypeAnswer:        "请回复下方我的消息，输入你的答案",
	ToastSelectFirst:       "请先至少选择一项",
	ToastPromptFailed:      "无法请求输入答案，请重试",
	ToastAnswered:          "该请求已经回答过了",
	ToastAnsweredElsewhere: "该请求已在 opencode 中回答",
	ToastDismissed:         "该请求已在 opencode 中取消",
	ToastExpired:           "该请求已过期",
	SavedNext:              func(title string) string { return "已保存。下一个：" + title },

	UnknownProject: "未知项目",
	Session:        "会话 ",
	SubagentOf:     "🤖 子代理，所属会话 ",

	QuestionN:    func(i int) string { return "问题 " + strconv.Itoa(i) },
	QuestionOf:   func(i, n int) string { return fmt.Sprintf("问题 %d/%d", i, n) },
	MoreAnswered: func(k int) string { return fmt.Sprintf("✅ … 另有 %d 个已回答", k) },
	OnlyFirstOptions: func(shown, total int) string {
		return fmt.Sprintf("共 %d 个选项，只有前 %d 个有按钮。", total, shown)
	},
	TypeToChoose:     "如需选择其他选项，请输入答案。",
	ChooseThenSubmit: "可选择一项或多项，然后点击“提交”。",
	NoQuestionText:   "（无问题内容）",
	MoreOptions:      func(k int) string { return fmt.Sprintf("• … 另有 %d 个选项", k) },
	MoreQuestions:    func(k int) string { return fmt.Sprintf("… 另有 %d 个问题", k) },
	OptionN:          func(i int) string { return "选项 " + strconv.Itoa(i) },
	BtnSubmit:        "✅ 提交",
	BtnTypeAnswer:    "✏️ 输入答案",
	PromptAnswer: func(mention, title string) string {
		return mention + "，请回复这条消息，回答 <b>" + title + "</b>："
	},
	AnswerPlaceholder: func(title string) string { return "答案：" + title },
	AnsweredBy:        func(who string) string { return "回答者：" + who },

	Permission:  "权限：",
	UnknownKind: "未知",
	Identical: func(n int) string {
		return fmt.Sprintf("（%d 个相同的请求，一次决定全部生效）", n)
	},
	MoreReasons: func(n int) string { return fmt.Sprintf("另有 %d 条", n) },
	RiskReason:  reasonSayer(reasonChinese, "未知原因"),
	Risk: func(l risk.Level) string {
		switch l {
		case risk.Low:
			return "低风险"
		case risk.Medium:
			return "中风险"
		case risk.High:
			return "高风险"
		}
		return "风险未知"
	},
	File:         "文件：",
	URL:          "网址：",
	Patterns:     "匹配规则：",
	MoreLines:    func(n int) string { return fmt.Sprintf("… 另有 %d 行", n) },
	MoreItems:    func(n int) string { return fmt.Sprintf(" … 另有 %d 项", n) },
	AlwaysNone:   "♾️ <i>始终允许</i>：opencode 没有给出匹配规则。",
	AlwaysAlso:   "♾️ <i>始终允许</i>将从现在起同时允许：",
	AlwaysEvery:  func(kind string) string { return " —— 即所有 " + kind + " 请求" },
	BtnAllowOnce: "✅ 允许一次", BtnAllowAlways: "♾️ 始终允许",
	BtnReject: "❌ 拒绝", BtnRejectReason: "💬 拒绝并说明原因",
	ThisRequest: "这个请求",
	PromptReason: func(mention, what string) string {
		return mention + "，请回复这条消息，说明拒绝 " + what +
			" 的原因。代理会看到你的理由，并在没有该权限的情况下继续。"
	},
	ReasonPlaceholder: "拒绝原因",
	By:                func(who string) string { return "，操作人：" + who },
	AllowedOnce:       "已允许一次",
	AlwaysAllowed:     "已始终允许",
	AlsoAllowed:       "；从现在起同时允许：",
	Rejected:          "已拒绝",
	Reason:            "原因：",
	ApprovedOnceOC:    "✅ 已在 opencode 中批准（一次）",
	ApprovedAlwaysOC:  "♾️ 已在 opencode 中批准（始终）",
	RejectedOC:        "❌ 已在 opencode 中拒绝",
	AnsweredOCAs:      func(reply string) string { return "已在 opencode 中回答（" + reply + "）" },
	AutoApproved:      "🤖 已自动批准（低风险）",
	StillOpen: func(kept, total int) string {
		return fmt.Sprintf("%d 个相同请求中仍有 %d 个未处理。", total, kept)
	},

	CutNote:      "✂️ <i>内容过长，消息中已截断：完整内容见随后的文件。</i>",
	FullCommand:  "完整命令",
	FullDiff:     "完整差异（diff）",
	FullQuestion: "完整问题",

	AnsweredOC:          "已在 opencode 中回答",
	DismissedOC:         "已在 opencode 中取消",
	NoLongerPending:     "opencode 中已不再等待：可能已在别处回答，或已不存在。",
	GoneFooter:          "opencode 中已不再等待：已在别处回答或取消。",
	TellAnswerRefused:   "opencode 没有接受这个答案，请重新回答。",
	TellAnswerLost:      "无法连接 opencode，答案未送达，请重试。",
	TellDecisionRefused: "opencode 没有接受这个决定，请重新选择。",
	TellDecisionLost:    "无法连接 opencode，决定未送达，请重试。",
	Expired:             func(ttl string) string { return "⌛ <b>已过期</b>：" + ttl + " 内无人回答。" },
	ExpiredNotTold:      "暂时无法通知 opencode，hermes-bot 会继续重试。",
	ExpiredRejected:     "已拒绝，并已告知代理无人及时回答。",
	ExpiredDismissed:    "已在 opencode 中取消。",
	MovedBelow:          "↪️ 该请求已移到下方的消息。",
	MovedAbove:          "↪️ 该请求已移到上方的消息。",
	ClosedBelow:         "↪️ 该请求已结束：见下方的消息。",
	ClosedAbove:         "↪️ 该请求已结束：见上方的消息。",
	GoToIt:              "跳转",

	CmdPending: "列出等待回答的请求",
	CmdStatus:  "查看与 opencode 的连接及等待中的请求",
	CmdHelp:    "机器人的用途和回答方式",
	Help: "🤖 <b>hermes-bot</b> 把 opencode 的问题和权限请求发到这个群，并把你的回答带回给代理。\n\n" +
		"<b>问题</b> ❓：点击一个选项。允许多选时，勾选后点击 <b>✅ 提交</b>。" +
		"<b>✏️ 输入答案</b> 会请你用文字回复。\n" +
		"<b>权限请求</b> 🔐：<b>✅ 允许一次</b> 只允许这一次调用，<b>♾️ 始终允许</b> 在本会话剩余时间内允许同类调用，" +
		"<b>❌ 拒绝</b> 拒绝，<b>💬 拒绝并说明原因</b> 拒绝并告诉代理原因。\n" +
		"无人回答的请求过期后会被取消。\n\n" +
		"<b>命令</b>\n" +
		"/pending：等待回答的请求，附消息链接\n" +
		"/status：与 opencode 的连接、版本、等待中的请求、运行时长\n" +
		"/help：本帮助\n\n" +
		"<b>远程操控</b>（仅限允许名单中的人）\n" +
		"回复关于某个会话的消息（完成通知、已回答的请求）即可把下一条指令发给它。\n" +
		"/new：在某个项目中开始会话\n" +
		"/sessions：最近的会话、状态和 ⏹ 停止\n" +
		"/stop：用它回复某个会话的消息以停止该会话",
	NothingPending:  "✨ 没有等待你回答的请求。",
	StoreUnreadable: "⚠️ 无法读取已保存的请求，请查看日志。",
	WaitingN:        func(n int) string { return fmt.Sprintf("📋 <b>等待你回答：%d</b>", n) },
	MoreN:           func(n int) string { return fmt.Sprintf("… 另有 %d 个", n) },
	KindQuestion:    "问题",
	KindPermission:  "权限",
	MessageN:        func(id int) string { return "（消息 #" + strconv.Itoa(id) + "）" },
	NotPostedYet:    "（尚未发出）",
	Asked:           func(ago string) string { return "提问于" + ago },
	ExpiresIn:       func(span string) string { return "，" + span + "后过期" },
	ExpiringNow:     "，即将过期",
	Up:              func(span string) string { return " · 已运行 " + span },
	StateUnknown:    "状态未知",
	Connected:       "✅ 已连接",
	ConnectedFor:    func(span string) string { return " " + span },
	NotConnectedYet: "⏳ 尚未连接",
	NotConnectedFor: func(span string) string { return "❌ 已断开 " + span },
	Version:         func(v string) string { return " · 版本 " + v },
	LastError:       func(words, ago string) string { return "最近错误：" + words + "，" + ago },
	WaitingUnknown:  "等待你回答：未知（无法读取存储）",
	WaitingCount:    func(n int) string { return fmt.Sprintf("等待你回答：%d", n) },
	PendingLists:    "（用 /pending 查看）",
	ErrUnauthorized: "opencode 拒绝了用户名或密码",
	ErrTransient:    "无法连接 opencode，或连接已断开",
	ErrSilent:       "事件流没有响应",
	ErrNotFound:     "opencode 不认识这个事件流（URL 错了？）",
	ErrNotAccepted:  "opencode 拒绝了请求",
	ErrUnexpected:   "意外错误（见日志）",
	ErrUnsupported:  "hermes-bot 不支持的服务器（OpenCode 2；见日志）",
	JustNow:         "刚刚",
	Ago:             func(span string) string { return span + "前" },
	UnderMinute:     "不到 1 分钟",
	Minutes:         func(m int) string { return fmt.Sprintf("%d 分钟", m) },
	Hours: func(h, m int) string {
		if m == 0 {
			return fmt.Sprintf("%d 小时", h)
		}
		return fmt.Sprintf("%d 小时 %d 分钟", h, m)
	},
	Days: func(d, h int) string {
		if h == 0 {
			return fmt.Sprintf("%d 天", d)
		}
		return fmt.Sprintf("%d 天 %d 小时", d, h)
	},

	TerminalAnswered: func(who string) string { return who + " 已在 Telegram 中回答" },
	TerminalDecided: func(reply, who string) string {
		switch reply {
		case "once":
			return who + " 已在 Telegram 中允许一次"
		case "always":
			return who + " 已在 Telegram 中始终允许"
		}
		return who + " 已在 Telegram 中拒绝"
	},

	Steer:    steerChinese,
	Finished: "已完成",
	Failed:   "失败",
	Skipped: func(n int) string {
		return fmt.Sprintf("为避免刷屏，另有 %d 条通知未发送。", n)
	},
	OutputLimit:  "回复达到了模型的输出上限",
	Aborted:      "已中止",
	UnknownError: "未知错误",
}
