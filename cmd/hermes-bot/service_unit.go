package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"text/template"
)

// renderService fills the template of t's kind with t's paths.
func renderService(t *serviceTarget) ([]byte, error) {
	tmpl := userUnitTemplate
	switch {
	case t.manager == "launchd":
		tmpl = plistTemplate
	case t.system:
		tmpl = systemUnitTemplate
	}
	// A user unit names paths under the home folder with %h, as a person
	// writing it by hand would, so the file survives a renamed home.
	home := ""
	if t.manager == "systemd" && !t.system {
		home = t.home
	}
	funcs := template.FuncMap{
		"exec": func(p string) string { return execArg(unitPath(p, home)) },
		"path": func(p string) string { return unitPath(p, home) },
		// shell writes a path for a command in a comment, ~ for home.
		"shell": func(p string) string {
			if q := shellQuote(p); q != p || home == "" || !strings.HasPrefix(p, home+"/") {
				return q
			}
			return "~/" + strings.TrimPrefix(p, home+"/")
		},
		"xml": func(s string) (string, error) {
			var b strings.Builder
			err := xml.EscapeText(&b, []byte(s))
			return b.String(), err
		},
	}
	tp, err := template.New("service").Funcs(funcs).Parse(tmpl)
	if err != nil {
		return nil, fmt.Errorf("service: parse template: %w", err)
	}
	var b bytes.Buffer
	data := map[string]string{
		"Binary": t.binary, "EnvFile": t.envFile, "LogFile": t.logFile,
		"Label": launchdLabel, "StateDB": systemStateDB,
	}
	if err := tp.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("service: render: %w", err)
	}
	return b.Bytes(), nil
}

// unitPath writes an absolute path for a unit file: % doubled, since
// systemd expands specifiers, and under home as %h when home is set.
func unitPath(p, home string) string {
	esc := func(s string) string { return strings.ReplaceAll(s, "%", "%%") }
	if home != "" && home != "/" && strings.HasPrefix(p, home+"/") {
		return "%h/" + esc(strings.TrimPrefix(p, home+"/"))
	}
	return esc(p)
}

