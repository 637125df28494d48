package i18n

// Pause is every text of auto-approval paused by an always answer and of
// /autoapprove. Texts that are HTML say so; arguments are escaped.
type Pause struct {
	// CmdAutoApprove is the setMyCommands description of /autoapprove.
	CmdAutoApprove string
	// Notice says auto-approval stopped in project after an always answer
	// to a request of kind, and how to resume it (HTML).
	Notice func(project, kind string) string
	// PolicyOff and PolicyLow head /autoapprove's reply (HTML).
	PolicyOff, PolicyLow string
	// NothingPaused ends it when no directory is paused.
	NothingPaused string
	// Head introduces the paused directories (HTML); Line says one: its
	// project and the kind of the always answer (HTML); HowToResume ends
	// the list (HTML).
	Head        string
	Line        func(project, kind string) string
	HowToResume string
	// BtnResume labels a Resume button; the line's number follows.
	BtnResume string
	// ResumedBy says who resumed auto-approval in project (HTML).
	ResumedBy func(project, who string) string
	// NotPaused is the toast of a Resume whose pause was already cleared.
	NotPaused string
	// Unreadable says the records could not be read.
	Unreadable string
}
