package i18n

// Rules is every text of the rules OpenCode 2 saves for a project when a
// permission is answered "always", and of /rules. Texts that are HTML say
// so; arguments are escaped.
type Rules struct {
	// CmdRules is the setMyCommands description of /rules.
	CmdRules string
	// BtnAlways labels the Always button of an OpenCode 2 request.
	BtnAlways string
	// SavesRule ends an open OpenCode 2 request (HTML); Saved ends one
	// closed with always (HTML).
	SavesRule, Saved string
	// Head heads /rules (HTML). Line is one rule: what it allows and its
	// project (HTML). None, Memory, NotReached and Unlisted say why a
	// server lists no rule.
	Head                               string
	Line                               func(action, resource, project string) string
	None, Memory, NotReached, Unlisted string
	// NoServers is /rules without any opencode server.
	NoServers string
	// BtnRevoke labels a Revoke button; the line's number follows.
	BtnRevoke string
	// RevokedBy says who revoked the rule allowing action on resource
	// (HTML).
	RevokedBy func(action, resource, who string) string
	// NotSaved is the toast of a Revoke whose rule is gone already.
	NotSaved string
}
