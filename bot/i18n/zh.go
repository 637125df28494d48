package i18n

import (
	"fmt"
	"strconv"

	"github.com/hermes-bot/hermes-bot/bot/risk"
)

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
	ToastCancelled:         "该请求已被取消",
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
	File:       "文件：",
	URL:        "网址：",
	Folder:     "在另一个文件夹中运行：",
	RunUnread:  "⚠️ 无法从 opencode 读取此命令的运行位置：允许之前请先核实。",
	RunsFor:    func(d string) string { return "⏱ 最长可运行 " + d },
	Patterns:   "匹配规则：",
	MoreLines:  func(n int) string { return fmt.Sprintf("… 另有 %d 行", n) },
	MoreItems:  func(n int) string { return fmt.Sprintf(" … 另有 %d 项", n) },
	AlwaysNone: "♾️ <i>始终允许</i>：opencode 没有给出匹配规则。",
	AlwaysMemory: func(p string) string {
		return "♾️ <i>始终允许</i>将在本项目的所有会话中允许以下内容，直到 opencode 重启：" + p
	},
	AlwaysRule:   func(p string) string { return "♾️ <i>始终允许</i>将从现在起在本项目中允许：" + p },
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
		"<b>表单</b>（OpenCode 2）逐项提问：可选项有 <b>⏭ 跳过</b>，" +
		"链接表单有打开链接的按钮，然后点 <b>✅ 完成</b> 或 <b>✖️ 取消</b>。\n" +
		"<b>权限请求</b> 🔐：<b>✅ 允许一次</b> 只允许这一次调用，<b>♾️ 始终允许</b> 在本项目中允许同类调用，直到 opencode 重启（OpenCode 2 上则保存为规则），" +
		"<b>❌ 拒绝</b> 拒绝，<b>💬 拒绝并说明原因</b> 拒绝并告诉代理原因。\n" +
		"无人回答的请求过期后会被取消。\n\n" +
		"<b>命令</b>\n" +
		"/pending：等待回答的请求，附消息链接\n" +
		"/status：与 opencode 的连接、版本、等待中的请求、运行时长\n" +
		"/autoapprove：自动批准在哪里暂停，以及 ▶️ 恢复\n" +
		"/rules：在 OpenCode 2 上“始终允许”为项目保存的规则，以及 🗑 撤销\n" +
		"/help：本帮助\n\n" +
		"<b>远程操控</b>（仅限允许名单中的人）\n" +
		"回复关于某个会话的消息（完成通知、已回答的请求）即可把下一条指令发给它，也可以附上图片或文本文件；" +
		"👀 表示已收到，👍 表示 opencode 已接受。" +
		"在 OpenCode 2 上，会话正在工作时可以选择：等本轮结束后发送，或 ⚡ 立即插入本轮。\n" +
		"/new：在某个项目中开始会话（/new 指令 直接以该指令开始）\n" +
		"/sessions：最近的会话、状态和 ⏹ 停止\n" +
		"/stop：用它回复某个会话的消息以停止该会话\n" +
		"/file 路径：用它回复某个会话的消息，获取其项目中的该文件",
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
	Version: func(v string, generation int) string {
		if generation == 2 {
			return " · OpenCode 2，版本 " + v
		}
		return " · opencode 1.x，版本 " + v
	},
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
	ErrUnsupported:  "hermes-bot 不支持的服务器（比 OpenCode 2 更新的版本；见日志）",
	JustNow:         "刚刚",
	Ago:             func(span string) string { return span + "前" },
	UnderMinute:     "不到 1 分钟",
	Minutes:         func(m int) string { return fmt.Sprintf("%d 分钟", m) },
	Hours:           func(h, m int) string { return units(h, "小时", m, "分钟") },
	Days:            func(d, h int) string { return units(d, "天", h, "小时") },

	TerminalAnswered: func(chat, who string) string { return who + " 已在 " + chat + " 中回答" },
	TerminalDecided: func(chat, reply, who string) string {
		switch reply {
		case "once":
			return who + " 已在 " + chat + " 中允许一次"
		case "always":
			return who + " 已在 " + chat + " 中始终允许"
		}
		return who + " 已在 " + chat + " 中拒绝"
	},

	Steer:    steerChinese,
	Form:     formChinese,
	Rules:    rulesChinese,
	Pause:    pauseChinese,
	Live:     liveChinese,
	Matrix:   matrixChinese,
	Finished: "已完成",
	Failed:   "失败",
	Skipped: func(n int) string {
		return fmt.Sprintf("为避免刷屏，另有 %d 条通知未发送。", n)
	},
	OutputLimit:  "回复达到了模型的输出上限",
	Aborted:      "已中止",
	UnknownError: "未知错误",
}