// execArg quotes one word of ExecStart=: systemd splits on white space,
// reads C escapes and expands $VARIABLES.
func execArg(s string) string {
	s = strings.ReplaceAll(s, "$", "$$")
	if !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	s = strings.ReplaceAll(s, `\`, `\\`)
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// The templates below, filled with the deploy defaults (see
// TestDeployFilesMatchTemplates), are the files in deploy/. Edit both
// together: go test ./cmd/hermes-bot -run TestDeployFiles -update
// rewrites deploy/ from these.

// unitRestart and unitSandbox are what both systemd units say alike.
const unitRestart = `Restart=on-failure
RestartSec=5s
# Exit status 2 is a configuration error: restarting does not fix it.
RestartPreventExitStatus=2
# On SIGTERM answers in flight get 15 s to finish.
TimeoutStopSec=30s
`

const unitSandbox = `RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
MemoryDenyWriteExecute=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallErrorNumber=EPERM

[Install]
`

const systemUnitTemplate = `# hermes-bot as a systemd system service: it runs from boot as a throw-away
# user (DynamicUser) in a tight sandbox, and keeps its store in
# /var/lib/hermes-bot. Settings: the EnvironmentFile below (chmod 600; see
# hermes-bot.env.example). "sudo hermes-bot service install --system" writes
# this file as /etc/systemd/system/hermes-bot.service with the real paths.
# Check the settings, then start it:
#   sudo HERMES_DB={{.StateDB}} hermes-bot check --env-file {{shell .EnvFile}}
#   sudo systemctl daemon-reload && sudo systemctl enable --now hermes-bot
# Its log: journalctl -u hermes-bot

[Unit]
Description=hermes-bot: answer opencode's questions from Telegram
Documentation=https://github.com/hermes-bot/hermes-bot#run-it-as-a-service
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
ExecStart={{exec .Binary}} serve
EnvironmentFile={{path .EnvFile}}
Environment=HERMES_DB={{.StateDB}}
` + unitRestart + `
# hermes-bot only speaks HTTP(S) to Telegram and opencode and writes its
# store: it needs no privilege, no device and no other file.
DynamicUser=yes
StateDirectory=hermes-bot
StateDirectoryMode=0700
UMask=0077
NoNewPrivileges=yes
CapabilityBoundingSet=
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
PrivateUsers=yes
ProtectClock=yes
ProtectControlGroups=yes
ProtectHostname=yes
ProtectKernelLogs=yes
ProtectKernelModules=yes
ProtectKernelTunables=yes
ProtectProc=invisible
ProcSubset=pid
` + unitSandbox + `WantedBy=multi-user.target
`

const userUnitTemplate = `# hermes-bot as a systemd user service: it runs as you while you are logged
# in, or from boot on after "loginctl enable-linger $USER". Settings: the
# EnvironmentFile below (chmod 600; see hermes-bot.env.example).
# "hermes-bot service install" writes this file as
# ~/.config/systemd/user/hermes-bot.service with the real paths.
# Check the settings, then start it:
#   hermes-bot check --env-file {{shell .EnvFile}}
#   systemctl --user daemon-reload && systemctl --user enable --now hermes-bot
# Its log: journalctl --user -u hermes-bot

[Unit]
Description=hermes-bot: answer opencode's questions from Telegram
Documentation=https://github.com/hermes-bot/hermes-bot#run-it-as-a-service

[Service]
Type=simple
ExecStart={{exec .Binary}} serve
EnvironmentFile={{path .EnvFile}}
# The store stays where hermes-bot puts it by default, and where
# "hermes-bot check" looks: $XDG_STATE_HOME/hermes-bot/pending.db, that is
# ~/.local/state/hermes-bot/pending.db. (Not StateDirectory=: older systemd,
# Debian 12's among them, puts that under ~/.config for user services.)
` + unitRestart + `
# Only sandboxing that works for any user: ProtectSystem=, PrivateTmp= and
# the like need user namespaces, which some systems deny to user services.
UMask=0077
NoNewPrivileges=yes
` + unitSandbox + `WantedBy=default.target
`

const plistTemplate = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!--
  hermes-bot as a launchd agent: it runs as you while you are logged in.
  Settings: the env-file named in ProgramArguments (chmod 600; see
  hermes-bot.env.example). "hermes-bot service install" writes this file as
  ~/Library/LaunchAgents/{{.Label}}.plist with the real paths,
  and creates the log folder, which launchd does not. Check the settings
  with "hermes-bot check" and the same env-file, then start it:
    launchctl load -w ~/Library/LaunchAgents/{{.Label}}.plist
-->
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>{{.Label}}</string>
	<key>ProgramArguments</key>
	<array>
		<string>{{xml .Binary}}</string>
		<string>serve</string>
		<string>--env-file</string>
		<string>{{xml .EnvFile}}</string>
		<string>--config-error-exit=0</string>
	</array>
	<key>RunAtLoad</key>
	<true/>
	<!--
	  Restart after a crash, not after a clean stop. launchd cannot tell
	  exit statuses apart: it would restart after a configuration error
	  (status 2) too, every ThrottleInterval, although a restart does not
	  fix a setting. So hermes-bot exits 0 after one (the flag above) and
	  stays stopped, as the systemd units' RestartPreventExitStatus=2 has
	  it; the error is in the log below.
	-->
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ThrottleInterval</key>
	<integer>10</integer>
	<key>Umask</key>
	<integer>63</integer>
	<key>StandardOutPath</key>
	<string>{{xml .LogFile}}</string>
	<key>StandardErrorPath</key>
	<string>{{xml .LogFile}}</string>
</dict>
</plist>
`
