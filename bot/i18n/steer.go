package i18n

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
	// OnIt is the toast of a steering button while its work runs.
	OnIt string
	// BusyAsk asks how a reply reaches session title, which is running a
	// turn on OpenCode 2: after the turn, or into it (HTML).
	BusyAsk func(title string) string
	// BtnQueue and BtnSteerNow are its two buttons.
	BtnQueue, BtnSteerNow string
	// Queued and SteeredInto say what a press of either did (HTML).
	Queued, SteeredInto func(title string) string
	// ChoiceGone is the toast of either button once the text was sent,
	// or forgotten (a restart, an hour gone).
	ChoiceGone string
	// StaleAsk asks before sending a steering message that waited age
	// while hermes-bot was away (HTML); BtnSend sends it.
	StaleAsk func(age string) string
	BtnSend  string
	// Why a message with files was not sent (HTML where it has arguments).
	FilesOff, FileKind, NoImages, FileFetch string
	FileTooBig                              func(limit string) string
	// CmdFile describes /file; FileHow explains it; FileRefused says why
	// a /file did not send, reason being one of File*Reason.
	CmdFile, FileHow                                                 string
	FileRefused                                                      func(reason string) string
	FileOutsideReason, FileMissingReason, FileKindReason, FileNoPath string
	FileEmptyReason                                                  string
}