// pauseChinese is the texts of paused auto-approval in Chinese.
var pauseChinese = Pause{
	CmdAutoApprove: "查看自动批准在哪里暂停，并恢复",
	Notice: func(p, k string) string {
		return "⏸ <b>自动批准已暂停</b>：<b>" + p + "</b> 中的一次“始终允许”（<code>" + k +
			"</code>）让代理无需询问即可修改那里的文件。请先重启 opencode（重启后它会忘记这类回答），再用 /autoapprove 恢复。"
	},
	PolicyOff:     "🤖 自动批准已<b>关闭</b>：每个请求都会询问。",
	PolicyLow:     "🤖 自动批准为<b>低风险</b>：低风险的 shell 命令无需询问即被允许。",
	NothingPaused: "▶️ 没有暂停的项目。",
	Head:          "⏸ <b>已暂停</b>（一次“始终允许”让代理无需询问即可修改文件）：",
	Line:          func(p, k string) string { return "<b>" + p + "</b>：对 <code>" + k + "</code> 的“始终允许”" },
	HowToResume:   "<i>请先重启 opencode（它会忘记这类回答），再点击“恢复”。</i>",
	BtnResume:     "▶️ 恢复",
	ResumedBy: func(p, who string) string {
		return "▶️ <b>" + p + "</b> 的自动批准已由 " + who + " 恢复。"
	},
	NotPaused:  "那里的自动批准已不再暂停",
	Unreadable: "⚠️ 无法读取自动批准暂停的位置，请查看日志。",
}

// steerChinese is the steering texts of Chinese.
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
	BusyAsk: func(t string) string {
		return "⏳ <b>" + t + "</b> 正在工作。等本轮结束后再发送你的消息，还是现在就插入本轮？"
	},
	BtnQueue:    "📥 本轮结束后",
	BtnSteerNow: "⚡ 立即插入",
	Queued:      func(t string) string { return "→ 已排队，<b>" + t + "</b> 本轮结束后处理" },
	SteeredInto: func(t string) string { return "⚡ 已插入 <b>" + t + "</b> 的本轮" },
	ChoiceGone:  "这条消息已发送或已被遗忘：请重新回复",
	StaleAsk: func(age string) string {
		return "⏰ 这条消息在 hermes-bot 离线时等待了 " + age + "。现在把它发送给代理吗？"
	},
	BtnSend:           "📤 发送",
	FilesOff:          "⚠️ 未发送：这里已关闭文件（HERMES_MAX_UPLOAD=0）。",
	FileKind:          "⚠️ 未发送：只有图片（PNG、JPEG、GIF、WebP）和 UTF-8 文本文件可以发给代理。",
	NoImages:          "⚠️ 未发送：该模型不接受图片。请只发送文字，或在 opencode 中选择能读图片的模型。",
	FileFetch:         "⚠️ 未发送：无法从 Telegram 取得该文件，请重新发送。",
	FileTooBig:        func(limit string) string { return "⚠️ 未发送：文件超过允许的 " + limit + "。" },
	CmdFile:           "用 /file 路径 回复会话的消息，获取其项目中的该文件",
	FileHow:           "要获取会话项目中的文件，请用 /file 路径 回复关于该会话的消息。",
	FileRefused:       func(reason string) string { return "⚠️ /file 未发送：" + reason },
	FileOutsideReason: "该路径指向会话项目之外。",
	FileMissingReason: "会话项目中没有这个文件。",
	FileKindReason:    "这不是普通文件（文件夹、设备或管道）。",
	FileNoPath:        "请写明文件，如 /file 路径（相对于项目文件夹）。",
	FileEmptyReason:   "该文件是空的；Telegram 不发送空文件。",
}

