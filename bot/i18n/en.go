package i18n

import (
	"fmt"
	"strconv"

	"github.com/hermes-bot/hermes-bot/bot/risk"
)

// The English buttons of a permission message. The end-to-end tests press
// them by these texts; keep them as they are.
const (
	btnAllowOnce    = "✅ Allow once"
	btnAllowAlways  = "♾️ Always allow"
	btnReject       = "❌ Reject"
	btnRejectReason = "💬 Reject with reason"
)

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
	ToastCancelled:         "This request was cancelled",
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
	MoreReasons: func(n int) string { return fmt.Sprintf("%d more", n) },
	RiskReason:  reasonSayer(reasonEnglish, "unknown reason"),
	Risk:        func(l risk.Level) string { return l.String() + " risk" },
	File:        "File: ",
	URL:         "URL: ",
	Folder:      "Runs in another folder: ",
	RunUnread:   "⚠️ Could not read from opencode where this command runs: check before allowing.",
	RunsFor:     func(d string) string { return "⏱ May run for up to " + d },
	Patterns:    "Patterns: ",
	MoreLines:   func(n int) string { return fmt.Sprintf("… %d more lines", n) },
	MoreItems:   func(n int) string { return fmt.Sprintf(" … and %d more", n) },
	AlwaysNone:  "♾️ <i>Always allow</i>: opencode named no patterns for it.",
	AlwaysMemory: func(p string) string {
		return "♾️ <i>Always allow</i> allows " + p + " in this project, in every session, until opencode restarts"
	},
	AlwaysRule: func(p string) string {
		return "♾️ <i>Always allow</i> allows " + p + " in this project from now on"
	},
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
		"<b>Forms</b> (OpenCode 2) are asked one field at a time: an optional field has <b>⏭ Skip</b>, " +
		"a link form has a button opening it, then <b>✅ Done</b> or <b>✖️ Cancel</b>.\n" +
		"<b>Permission requests</b> 🔐: <b>" + btnAllowOnce + "</b> allows this call, <b>" + btnAllowAlways +
		"</b> allows calls like it in the project until opencode restarts (on OpenCode 2, as a saved rule), <b>" + btnReject + "</b> refuses, and <b>" +
		btnRejectReason + "</b> refuses and tells the agent why.\n" +
		"A request nobody answers is dismissed when it expires.\n\n" +
		"<b>Commands</b>\n" +
		"/pending: the requests waiting for an answer, with links to their messages\n" +
		"/status: the connection to opencode, its version, what is waiting, uptime\n" +
		"/autoapprove: where auto-approval is paused, and ▶️ Resume\n" +
		"/rules: the rules Always allow saved for projects on OpenCode 2, and 🗑 Revoke\n" +
		"/help: this message\n\n" +
		"<b>Steering</b> (people on the allow-list only)\n" +
		"Reply to a message about a session (a finished notice, an answered request) to send it your next prompt, " +
		"with a photo or a text file if you like; 👀 means taken, 👍 that opencode accepted it. " +
		"On OpenCode 2, while it is working, you choose: after its turn, or ⚡ steer the turn now.\n" +
		"/new: start a session in a project (/new PROMPT starts it with that)\n" +
		"/sessions: recent sessions, their state, and ⏹ Stop\n" +
		"/stop: reply it to a session's message to stop that session\n" +
		"/file PATH: reply it to a session's message to get that file of its project",
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
	Version: func(v string, generation int) string {
		if generation == 2 {
			return " · OpenCode 2, version " + v
		}
		return " · opencode 1.x, version " + v
	},
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
	ErrUnsupported:  "a server hermes-bot does not support (a newer generation than OpenCode 2; see the log)",
	JustNow:         "just now",
	Ago:             func(span string) string { return span + " ago" },
	UnderMinute:     "under a minute",
	Minutes:         func(m int) string { return fmt.Sprintf("%d min", m) },
	Hours:           func(h, m int) string { return units(h, "h", m, "min") },
	Days:            func(d, h int) string { return units(d, "d", h, "h") },

	TerminalAnswered: func(chat, who string) string { return "Answered from " + chat + " by " + who },
	TerminalDecided: func(chat, reply, who string) string {
		switch reply {
		case "once":
			return "Allowed once from " + chat + " by " + who
		case "always":
			return "Always allowed from " + chat + " by " + who
		}
		return "Rejected from " + chat + " by " + who
	},

	Steer:    steerEnglish,
	Form:     formEnglish,
	Pause:    pauseEnglish,
	Live:     liveEnglish,
	Rules:    rulesEnglish,
	Matrix:   matrixEnglish,
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

