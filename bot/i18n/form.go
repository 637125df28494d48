package i18n

import (
	"fmt"
	"strconv"
)

// Form is every text of OpenCode 2's forms: a field's hint, the checks
// of a typed answer, the buttons of optional fields and of link forms.
// Texts that are HTML say so; arguments are escaped where they are.
// Numbers arrive written out already (strings), so "1.5" reads the same
// in every language.
type Form struct {
	// Yes and No are a boolean field's options.
	Yes, No string
	// BtnSkip leaves an optional field unanswered; Skipped shows it so.
	BtnSkip, Skipped string
	// A link form: its button opening the link, Done and Cancel, and the
	// line asking to open it then press Done.
	BtnOpen, BtnDone, BtnCancel, OpenThenDone string
	// The hints of a field (plain): what it takes.
	Optional, Text, Email, URI, Date, DateTime string
	Number, Integer                            string
	// Range is " from lo to hi", AtLeast " of at least lo", AtMost " of at
	// most hi", after Number or Integer.
	Range           func(lo, hi string) string
	AtLeast, AtMost func(n string) string
	// Length is how long a text may be, in characters (lo or hi "").
	Length func(lo, hi string) string
	// Choose is how many options a multiselect takes (lo or hi "").
	Choose  func(lo, hi string) string
	Pattern func(p string) string
	Example func(p string) string
	Default func(d string) string
	// The checks of a typed answer, said to the person who typed it.
	NotNumber, NotInteger     string
	TooSmall, TooLarge        func(n string) string
	TooShort, TooLong         func(n int) string
	NoMatch                   func(p string) string
	BadEmail, BadURI, BadDate string
	BadDateTime               string
	TooFew, TooMany           func(n int) string
	AgainBelow                string
	// Refused says the server refused the answer and why (HTML); the form
	// is asked again from its first field.
	Refused func(why string) string
	// DoneBy and CancelledBy end a link form's message (HTML).
	DoneBy, CancelledBy func(who string) string
	// CancelledOC ends the message of a form cancelled in opencode.
	CancelledOC string
}

