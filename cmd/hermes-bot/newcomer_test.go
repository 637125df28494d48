package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// repoRoot is the module's root, seen from this package's folder, where
// go test runs it.
const repoRoot = "../.."

// gitignored reports whether name, a path relative to the repository root,
// matches a pattern of the root's .gitignore and no negation after it. It
// knows only what that file uses: plain globs, a leading / for the root,
// and ! to re-include.
func gitignored(t *testing.T, name string) bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	ignored := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		p := strings.TrimSpace(sc.Text())
		if p == "" || p[0] == '#' {
			continue
		}
		negate := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		target := filepath.Base(name) // a pattern without / matches at any depth
		if strings.HasPrefix(p, "/") {
			p, target = p[1:], name
		}
		if ok, err := filepath.Match(p, target); err != nil {
			t.Fatalf(".gitignore pattern %q: %v", p, err)
		} else if ok {
			ignored = !negate
		}
	}
	return ignored
}

// TestEnvFileIsIgnoredByGit: the README has people put the bot token in
// hermes-bot.env at the root of the tree; "git add ." must not take it.
func TestEnvFileIsIgnoredByGit(t *testing.T) {
	for _, name := range []string{"hermes-bot.env", "deploy/staging.env"} {
		if !gitignored(t, name) {
			t.Errorf(".gitignore does not ignore %s", name)
		}
	}
	if gitignored(t, "deploy/hermes-bot.env.example") {
		t.Error(".gitignore ignores deploy/hermes-bot.env.example, which must stay tracked")
	}

	// The same, asked of git itself where the tree is a git checkout.
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed; .gitignore was read above")
	}
	if exec.Command(git, "-C", repoRoot, "rev-parse", "--is-inside-work-tree").Run() != nil {
		t.Skip("not a git checkout; .gitignore was read above")
	}
	// --no-index: judge by the patterns alone, as for a file not added yet.
	if out, err := exec.Command(git, "-C", repoRoot, "check-ignore", "--no-index", "hermes-bot.env").CombinedOutput(); err != nil {
		t.Errorf("git check-ignore hermes-bot.env: %v %s", err, out)
	}
	if err := exec.Command(git, "-C", repoRoot, "check-ignore", "--no-index", "deploy/hermes-bot.env.example").Run(); err == nil {
		t.Error("git ignores deploy/hermes-bot.env.example")
	}
}

// TestNoCommentCitesAnIssue: comments and docs are read without the issue
// tracker: "the figures of issue N" tells a reader of go doc nothing.
func TestNoCommentCitesAnIssue(t *testing.T) {
	cite := regexp.MustCompile(`(?i)\bissue (#?\d+)`)
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Ext(path) != ".go" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := cite.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q, which no reader of the code can see: say what it means instead", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readmeSection returns the README's section under heading (a "## "
// line), up to the next one.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	return docSection(t, "README.md", heading)
}

// docSection returns the section under heading (a "## " line) of the
// Markdown file at path, relative to the repository root (README.md,
// docs/operations.md, …), up to the next one.
func docSection(t *testing.T, path, heading string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", path, heading)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return section
}

// guideFiles are the README and the files of docs/, relative to the
// repository root.
func guideFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(repoRoot, d)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

var (
	mdLinkRE     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdCodeSpanRE = regexp.MustCompile("`[^`]*`")
)

// mdAnchors returns the anchors GitHub gives the headings of a Markdown
// text: lower case, spaces as "-", punctuation but "-" and "_" dropped.
// Headings inside fenced code are not headings.
func mdAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchors[b.String()] = true
	}
	return anchors
}

// TestGuideLinksResolve: every relative link of the README and of docs/
// names a file the repository has, and every #anchor a heading of that
// file, so moving a section cannot leave a link behind.
func TestGuideLinksResolve(t *testing.T) {
	for _, file := range guideFiles(t) {
		data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		fenced := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if fenced {
				continue
			}
			for _, m := range mdLinkRE.FindAllStringSubmatch(mdCodeSpanRE.ReplaceAllString(line, ""), -1) {
				link := m[1]
				if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
					continue
				}
				target, anchor, _ := strings.Cut(link, "#")
				path := file
				if target != "" {
					path = filepath.ToSlash(filepath.Join(filepath.Dir(file), target))
				}
				body, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(path)))
				if err != nil {
					if _, serr := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(path))); serr != nil {
						t.Errorf("%s:%d links to %s, which the repository does not have", file, i+1, link)
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(path, ".md") && !mdAnchors(string(body))[anchor] {
					t.Errorf("%s:%d links to %s: %s has no heading with anchor #%s", file, i+1, link, path, anchor)
				}
			}
		}
	}
}