// rulesChinese is the texts of saved rules in Chinese.
var rulesChinese = Rules{
	CmdRules:  "OpenCode 2 上“始终允许”保存的规则，以及撤销",
	BtnAlways: "♾️ 始终允许（保存规则）",
	SavesRule: "<i>♾️ 在 OpenCode 2 上，“始终允许”会为本项目保存一条规则，重启后仍然有效；/rules 可撤销。</i>",
	Saved:     "<i>已保存为项目规则；/rules 可撤销。</i>",
	Head:      "📜 <b>“始终允许”保存的规则</b>",
	Line: func(a, r, p string) string {
		return "<code>" + a + "</code> <code>" + r + "</code> · 项目 <code>" + p + "</code>"
	},
	None:       "没有保存的规则",
	Memory:     "opencode 1.x 把“始终允许”的回答保存在内存中；重启 opencode 即可清除。",
	NotReached: "尚未连接：不知道它的类型",
	Unlisted:   "⚠️ 无法列出它的规则；请重试",
	NoServers:  "没有配置 opencode 服务器。",
	BtnRevoke:  "🗑 撤销",
	RevokedBy: func(a, r, who string) string {
		return "🗑 规则 <code>" + a + "</code> <code>" + r + "</code> 已被 " + who + " 撤销；此类请求会重新询问。"
	},
	NotSaved: "该规则已不再保存",
}

