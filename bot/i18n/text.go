package i18n

import (
	"strconv"
	"strings"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/risk"
)

// Text is every text hermes-bot writes for people, in one language:
// toasts, message parts and buttons, command replies, notices. For picks
// one.
type Text struct {
	// Toasts; see Toast.
	ToastUnknown, ToastNotAllowed, ToastGone, ToastStale, ToastBusy,
	ToastSending, ToastFailed, ToastTypeAnswer, ToastSelectFirst,
	ToastPromptFailed, ToastAnswered, ToastAnsweredElsewhere,
	ToastDismissed, ToastExpired, ToastCancelled string
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
	RiskReason func(r risk.Reason) string
	Risk       func(l risk.Level) string
	File, URL  string
	// Folder introduces the folder a command runs in when it is not the
	// project's; RunUnread says what it runs could not be read; RunsFor
	// says how long it may run (a Go duration), when that is long.
	Folder     string
	RunUnread  string
	RunsFor    func(d string) string
	Patterns   string
	MoreLines  func(n int) string
	MoreItems  func(n int) string
	AlwaysNone string // HTML
	// AlwaysMemory and AlwaysRule say what Always allow allows, the
	// patterns (HTML): in the project until opencode restarts (1.x keeps it
	// in memory, for every session of the directory), or as a rule saved
	// for the project (OpenCode 2).
	AlwaysMemory      func(patterns string) string
	AlwaysRule        func(patterns string) string
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
	// Version names the server's generation (1 or 2) and version.
	Version        func(v string, generation int) string
	LastError      func(words, ago string) string
	WaitingUnknown string
	WaitingCount   func(n int) string
	PendingLists   string
	ErrUnauthorized, ErrTransient, ErrSilent, ErrNotFound,
	ErrNotAccepted, ErrUnexpected, ErrUnsupported string
	JustNow     string
	Ago         func(span string) string
	UnderMinute string
	Minutes     func(m int) string
	Hours       func(h, m int) string // m may be 0
	Days        func(d, h int) string // h may be 0

	// Toasts in opencode's terminal after an answer from the chat (plain
	// text): in which chat ("Telegram"), who answered, and for a
	// permission what was decided ("once", "always" or "reject").
	TerminalAnswered func(chat, who string) string
	TerminalDecided  func(chat, reply, who string) string

	// Session notices.
	Finished, Failed string
	Skipped          func(n int) string
	OutputLimit      string
	Aborted          string
	UnknownError     string

	// Steer is steering from the chat.
	Steer Steer
	// Form is OpenCode 2's forms.
	Form Form
	// Pause is auto-approval paused by an always answer, and /autoapprove.
	Pause Pause
	// Rules is the rules OpenCode 2 saves, and /rules.
	Rules Rules
	// Live is the live status of a busy session.
	Live Live
	// Matrix is what only the Matrix front-end says.
	Matrix Matrix
}

// catalogs are the languages by their HERMES_LANG code, the default
// first: For and Languages read them, so a language is added here once.
var catalogs = []struct {
	lang, name string
	text       *Text
}{
	{"en", "English", &English},
	{"zh", "简体中文", &Chinese},
}

// Languages are the languages with a catalog, by their HERMES_LANG code,
// the default first.
func Languages() []string {
	langs := make([]string, len(catalogs))
	for i, c := range catalogs {
		langs[i] = c.lang
	}
	return langs
}

// LanguageName is the name of language lang (one of Languages) in that
// language, for a list to choose from; "" for any other.
func LanguageName(lang string) string {
	for _, c := range catalogs {
		if c.lang == lang {
			return c.name
		}
	}
	return ""
}

// For is the catalog of language lang (one of Languages); English for ""
// and anything else.
func For(lang string) *Text {
	for _, c := range catalogs {
		if c.lang == lang {
			return c.text
		}
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

// ErrorWords says what a failure class of opencode's event stream
// (opencode.WatchState.LastError) means.
func (t *Text) ErrorWords(class string) string {
	words := map[string]string{
		"unauthorized": t.ErrUnauthorized,
		"transient":    t.ErrTransient,
		"silent":       t.ErrSilent,
		"not_found":    t.ErrNotFound,
		"not_accepted": t.ErrNotAccepted,
		"unsupported":  t.ErrUnsupported,
	}
	if w, ok := words[class]; ok {
		return w
	}
	return t.ErrUnexpected
}

// Since says how long ago something happened, d being the time since.
func (t *Text) Since(d time.Duration) string {
	if d < time.Minute {
		return t.JustNow
	}
	return t.Ago(t.Span(d))
}

// Span says d in the two largest units that matter: "3 min", "2 h 5 min",
// "4 d 1 h".
func (t *Text) Span(d time.Duration) string {
	switch {
	case d < time.Minute:
		return t.UnderMinute
	case d < time.Hour:
		return t.Minutes(int(d / time.Minute))
	case d < 24*time.Hour:
		return t.Hours(int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return t.Days(int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// units says a of unit ua and b of unit ub, b left out when 0: "2 h 5 min".
func units(a int, ua string, b int, ub string) string {
	s := strconv.Itoa(a) + " " + ua
	if b != 0 {
		s += " " + strconv.Itoa(b) + " " + ub
	}
	return s
}
