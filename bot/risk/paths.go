package risk

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// editPath grades a file an edit permission would change. Edit patterns
// are relative to the project, so an absolute one or one climbing out
// with ".." is outside it.
func (a *assessor) editPath(p string) {
	q := normPath(p)
	switch {
	case q == "" || q == ".":
		a.add(Medium, ReasonEditsFilesInTheProject, "")
	case strings.ContainsAny(q, "*?["):
		a.add(High, ReasonEditsEveryFileMatching, quote(p))
	case isSystemPath(q):
		a.add(High, ReasonEditsASystemFile, p)
	case isSecretPath(q) || isShellStartup(q):
		a.add(High, ReasonEditsSecretsCredentialsOrStart, p)
	case isOutside(p, a.dir):
		a.add(High, ReasonEditsAFileOutsideThe, p)
	case isDotPath(q):
		a.add(High, ReasonEditsADotfileOrHidden, p)
	default:
		a.add(Medium, ReasonEditsAFileInThe, p)
	}
}

// readPath grades a file a read permission would show the agent.
func (a *assessor) readPath(p string) {
	q := normPath(p)
	switch {
	case isSecretPath(q):
		a.add(High, ReasonReadsSecretsOrCredentials, p)
	case isOutside(p, a.dir):
		a.add(Medium, ReasonReadsAFileOutsideThe, p)
	case strings.Contains(q, "$"):
		a.add(Medium, ReasonReadsAPathMadeOf, p)
	case isDotPath(q) || isDotGlob(q) || strings.Contains(q, "{") && strings.Contains(q, ","):
		a.add(Medium, ReasonReadsADotfile, p)
	}
}

// isOutside reports whether path p, relative to directory dir (the
// project, "" when unknown), may lie outside it: it climbs with "..", or
// it is absolute or under a home directory and not under dir.
func isOutside(p, dir string) bool {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if slices.Contains(strings.Split(p, "/"), "..") {
		return true
	}
	q := normPath(p)
	if q == "" || !isAbs(q) {
		return false
	}
	d := normPath(dir)
	if d == "" || !strings.HasPrefix(d, "/") && !isAbs(d) {
		return true
	}
	return q != d && !strings.HasPrefix(q, strings.TrimSuffix(d, "/")+"/")
}

// isDotGlob reports a wildcard that can match hidden files: one in a
// path segment that starts with a dot.
func isDotGlob(p string) bool {
	for _, seg := range strings.Split(normPath(p), "/") {
		if strings.HasPrefix(seg, ".") && strings.ContainsAny(seg, "*?[") {
			return true
		}
	}
	return false
}

// normPath cleans a path for matching, with forward slashes.
func normPath(p string) string {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if p == "" {
		return ""
	}
	return path.Clean(p)
}

// isAbs reports whether p is absolute or relative to a home directory,
// on any system opencode runs on.
func isAbs(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.HasPrefix(p, "$HOME") || strings.HasPrefix(p, "${HOME}") {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '/' || p[2] == '\\') &&
		('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}

// isScratchPath reports paths meant for throwaway files.
func isScratchPath(p string) bool {
	q := normPath(p)
	for _, d := range []string{"/tmp", "/var/tmp", "/private/tmp", "/dev/shm"} {
		if q == d || strings.HasPrefix(q, d+"/") {
			return true
		}
	}
	return q == "/dev/null"
}

var systemDirs = []string{
	"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/sys",
	"/proc", "/dev", "/var", "/opt", "/root", "/srv", "/snap", "/System", "/Library",
	"/Applications", "/private/etc", "/private/var",
	"c:/windows", "c:/program files",
}

// isSystemPath reports / itself and paths under the system's own
// directories (but not /dev/null and the other harmless devices).
func isSystemPath(p string) bool {
	q := normPath(p)
	if q == "/" || q == "/*" {
		return true
	}
	switch q {
	case "/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/random", "/dev/urandom":
		return false
	}
	if strings.HasPrefix(q, "/dev/fd/") || isScratchPath(q) {
		return false
	}
	lq := strings.ToLower(q)
	for _, d := range systemDirs {
		if lq == strings.ToLower(d) || strings.HasPrefix(lq, strings.ToLower(d)+"/") {
			return true
		}
	}
	return false
}

var diskDeviceRE = regexp.MustCompile(`^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper/|loop|sr)`)

func isDiskDevice(p string) bool { return diskDeviceRE.MatchString(normPath(p)) }

// isBroadPath reports targets whose recursive change reaches far: the
// root, a home directory, the whole project, a bare wildcard, or any
// system directory.
func isBroadPath(p string) bool {
	q := normPath(p)
	switch q {
	case "/", "/*", "~", "~/*", "$HOME", "${HOME}", "$HOME/*", "${HOME}/*", ".", "./*", "..", "../*", "*", ".*", "/home", "/Users":
		return true
	}
	if q == "~" || strings.HasPrefix(q, "~") && !strings.Contains(q[1:], "/") {
		return true // ~user
	}
	return isSystemPath(q) || strings.HasPrefix(q, "/home/") && strings.Count(q, "/") == 2 ||
		strings.HasPrefix(q, "/Users/") && strings.Count(q, "/") == 2
}

var secretNameRE = regexp.MustCompile(`(?i)(^|/)(\.env(\..*)?|\.envrc|\.netrc|\.npmrc|\.pypirc|\.pgpass|\.git-credentials|\.htpasswd|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|authorized_keys|known_hosts|[^/]*\.(pem|key|p12|pfx|keystore|jks|kdbx|ovpn)|credentials(\.json)?|secrets?(\.[a-z]+)?|shadow|gshadow|sudoers|master\.key|service-account[^/]*\.json)$`)

var secretDirRE = regexp.MustCompile(`(?i)(^|/)(\.ssh|\.gnupg|\.aws|\.azure|\.kube|\.docker|\.config/gcloud|\.password-store|\.vault-token|sudoers\.d)(/|$)`)

// isSecretPath reports files and folders that usually hold credentials.
func isSecretPath(p string) bool {
	q := normPath(p)
	return q != "" && (secretNameRE.MatchString(q) || secretDirRE.MatchString(q))
}

var startupRE = regexp.MustCompile(`(^|/)\.(bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|cshrc|tcshrc|kshrc|inputrc|config/fish/config\.fish)$`)

// isShellStartup reports shell start-up files, which run on every login.
func isShellStartup(p string) bool { return startupRE.MatchString(normPath(p)) }

// isDotPath reports a path with a hidden file or folder in it.
func isDotPath(p string) bool {
	for _, seg := range strings.Split(normPath(p), "/") {
		if len(seg) > 1 && seg[0] == '.' && seg != ".." {
			return true
		}
	}
	return false
}