// steerEnglish is the steering texts of English.
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
	BusyAsk: func(t string) string {
		return "⏳ <b>" + t + "</b> is working. Send your message after its turn, or steer the turn with it now?"
	},
	BtnQueue:    "📥 After this turn",
	BtnSteerNow: "⚡ Steer now",
	Queued:      func(t string) string { return "→ queued for <b>" + t + "</b>, after its turn" },
	SteeredInto: func(t string) string { return "⚡ steered into the turn of <b>" + t + "</b>" },
	ChoiceGone:  "This message was sent already, or forgotten: reply again",
	StaleAsk: func(age string) string {
		return "⏰ This message waited " + age + " while hermes-bot was away. Send this to the agent now?"
	},
	BtnSend:   "📤 Send",
	FilesOff:  "⚠️ Not sent: files are off here (HERMES_MAX_UPLOAD=0).",
	FileKind:  "⚠️ Not sent: only images (PNG, JPEG, GIF, WebP) and UTF-8 text files can go to the agent.",
	NoImages:  "⚠️ Not sent: this model does not take images. Send the text alone, or pick a model that reads images in opencode.",
	FileFetch: "⚠️ Not sent: the file could not be fetched from Telegram; send it again.",
	FileTooBig: func(limit string) string {
		return "⚠️ Not sent: the files are larger than the " + limit + " allowed."
	},
	CmdFile:           "Reply /file PATH to a session's message to get that file of its project",
	FileHow:           "To get a file of a session's project, reply /file PATH to a message about the session.",
	FileRefused:       func(reason string) string { return "⚠️ /file: " + reason },
	FileOutsideReason: "that path leads outside the session's project.",
	FileMissingReason: "no such file in the session's project.",
	FileKindReason:    "that is no regular file (a folder, a device or a pipe).",
	FileNoPath:        "name a file, as /file PATH, relative to the project's folder.",
	FileEmptyReason:   "that file is empty; Telegram sends no empty files.",
}

// rulesEnglish is the texts of saved rules in English.
var rulesEnglish = Rules{
	CmdRules:  "Rules saved by Always allow on OpenCode 2, and revoke them",
	BtnAlways: "♾️ Always: save a rule",
	SavesRule: "<i>♾️ On OpenCode 2, Always allow saves a rule for this project, kept across restarts; /rules revokes it.</i>",
	Saved:     "<i>Saved as a rule for the project; /rules revokes it.</i>",
	Head:      "📜 <b>Rules saved by Always allow</b>",
	Line: func(a, r, p string) string {
		return "<code>" + a + "</code> <code>" + r + "</code> · project <code>" + p + "</code>"
	},
	None:       "no rule saved",
	Memory:     "opencode 1.x keeps always answers in memory; restart opencode to forget them.",
	NotReached: "not reached yet: its kind is not known",
	Unlisted:   "⚠️ could not list its rules; try again",
	NoServers:  "No opencode server is configured.",
	BtnRevoke:  "🗑 Revoke",
	RevokedBy: func(a, r, who string) string {
		return "🗑 The rule <code>" + a + "</code> <code>" + r + "</code> was revoked by " + who + "; such requests are asked again."
	},
	NotSaved: "That rule is no longer saved",
}

// pauseEnglish is the texts of paused auto-approval in English.
var pauseEnglish = Pause{
	CmdAutoApprove: "Where auto-approval is paused, and resume it",
	Notice: func(p, k string) string {
		return "⏸ <b>Auto-approval paused</b> in <b>" + p + "</b>: an Always allow (<code>" + k +
			"</code>) lets the agent change files there without asking. Restart opencode (it forgets such answers), then /autoapprove to resume."
	},
	PolicyOff:     "🤖 Auto-approval is <b>off</b>: every request is asked.",
	PolicyLow:     "🤖 Auto-approval is <b>low</b>: low-risk shell commands are allowed without asking.",
	NothingPaused: "▶️ Nothing is paused.",
	Head:          "⏸ <b>Paused</b> after an Always allow that lets the agent change files without asking:",
	Line:          func(p, k string) string { return "<b>" + p + "</b>: Always allow on <code>" + k + "</code>" },
	HowToResume:   "<i>Restart opencode first (it forgets such answers), then press Resume.</i>",
	BtnResume:     "▶️ Resume",
	ResumedBy:     func(p, who string) string { return "▶️ Auto-approval resumed in <b>" + p + "</b> by " + who + "." },
	NotPaused:     "Auto-approval is no longer paused there",
	Unreadable:    "⚠️ Could not read where auto-approval is paused; see the log.",
}