// reasonChinese says every risk reason in simplified Chinese; commands,
// options and paths stay as they are, untranslated.
var reasonChinese = map[risk.ReasonCode]string{
	risk.ReasonNoCommandGiven:                            "未给出命令",
	risk.ReasonEditsFilesWhichOnesWas:                    "修改文件（未说明哪些）",
	risk.ReasonReadsFilesWhichOnesWas:                    "读取文件（未说明哪些）",
	risk.ReasonReadsFilesInTheProject:                    "读取项目内的文件",
	risk.ReasonLooksAtTheProject:                         "查看项目（%s）",
	risk.ReasonWorksOutsideTheProjectDirectory:           "在项目目录之外操作%s",
	risk.ReasonFetchesAWebPage:                           "抓取网页%s",
	risk.ReasonSearchesTheWeb:                            "搜索网络",
	risk.ReasonStartsASubagent:                           "启动子代理%s",
	risk.ReasonTheAgentKeepsRepeatingThe:                 "代理在反复执行同一个工具调用",
	risk.ReasonPermissionKindNotGiven:                    "未给出权限类型",
	risk.ReasonUnknownPermissionKind:                     "未知的权限类型 %s",
	risk.ReasonNestsCommandsTooDeeplyTo:                  "命令嵌套过深，无法追踪",
	risk.ReasonEmptyCommand:                              "空命令",
	risk.ReasonForkBomb:                                  "fork 炸弹",
	risk.ReasonDefinesAShellFunction:                     "定义 shell 函数",
	risk.ReasonOpensARawNetworkConnection:                "打开原始网络连接（/dev/tcp）",
	risk.ReasonCouldNotReadTheWhole:                      "无法完整解析命令（引号或括号不配对）",
	risk.ReasonChainsSeveralCommands:                     "串联了多条命令",
	risk.ReasonPipesOutputIntoAnotherCommand:             "将输出通过管道传给另一条命令",
	risk.ReasonRunsACommandInThe:                         "在后台运行命令",
	risk.ReasonRunsCommandsInASubshell:                   "在子 shell 中运行命令",
	risk.ReasonUsesCommandSubstitution:                   "使用命令替换",
	risk.ReasonNoCommandFound:                            "未找到命令",
	risk.ReasonInjectsLibrariesIntoAProgram:              "向程序注入库（%s）",
	risk.ReasonSetsEnvironmentVariables:                  "设置环境变量（%s）",
	risk.ReasonRunsAsAnotherUser:                         "以其他用户身份运行（%s）",
	risk.ReasonLooksUpACommand:                           "查找命令",
	risk.ReasonPrintsEnvironmentVariablesWhichMay:        "打印环境变量，其中可能含有机密",
	risk.ReasonEchoesItsInput:                            "回显输入",
	risk.ReasonUnknownCommand:                            "未知命令 %s",
	risk.ReasonRunsACommandForEachLine:                   "对每行输入运行命令（%s）",
	risk.ReasonTouchesSecretsOrCredentials:               "涉及机密或凭据（%s）",
	risk.ReasonUsesEval:                                  "使用 eval",
	risk.ReasonRunsAScriptInThe:                          "在当前 shell 中运行脚本",
	risk.ReasonDeletesFiles:                              "删除文件（%s）",
	risk.ReasonFormatsAFileSystem:                        "格式化文件系统（%s）",
	risk.ReasonWritesRawDataToDisks:                      "向磁盘或文件写入原始数据（%s）",
	risk.ReasonChangesTheRunLevel:                        "更改运行级别（%s）",
	risk.ReasonDeletesTheCrontabCrontabR:                 "删除 crontab（crontab -r）",
	risk.ReasonChangesScheduledJobsCrontab:               "更改定时任务（crontab）",
	risk.ReasonDownloadsOrSendsDataOver:                  "通过网络下载或发送数据（%s）",
	risk.ReasonConnectsToAnotherMachine:                  "连接到另一台机器（%s）",
	risk.ReasonDeletesFilesWhileSyncingRsync:             "同步时删除文件（rsync --delete）",
	risk.ReasonCopiesFilesRsync:                          "复制文件（rsync）",
	risk.ReasonEditsFilesInPlaceSed:                      "就地修改文件（sed -i）",
	risk.ReasonSedScriptMayWriteFiles:                    "sed 脚本可能写文件或运行命令",
	risk.ReasonAwkProgramRunsCommandsOr:                  "awk 程序会运行命令或写文件",
	risk.ReasonChangesShellVariablesOptionsOr:            "更改 shell 变量、选项或别名（%s）",
	risk.ReasonWritesFiles:                               "写文件（%s）",
	risk.ReasonClearsTheShellHistory:                     "清除 shell 历史",
	risk.ReasonChangesOrWritesTheShell:                   "更改或写入 shell 历史",
	risk.ReasonReadOnlyCommand:                           "只读命令（%s）",
	risk.ReasonRunsOutputAsACommand:                      "把另一条命令的输出当作命令运行",
	risk.ReasonRunsACommandNamedBy:                       "运行由变量指定的命令（%s）",
	risk.ReasonReadsAHereDocument:                        "读取 here-document",
	risk.ReasonExpandsAVariable:                          "展开变量（%s）",
	risk.ReasonReadsOutsideTheProject:                    "读取项目之外的内容（%s）",
	risk.ReasonUsesBraceExpansion:                        "使用花括号展开（%s）",
	risk.ReasonMatchesHiddenFilesWithA:                   "通配符会匹配隐藏文件（%s）",
	risk.ReasonReadsADotfileOrHidden:                     "读取点文件或隐藏目录（%s）",
	risk.ReasonWritesFilesOrRunsPrograms:                 "写文件或运行程序（%s）",
	risk.ReasonWritesItsOutputToA:                        "将输出写入文件（%s）",
	risk.ReasonSetsTheHostName:                           "设置主机名",
	risk.ReasonRunsLessCommandsLess:                      "运行 less 命令（less +…）",
	risk.ReasonContactsARemoteGitLs:                      "访问远程仓库（git ls-remote）",
	risk.ReasonReadsEnvironmentVariablesWhichMay:         "读取环境变量，其中可能含有机密（jq）",
	risk.ReasonReadsSecretsOrCredentials:                 "读取机密或凭据（%s）",
	risk.ReasonRedirectsInput:                            "重定向输入（%s）",
	risk.ReasonRedirectsOutput:                           "重定向输出（%s）",
	risk.ReasonWritesToADiskDevice:                       "写入磁盘设备（%s）",
	risk.ReasonRedirectsOutputIntoAFile:                  "将输出重定向到文件（%s）",
	risk.ReasonDeletesWithoutProtectingRmNo:              "删除时不保护 /（rm --no-preserve-root）",
	risk.ReasonDeletesFilesRecursivelyAndWithout:         "递归且不经确认地删除文件（rm -rf）",
	risk.ReasonDeletesFilesRecursivelyRmR:                "递归删除文件（rm -r）",
	risk.ReasonDeletesABroadPath:                         "删除范围很大的路径（%s）",
	risk.ReasonDeletesEveryFileFoundFind:                 "删除找到的所有文件（find -delete）",
	risk.ReasonRunsACommandForEachFileFound:              "对找到的每个文件运行命令（find %s）",
	risk.ReasonWritesAFileFind:                           "写文件（find %s）",
	risk.ReasonRewritesOrDeletesRemoteHistory:            "改写或删除远程历史（git push --force）",
	risk.ReasonPushesToARemoteGit:                        "推送到远程仓库（git push）",
	risk.ReasonDiscardsLocalChangesGitReset:              "丢弃本地修改（git reset --hard）",
	risk.ReasonMovesTheBranchGitReset:                    "移动分支（git reset）",
	risk.ReasonDeletesUntrackedFilesGitClean:             "删除未跟踪的文件（git clean -f）",
	risk.ReasonCleansTheWorkTreeGit:                      "清理工作区（git clean）",
	risk.ReasonDiscardsLocalChangesGit:                   "丢弃本地修改（git %s）",
	risk.ReasonChangesTheWorkTreeGit:                     "更改工作区（git %s）",
	risk.ReasonForceDeletesABranchGit:                    "强制删除分支（git branch -D）",
	risk.ReasonChangesBranchesGitBranch:                  "更改分支（git branch）",
	risk.ReasonChangesTagsGitTag:                         "更改标签（git tag）",
	risk.ReasonChangesRemotesGitRemote:                   "更改远程仓库（git remote）",
	risk.ReasonChangesGitConfigurationGitConfig:          "更改 git 配置（git config）",
	risk.ReasonThrowsStashedChangesAwayGit:               "丢弃暂存的修改（git stash %s）",
	risk.ReasonStashesChangesGitStash:                    "暂存修改（git stash）",
	risk.ReasonDeletesReflogEntriesGitReflog:             "删除 reflog 记录（git reflog %s）",
	risk.ReasonRewritesRepositoryHistoryGit:              "改写仓库历史（git %s）",
	risk.ReasonDeletesUnreachableObjectsGit:              "删除不可达对象（git %s）",
	risk.ReasonRepacksTheRepositoryGitGc:                 "重新打包仓库（git gc）",
	risk.ReasonChangesWorkTreesGitWorktree:               "更改工作树（git worktree）",
	risk.ReasonChangesTheRepositoryGit:                   "更改仓库（git %s）",
	risk.ReasonSetsTheSetuidOrSetgid:                     "设置 setuid 或 setgid 位（chmod）",
	risk.ReasonChangesOwnershipOrPermissionsOnABroadPath: "在大范围路径上递归更改所有者或权限（%s -R）",
	risk.ReasonChangesOwnershipOrPermissionsRecursively:  "递归更改所有者或权限（%s -R）",
	risk.ReasonChangesOwnershipOrPermissions:             "更改所有者或权限（%s）",
	risk.ReasonKillsInitOrEveryProcess:                   "杀死 init 或所有进程（%s）",
	risk.ReasonStopsProcesses:                            "终止进程（%s）",
	risk.ReasonChangesKernelSettingsSysctl:               "更改内核设置（sysctl）",
	risk.ReasonChangesSystemServicesOrSettings:           "更改系统服务或设置（%s）",
	risk.ReasonRunsAContainerWithHost:                    "运行可访问宿主机的容器（%s）",
	risk.ReasonDeletesContainersImagesOrCluster:          "删除容器、镜像或集群对象（%s）",
	risk.ReasonPublishesAnImagePush:                      "发布镜像（%s push）",
	risk.ReasonRunsContainersOrClusterCommands:           "运行容器或集群命令（%s）",
	risk.ReasonPublishesOrChangesSomethingPublic:         "发布或更改公开内容（%s）",
	risk.ReasonRemovesInstalledPackages:                  "卸载已安装的软件包（%s）",
	risk.ReasonChangesGoSettingsGoEnv:                    "更改 Go 设置（go env -w）",
	risk.ReasonRuns:                                      "运行 %s",
	risk.ReasonRunsACommandThroughA:                      "通过 shell 运行命令（%s -c）",
	risk.ReasonPipesTextIntoAShell:                       "将文本通过管道交给 shell 执行（%s）",
	risk.ReasonRunsAHereDocumentThrough:                  "通过 shell 运行 here-document（%s）",
	risk.ReasonRunsGeneratedOrDownloadedText:             "把生成或下载的文本当作脚本运行（%s）",
	risk.ReasonRunsAScript:                               "运行脚本（%s）",
	risk.ReasonStartsAShell:                              "启动 shell（%s）",
	risk.ReasonRunsOutputAsCode:                          "把另一条命令的输出当作代码运行",
	risk.ReasonRunsInlineCode:                            "运行内联代码（%s）",
	risk.ReasonEditsFilesInPlacePerl:                     "就地修改文件（perl -i）",
	risk.ReasonPipesTextIntoAnInterpreter:                "将文本通过管道交给解释器执行（%s）",
	risk.ReasonRunsGeneratedOrDownloadedCode:             "运行生成或下载的代码（%s）",
	risk.ReasonRunsInlineCodeFromA:                       "运行 here-document 中的内联代码（%s）",
	risk.ReasonRunsAProgram:                              "运行程序（%s）",
	risk.ReasonEditsFilesInTheProject:                    "修改项目内的文件",
	risk.ReasonEditsEveryFileMatching:                    "修改所有匹配 %s 的文件",
	risk.ReasonEditsASystemFile:                          "修改系统文件（%s）",
	risk.ReasonEditsSecretsCredentialsOrStart:            "修改机密、凭据或启动文件（%s）",
	risk.ReasonEditsAFileOutsideThe:                      "修改项目之外的文件（%s）",
	risk.ReasonEditsADotfileOrHidden:                     "修改点文件或隐藏目录（%s）",
	risk.ReasonEditsAFileInThe:                           "修改项目内的文件（%s）",
	risk.ReasonReadsAFileOutsideThe:                      "读取项目之外的文件（%s）",
	risk.ReasonReadsAPathMadeOf:                          "读取由变量构成的路径（%s）",
	risk.ReasonReadsADotfile:                             "读取点文件（%s）",
	risk.ReasonShutsTheMachineDown:                       "关闭机器（%s）",
	risk.ReasonRebootsTheMachine:                         "重启机器（%s）",
	risk.ReasonHaltsTheMachine:                           "停止机器（%s）",
	risk.ReasonPowersTheMachineOff:                       "关闭机器电源（%s）",
	risk.ReasonMountsFileSystems:                         "挂载文件系统（%s）",
	risk.ReasonUnmountsFileSystems:                       "卸载文件系统（%s）",
	risk.ReasonTurnsSwapOff:                              "关闭交换分区（%s）",
	risk.ReasonTurnsSwapOn:                               "开启交换分区（%s）",
	risk.ReasonLoadsKernelModules:                        "加载内核模块（%s）",
	risk.ReasonRemovesKernelModules:                      "移除内核模块（%s）",
	risk.ReasonChangesUserAccounts:                       "更改用户账户（%s）",
	risk.ReasonChangesPasswords:                          "更改密码（%s）",
	risk.ReasonChangesSudoRights:                         "更改 sudo 权限（%s）",
	risk.ReasonChangesTheFirewall:                        "更改防火墙（%s）",
	risk.ReasonChangesFileAttributes:                     "更改文件属性（%s）",
	risk.ReasonChangesSelinuxEnforcement:                 "更改 SELinux 强制模式（%s）",
	risk.ReasonBootsAnotherKernel:                        "启动另一个内核（%s）",
	risk.ReasonDeletesADiskDevice:                        "删除磁盘设备（%s）",
	risk.ReasonDeletesUnderASystemDirectory:              "删除系统目录下的内容（%s）",
	risk.ReasonDeletesSecretsCredentialsOrStartupFiles:   "删除机密、凭据或启动文件（%s）",
	risk.ReasonDeletesOutsideTheProject:                  "删除项目之外的内容（%s）",
	risk.ReasonChangesADiskDevice:                        "更改磁盘设备（%s）",
	risk.ReasonChangesUnderASystemDirectory:              "更改系统目录下的内容（%s）",
	risk.ReasonChangesSecretsCredentialsOrStartupFiles:   "更改机密、凭据或启动文件（%s）",
	risk.ReasonChangesOutsideTheProject:                  "更改项目之外的内容（%s）",
	risk.ReasonWritesADiskDevice:                         "写入磁盘设备（%s）",
	risk.ReasonWritesUnderASystemDirectory:               "写入系统目录下的内容（%s）",
	risk.ReasonWritesSecretsCredentialsOrStartupFiles:    "写入机密、凭据或启动文件（%s）",
	risk.ReasonWritesOutsideTheProject:                   "写入项目之外的内容（%s）",
	risk.ReasonWritesToUnderASystemDirectory:             "写入系统目录下的内容（%s）",
	risk.ReasonWritesToSecretsCredentialsOrStartupFiles:  "写入机密、凭据或启动文件（%s）",
	risk.ReasonWritesToOutsideTheProject:                 "写入项目之外的内容（%s）",
	risk.ReasonNothingRiskyFound:                         "未发现风险",
	risk.ReasonProvenReadOnly:                            "只读，且在项目之内：符合自动批准规则",
	risk.ReasonNotProvenHarmless:                         "不符合自动批准规则：%s",
	risk.ReasonNoCommandOnlyPatterns:                     "没有给出命令，只有模式：从不自动批准",
	risk.ReasonOnlyCommandsAutoApproved:                  "只有 shell 命令可以自动批准",
	risk.ReasonRunsInAnotherFolder:                       "在项目目录之外的文件夹中运行（%s）",
	risk.ReasonToolCallNotRead:                           "无法读取该工具调用实际运行的内容及其文件夹",
	risk.ReasonMayRunLong:                                "最长可运行 %s",
}