var formEnglish = Form{
	Yes: "Yes", No: "No",
	BtnSkip: "⏭ Skip", Skipped: "(skipped)",
	BtnOpen: "🔗 Open the link", BtnDone: "✅ Done", BtnCancel: "✖️ Cancel",
	OpenThenDone: "Open the link, finish there, then press Done.",
	Optional:     "optional",
	Text:         "a text", Email: "an email address", URI: "a URL", Date: "a date (YYYY-MM-DD)",
	DateTime: "a date and time (RFC 3339, e.g. 2025-01-31T14:00:00Z)",
	Number:   "a number", Integer: "a whole number",
	Range:   func(lo, hi string) string { return " from " + lo + " to " + hi },
	AtLeast: func(n string) string { return " of at least " + n },
	AtMost:  func(n string) string { return " of at most " + n },
	Length: func(lo, hi string) string {
		switch {
		case lo != "" && hi != "":
			return lo + "–" + hi + " characters"
		case lo != "":
			return "at least " + lo + " characters"
		}
		return "at most " + hi + " characters"
	},
	Choose: func(lo, hi string) string {
		switch {
		case lo != "" && hi != "" && lo == hi:
			return "choose " + lo
		case lo != "" && hi != "":
			return "choose " + lo + "–" + hi
		case lo != "":
			return "choose at least " + lo
		}
		return "choose at most " + hi
	},
	Pattern:     func(p string) string { return "matching " + p },
	Example:     func(p string) string { return "e.g. " + p },
	Default:     func(d string) string { return "default: " + d },
	NotNumber:   "That is not a number.",
	NotInteger:  "That is not a whole number.",
	TooSmall:    func(n string) string { return "The number must be at least " + n + "." },
	TooLarge:    func(n string) string { return "The number must be at most " + n + "." },
	TooShort:    func(n int) string { return "The answer must be at least " + plural(n, "character") + " long." },
	TooLong:     func(n int) string { return "The answer must be at most " + plural(n, "character") + " long." },
	NoMatch:     func(p string) string { return "The answer must match the pattern " + p + "." },
	BadEmail:    "That is not an email address (name@example.com).",
	BadURI:      "That is not a URL with a scheme (https://…).",
	BadDate:     "That is not a date written YYYY-MM-DD.",
	BadDateTime: "That is not a date and time in RFC 3339 (2025-01-31T14:00:00Z).",
	TooFew:      func(n int) string { return "Choose at least " + plural(n, "option") + "." },
	TooMany:     func(n int) string { return "Choose at most " + plural(n, "option") + "." },
	AgainBelow:  "Please answer again below.",
	Refused: func(why string) string {
		return "opencode did not accept the answers: <i>" + why + "</i>. Please answer the form again."
	},
	DoneBy:      func(who string) string { return "Marked done by " + who },
	CancelledBy: func(who string) string { return "Cancelled by " + who },
	CancelledOC: "Cancelled in opencode",
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

var formChinese = Form{
	Yes: "是", No: "否",
	BtnSkip: "⏭ 跳过", Skipped: "（已跳过）",
	BtnOpen: "🔗 打开链接", BtnDone: "✅ 完成", BtnCancel: "✖️ 取消",
	OpenThenDone: "请打开链接并在那里完成，然后点击“完成”。",
	Optional:     "选填",
	Text:         "一段文字", Email: "一个电子邮箱地址", URI: "一个网址", Date: "一个日期（YYYY-MM-DD）",
	DateTime: "一个日期和时间（RFC 3339，例如 2025-01-31T14:00:00Z）",
	Number:   "一个数字", Integer: "一个整数",
	Range:   func(lo, hi string) string { return "，范围 " + lo + " 到 " + hi },
	AtLeast: func(n string) string { return "，不小于 " + n },
	AtMost:  func(n string) string { return "，不大于 " + n },
	Length: func(lo, hi string) string {
		switch {
		case lo != "" && hi != "":
			return lo + "–" + hi + " 个字符"
		case lo != "":
			return "至少 " + lo + " 个字符"
		}
		return "最多 " + hi + " 个字符"
	},
	Choose: func(lo, hi string) string {
		switch {
		case lo != "" && hi != "" && lo == hi:
			return "选择 " + lo + " 项"
		case lo != "" && hi != "":
			return "选择 " + lo + "–" + hi + " 项"
		case lo != "":
			return "至少选择 " + lo + " 项"
		}
		return "最多选择 " + hi + " 项"
	},
	Pattern:     func(p string) string { return "需符合 " + p },
	Example:     func(p string) string { return "例如 " + p },
	Default:     func(d string) string { return "默认：" + d },
	NotNumber:   "这不是一个数字。",
	NotInteger:  "这不是一个整数。",
	TooSmall:    func(n string) string { return "数字不能小于 " + n + "。" },
	TooLarge:    func(n string) string { return "数字不能大于 " + n + "。" },
	TooShort:    func(n int) string { return fmt.Sprintf("回答至少需要 %d 个字符。", n) },
	TooLong:     func(n int) string { return fmt.Sprintf("回答最多 %d 个字符。", n) },
	NoMatch:     func(p string) string { return "回答需符合格式 " + p + "。" },
	BadEmail:    "这不是一个电子邮箱地址（name@example.com）。",
	BadURI:      "这不是一个带协议的网址（https://…）。",
	BadDate:     "这不是 YYYY-MM-DD 格式的日期。",
	BadDateTime: "这不是 RFC 3339 格式的日期和时间（2025-01-31T14:00:00Z）。",
	TooFew:      func(n int) string { return fmt.Sprintf("请至少选择 %d 项。", n) },
	TooMany:     func(n int) string { return fmt.Sprintf("最多只能选择 %d 项。", n) },
	AgainBelow:  "请在下方重新回答。",
	Refused: func(why string) string {
		return "opencode 没有接受这些回答：<i>" + why + "</i>。请重新填写表单。"
	},
	DoneBy:      func(who string) string { return "由 " + who + " 标记为完成" },
	CancelledBy: func(who string) string { return "由 " + who + " 取消" },
	CancelledOC: "已在 opencode 中取消",
}