// reasonEnglish says every risk reason in English; %s is the reason's
// detail.
var reasonEnglish = map[risk.ReasonCode]string{
	risk.ReasonNoCommandGiven:                            "no command given",
	risk.ReasonEditsFilesWhichOnesWas:                    "edits files (which ones was not said)",
	risk.ReasonReadsFilesWhichOnesWas:                    "reads files (which ones was not said)",
	risk.ReasonReadsFilesInTheProject:                    "reads files in the project",
	risk.ReasonLooksAtTheProject:                         "looks at the project (%s)",
	risk.ReasonWorksOutsideTheProjectDirectory:           "works outside the project directory%s",
	risk.ReasonFetchesAWebPage:                           "fetches a web page%s",
	risk.ReasonSearchesTheWeb:                            "searches the web",
	risk.ReasonStartsASubagent:                           "starts a subagent%s",
	risk.ReasonTheAgentKeepsRepeatingThe:                 "the agent keeps repeating the same tool call",
	risk.ReasonPermissionKindNotGiven:                    "permission kind not given",
	risk.ReasonUnknownPermissionKind:                     "unknown permission kind %s",
	risk.ReasonNestsCommandsTooDeeplyTo:                  "nests commands too deeply to follow",
	risk.ReasonEmptyCommand:                              "empty command",
	risk.ReasonForkBomb:                                  "fork bomb",
	risk.ReasonDefinesAShellFunction:                     "defines a shell function",
	risk.ReasonOpensARawNetworkConnection:                "opens a raw network connection (/dev/tcp)",
	risk.ReasonCouldNotReadTheWhole:                      "could not read the whole command (unbalanced quotes or brackets)",
	risk.ReasonChainsSeveralCommands:                     "chains several commands",
	risk.ReasonPipesOutputIntoAnotherCommand:             "pipes output into another command",
	risk.ReasonRunsACommandInThe:                         "runs a command in the background",
	risk.ReasonRunsCommandsInASubshell:                   "runs commands in a subshell",
	risk.ReasonUsesCommandSubstitution:                   "uses command substitution",
	risk.ReasonNoCommandFound:                            "no command found",
	risk.ReasonInjectsLibrariesIntoAProgram:              "injects libraries into a program (%s)",
	risk.ReasonSetsEnvironmentVariables:                  "sets environment variables (%s)",
	risk.ReasonRunsAsAnotherUser:                         "runs as another user (%s)",
	risk.ReasonLooksUpACommand:                           "looks up a command",
	risk.ReasonPrintsEnvironmentVariablesWhichMay:        "prints environment variables, which may hold secrets",
	risk.ReasonEchoesItsInput:                            "echoes its input",
	risk.ReasonUnknownCommand:                            "unknown command %s",
	risk.ReasonRunsACommandForEachLine:                   "runs a command for each input line (%s)",
	risk.ReasonTouchesSecretsOrCredentials:               "touches secrets or credentials (%s)",
	risk.ReasonUsesEval:                                  "uses eval",
	risk.ReasonRunsAScriptInThe:                          "runs a script in the current shell",
	risk.ReasonDeletesFiles:                              "deletes files (%s)",
	risk.ReasonFormatsAFileSystem:                        "formats a file system (%s)",
	risk.ReasonWritesRawDataToDisks:                      "writes raw data to disks or files (%s)",
	risk.ReasonChangesTheRunLevel:                        "changes the run level (%s)",
	risk.ReasonDeletesTheCrontabCrontabR:                 "deletes the crontab (crontab -r)",
	risk.ReasonChangesScheduledJobsCrontab:               "changes scheduled jobs (crontab)",
	risk.ReasonDownloadsOrSendsDataOver:                  "downloads or sends data over the network (%s)",
	risk.ReasonConnectsToAnotherMachine:                  "connects to another machine (%s)",
	risk.ReasonDeletesFilesWhileSyncingRsync:             "deletes files while syncing (rsync --delete)",
	risk.ReasonCopiesFilesRsync:                          "copies files (rsync)",
	risk.ReasonEditsFilesInPlaceSed:                      "edits files in place (sed -i)",
	risk.ReasonSedScriptMayWriteFiles:                    "sed script may write files or run commands",
	risk.ReasonAwkProgramRunsCommandsOr:                  "awk program runs commands or writes files",
	risk.ReasonChangesShellVariablesOptionsOr:            "changes shell variables, options or aliases (%s)",
	risk.ReasonWritesFiles:                               "writes files (%s)",
	risk.ReasonClearsTheShellHistory:                     "clears the shell history",
	risk.ReasonChangesOrWritesTheShell:                   "changes or writes the shell history",
	risk.ReasonReadOnlyCommand:                           "read-only command (%s)",
	risk.ReasonRunsOutputAsACommand:                      "runs the output of another command as a command",
	risk.ReasonRunsACommandNamedBy:                       "runs a command named by a variable (%s)",
	risk.ReasonReadsAHereDocument:                        "reads a here-document",
	risk.ReasonExpandsAVariable:                          "expands a variable (%s)",
	risk.ReasonReadsOutsideTheProject:                    "reads outside the project (%s)",
	risk.ReasonUsesBraceExpansion:                        "uses brace expansion (%s)",
	risk.ReasonMatchesHiddenFilesWithA:                   "matches hidden files with a wildcard (%s)",
	risk.ReasonReadsADotfileOrHidden:                     "reads a dotfile or hidden directory (%s)",
	risk.ReasonWritesFilesOrRunsPrograms:                 "writes files or runs programs (%s)",
	risk.ReasonWritesItsOutputToA:                        "writes its output to a file (%s)",
	risk.ReasonSetsTheHostName:                           "sets the host name",
	risk.ReasonRunsLessCommandsLess:                      "runs less commands (less +…)",
	risk.ReasonContactsARemoteGitLs:                      "contacts a remote (git ls-remote)",
	risk.ReasonReadsEnvironmentVariablesWhichMay:         "reads environment variables, which may hold secrets (jq)",
	risk.ReasonReadsSecretsOrCredentials:                 "reads secrets or credentials (%s)",
	risk.ReasonRedirectsInput:                            "redirects input (%s)",
	risk.ReasonRedirectsOutput:                           "redirects output (%s)",
	risk.ReasonWritesToADiskDevice:                       "writes to a disk device (%s)",
	risk.ReasonRedirectsOutputIntoAFile:                  "redirects output into a file (%s)",
	risk.ReasonDeletesWithoutProtectingRmNo:              "deletes without protecting / (rm --no-preserve-root)",
	risk.ReasonDeletesFilesRecursivelyAndWithout:         "deletes files recursively and without asking (rm -rf)",
	risk.ReasonDeletesFilesRecursivelyRmR:                "deletes files recursively (rm -r)",
	risk.ReasonDeletesABroadPath:                         "deletes a broad path (%s)",
	risk.ReasonDeletesEveryFileFoundFind:                 "deletes every file found (find -delete)",
	risk.ReasonRunsACommandForEachFileFound:              "runs a command for each file found (find %s)",
	risk.ReasonWritesAFileFind:                           "writes a file (find %s)",
	risk.ReasonRewritesOrDeletesRemoteHistory:            "rewrites or deletes remote history (git push --force)",
	risk.ReasonPushesToARemoteGit:                        "pushes to a remote (git push)",
	risk.ReasonDiscardsLocalChangesGitReset:              "discards local changes (git reset --hard)",
	risk.ReasonMovesTheBranchGitReset:                    "moves the branch (git reset)",
	risk.ReasonDeletesUntrackedFilesGitClean:             "deletes untracked files (git clean -f)",
	risk.ReasonCleansTheWorkTreeGit:                      "cleans the work tree (git clean)",
	risk.ReasonDiscardsLocalChangesGit:                   "discards local changes (git %s)",
	risk.ReasonChangesTheWorkTreeGit:                     "changes the work tree (git %s)",
	risk.ReasonForceDeletesABranchGit:                    "force-deletes a branch (git branch -D)",
	risk.ReasonChangesBranchesGitBranch:                  "changes branches (git branch)",
	risk.ReasonChangesTagsGitTag:                         "changes tags (git tag)",
	risk.ReasonChangesRemotesGitRemote:                   "changes remotes (git remote)",
	risk.ReasonChangesGitConfigurationGitConfig:          "changes git configuration (git config)",
	risk.ReasonThrowsStashedChangesAwayGit:               "throws stashed changes away (git stash %s)",
	risk.ReasonStashesChangesGitStash:                    "stashes changes (git stash)",
	risk.ReasonDeletesReflogEntriesGitReflog:             "deletes reflog entries (git reflog %s)",
	risk.ReasonRewritesRepositoryHistoryGit:              "rewrites repository history (git %s)",
	risk.ReasonDeletesUnreachableObjectsGit:              "deletes unreachable objects (git %s)",
	risk.ReasonRepacksTheRepositoryGitGc:                 "repacks the repository (git gc)",
	risk.ReasonChangesWorkTreesGitWorktree:               "changes work trees (git worktree)",
	risk.ReasonChangesTheRepositoryGit:                   "changes the repository (git %s)",
	risk.ReasonSetsTheSetuidOrSetgid:                     "sets the setuid or setgid bit (chmod)",
	risk.ReasonChangesOwnershipOrPermissionsOnABroadPath: "changes ownership or permissions recursively on a broad path (%s -R)",
	risk.ReasonChangesOwnershipOrPermissionsRecursively:  "changes ownership or permissions recursively (%s -R)",
	risk.ReasonChangesOwnershipOrPermissions:             "changes ownership or permissions (%s)",
	risk.ReasonKillsInitOrEveryProcess:                   "kills init or every process (%s)",
	risk.ReasonStopsProcesses:                            "stops processes (%s)",
	risk.ReasonChangesKernelSettingsSysctl:               "changes kernel settings (sysctl)",
	risk.ReasonChangesSystemServicesOrSettings:           "changes system services or settings (%s)",
	risk.ReasonRunsAContainerWithHost:                    "runs a container with host access (%s)",
	risk.ReasonDeletesContainersImagesOrCluster:          "deletes containers, images or cluster objects (%s)",
	risk.ReasonPublishesAnImagePush:                      "publishes an image (%s push)",
	risk.ReasonRunsContainersOrClusterCommands:           "runs containers or cluster commands (%s)",
	risk.ReasonPublishesOrChangesSomethingPublic:         "publishes or changes something public (%s)",
	risk.ReasonRemovesInstalledPackages:                  "removes installed packages (%s)",
	risk.ReasonChangesGoSettingsGoEnv:                    "changes Go settings (go env -w)",
	risk.ReasonRuns:                                      "runs %s",
	risk.ReasonRunsACommandThroughA:                      "runs a command through a shell (%s -c)",
	risk.ReasonPipesTextIntoAShell:                       "pipes text into a shell, which runs it (%s)",
	risk.ReasonRunsAHereDocumentThrough:                  "runs a here-document through a shell (%s)",
	risk.ReasonRunsGeneratedOrDownloadedText:             "runs generated or downloaded text as a script (%s)",
	risk.ReasonRunsAScript:                               "runs a script (%s)",
	risk.ReasonStartsAShell:                              "starts a shell (%s)",
	risk.ReasonRunsOutputAsCode:                          "runs the output of another command as code",
	risk.ReasonRunsInlineCode:                            "runs inline code (%s)",
	risk.ReasonEditsFilesInPlacePerl:                     "edits files in place (perl -i)",
	risk.ReasonPipesTextIntoAnInterpreter:                "pipes text into an interpreter, which runs it (%s)",
	risk.ReasonRunsGeneratedOrDownloadedCode:             "runs generated or downloaded code (%s)",
	risk.ReasonRunsInlineCodeFromA:                       "runs inline code from a here-document (%s)",
	risk.ReasonRunsAProgram:                              "runs a program (%s)",
	risk.ReasonEditsFilesInTheProject:                    "edits files in the project",
	risk.ReasonEditsEveryFileMatching:                    "edits every file matching %s",
	risk.ReasonEditsASystemFile:                          "edits a system file (%s)",
	risk.ReasonEditsSecretsCredentialsOrStart:            "edits secrets, credentials or start-up files (%s)",
	risk.ReasonEditsAFileOutsideThe:                      "edits a file outside the project (%s)",
	risk.ReasonEditsADotfileOrHidden:                     "edits a dotfile or hidden directory (%s)",
	risk.ReasonEditsAFileInThe:                           "edits a file in the project (%s)",
	risk.ReasonReadsAFileOutsideThe:                      "reads a file outside the project (%s)",
	risk.ReasonReadsAPathMadeOf:                          "reads a path made of a variable (%s)",
	risk.ReasonReadsADotfile:                             "reads a dotfile (%s)",
	risk.ReasonShutsTheMachineDown:                       "shuts the machine down (%s)",
	risk.ReasonRebootsTheMachine:                         "reboots the machine (%s)",
	risk.ReasonHaltsTheMachine:                           "halts the machine (%s)",
	risk.ReasonPowersTheMachineOff:                       "powers the machine off (%s)",
	risk.ReasonMountsFileSystems:                         "mounts file systems (%s)",
	risk.ReasonUnmountsFileSystems:                       "unmounts file systems (%s)",
	risk.ReasonTurnsSwapOff:                              "turns swap off (%s)",
	risk.ReasonTurnsSwapOn:                               "turns swap on (%s)",
	risk.ReasonLoadsKernelModules:                        "loads kernel modules (%s)",
	risk.ReasonRemovesKernelModules:                      "removes kernel modules (%s)",
	risk.ReasonChangesUserAccounts:                       "changes user accounts (%s)",
	risk.ReasonChangesPasswords:                          "changes passwords (%s)",
	risk.ReasonChangesSudoRights:                         "changes sudo rights (%s)",
	risk.ReasonChangesTheFirewall:                        "changes the firewall (%s)",
	risk.ReasonChangesFileAttributes:                     "changes file attributes (%s)",
	risk.ReasonChangesSelinuxEnforcement:                 "changes SELinux enforcement (%s)",
	risk.ReasonBootsAnotherKernel:                        "boots another kernel (%s)",
	risk.ReasonDeletesADiskDevice:                        "deletes a disk device (%s)",
	risk.ReasonDeletesUnderASystemDirectory:              "deletes under a system directory (%s)",
	risk.ReasonDeletesSecretsCredentialsOrStartupFiles:   "deletes secrets, credentials or start-up files (%s)",
	risk.ReasonDeletesOutsideTheProject:                  "deletes outside the project (%s)",
	risk.ReasonChangesADiskDevice:                        "changes a disk device (%s)",
	risk.ReasonChangesUnderASystemDirectory:              "changes under a system directory (%s)",
	risk.ReasonChangesSecretsCredentialsOrStartupFiles:   "changes secrets, credentials or start-up files (%s)",
	risk.ReasonChangesOutsideTheProject:                  "changes outside the project (%s)",
	risk.ReasonWritesADiskDevice:                         "writes a disk device (%s)",
	risk.ReasonWritesUnderASystemDirectory:               "writes under a system directory (%s)",
	risk.ReasonWritesSecretsCredentialsOrStartupFiles:    "writes secrets, credentials or start-up files (%s)",
	risk.ReasonWritesOutsideTheProject:                   "writes outside the project (%s)",
	risk.ReasonWritesToUnderASystemDirectory:             "writes to under a system directory (%s)",
	risk.ReasonWritesToSecretsCredentialsOrStartupFiles:  "writes to secrets, credentials or start-up files (%s)",
	risk.ReasonWritesToOutsideTheProject:                 "writes to outside the project (%s)",
	risk.ReasonNothingRiskyFound:                         "nothing risky found",
	risk.ReasonProvenReadOnly:                            "read-only, inside the project: within the auto-approval rules",
	risk.ReasonNotProvenHarmless:                         "not within the auto-approval rules: %s",
	risk.ReasonNoCommandOnlyPatterns:                     "no command given, only patterns: never auto-approved",
	risk.ReasonOnlyCommandsAutoApproved:                  "only shell commands can be auto-approved",
	risk.ReasonRunsInAnotherFolder:                       "runs in another folder than the project's (%s)",
	risk.ReasonToolCallNotRead:                           "what the tool call runs, and where, could not be read",
	risk.ReasonMayRunLong:                                "may run for up to %s",
}