// TestReadmeRunItSaysWhatTheCommandsNeed: the test command installs
// opencode with npm; a newcomer must learn that, and the Go version,
// before running it, not from a skipped test.
func TestReadmeRunItSaysWhatTheCommandsNeed(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if goVersion == nil {
		t.Fatal("go.mod names no go version")
	}
	runIt := readmeSection(t, "Run it")
	for _, want := range []string{
		"go run ./cmd/hermes-bot --env-file hermes-bot.env", "go test -race -timeout 30m ./...", // the two commands
		"**Go " + string(goVersion[1]) + "**",
		"**npm**", "network to the npm registry", "MB of disk", "~/.cache/hermes-bot", "~/.npm",
		"HERMES_E2E=0 go test -race ./...", // the tests that need no npm
		"`.gitignore` lists `*.env`",
		"**gcc**", "$(go env GOPATH)/bin", "few minutes", "installs opencode", // a newcomer's traps
	} {
		if !strings.Contains(runIt, want) {
			t.Errorf("README \"Run it\" does not say %q", want)
		}
	}
	// opencode attach without the password fails with 401.
	if setup := readmeSection(t, "Five-minute set-up"); !strings.Contains(setup, "OPENCODE_SERVER_PASSWORD=choose-one opencode attach") {
		t.Error("README set-up does not show opencode attach with the password")
	}
}

// TestReadmeTellsHowTheServiceRestarts: what the README says about
// restarts after a configuration error is what the service files do
// (TestServiceNotRestartedAfterConfigError checks that they do it).
func TestReadmeTellsHowTheServiceRestarts(t *testing.T) {
	service := readmeSection(t, "Run it as a service")
	for _, want := range []string{
		"`RestartPreventExitStatus=2`",
		"`hermes-bot serve --env-file … --config-error-exit=0`",
		"`SuccessfulExit` false",
	} {
		if !strings.Contains(service, want) {
			t.Errorf("README \"Run it as a service\" does not say %s", want)
		}
	}
	if strings.Count(userUnitTemplate+systemUnitTemplate, "RestartPreventExitStatus=2") != 2 {
		t.Error("not both systemd units have RestartPreventExitStatus=2")
	}
	if !strings.Contains(plistTemplate, "<string>--config-error-exit=0</string>") ||
		!strings.Contains(plistTemplate, "<key>SuccessfulExit</key>\n\t\t<false/>") {
		t.Error("the launchd agent does not run serve with --config-error-exit=0 under KeepAlive SuccessfulExit false")
	}
}

// TestReadmeOffersTheDemoFirst: the README's first screen, before any
// set-up, offers the demo, which needs no bot, before the command that
// needs one. (The test of "Run it" checks that it keeps its two commands.)
func TestReadmeOffersTheDemoFirst(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, ok := strings.Cut(string(data), "\n## ")
	if !ok {
		t.Fatal("README has no section")
	}
	for _, want := range []string{"go run ./cmd/hermes-demo", "no bot needed"} {
		if !strings.Contains(first, want) {
			t.Errorf("README's first screen does not say %q", want)
		}
	}
	if strings.Index(string(data), "go run ./cmd/hermes-demo") > strings.Index(string(data), "go run ./cmd/hermes-bot --env-file") {
		t.Error("README shows the demo after the command that needs a bot")
	}
}

// TestReadmeDiagramLinesUp: in the README's first diagram, every corner
// and arrow of a line stands under a line or an arrow of the line above,
// in monospace.
func TestReadmeDiagramLinesUp(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]rune
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "    ") && (len(lines) > 0 || strings.Contains(l, "opencode serve")) {
			lines = append(lines, []rune(l))
		} else if len(lines) > 0 {
			break
		}
	}
	if len(lines) < 3 {
		t.Fatalf("no diagram of three lines or more found: %q", lines)
	}
	for i := 1; i < len(lines); i++ {
		for col, r := range lines[i] {
			if !strings.ContainsRune("▲│└┘", r) {
				continue
			}
			// Under a box's name on the first line, under ▲ or │ after.
			ok := col < len(lines[i-1]) && (i == 1 && unicode.IsLetter(lines[i-1][col]) || strings.ContainsRune("▲│", lines[i-1][col]))
			if !ok {
				t.Errorf("line %d, column %d: %q stands under nothing of %q", i+1, col, r, string(lines[i-1]))
			}
		}
	}
}
