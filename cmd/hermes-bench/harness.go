package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

const (
	benchToken  = "424242:hermes-bench-token"
	benchChatID = int64(-1001234567890)
	// telegramPollWait is how long the fake holds an empty getUpdates, as
	// Telegram does for the 50 s timeout hermes-bot asks for: idle polling
	// then costs what it costs against the real API.
	telegramPollWait = 50 * time.Second
	// stopTimeout bounds a graceful stop before the process is killed.
	stopTimeout = 20 * time.Second
)

// presser is the Telegram user who presses buttons; hermes-bot is told to
// accept only them, as a deployment with an allow-list would.
var presser = telegramtest.User{ID: 4242, FirstName: "Bench", Username: "bench"}

// buildBinary builds cmd/hermes-bot with "go build" into dir and returns
// the binary's path. With pprof set, the profiling hook (pprofOverlay) is
// laid over the package, which stays untouched on disk.
func buildBinary(ctx context.Context, dir string, pprof bool) (string, error) {
	const pkg = "github.com/hermes-bot/hermes-bot/cmd/hermes-bot"
	bin := filepath.Join(dir, "hermes-bot")
	args := []string{"build", "-o", bin}
	if pprof {
		out, err := exec.CommandContext(ctx, "go", "list", "-f", "{{.Dir}}", pkg).Output()
		if err != nil {
			return "", fmt.Errorf("find %s (run hermes-bench inside the hermes-bot module): %w", pkg, err)
		}
		src := filepath.Join(dir, "zz_hermes_bench_pprof.go")
		if err := os.WriteFile(src, []byte(pprofOverlay), 0o600); err != nil {
			return "", fmt.Errorf("write profiling hook: %w", err)
		}
		overlay, err := json.Marshal(map[string]map[string]string{"Replace": {
			filepath.Join(strings.TrimSpace(string(out)), "zz_hermes_bench_pprof.go"): src,
		}})
		if err != nil {
			return "", fmt.Errorf("overlay: %w", err)
		}
		ovPath := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(ovPath, overlay, 0o600); err != nil {
			return "", fmt.Errorf("write overlay: %w", err)
		}
		args = append(args, "-overlay", ovPath)
	}
	args = append(args, pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	if runtime.GOOS == "linux" {
		// As the README installs it on Linux: a static binary, which maps
		// no libc.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build hermes-bot: %w\n%s", err, out)
	}
	return bin, nil
}

// pprofOverlay is compiled into hermes-bot only with -pprof. It profiles
// the CPU from start-up; SIGUSR1 stops that and writes the heap and
// allocation profiles, then logs "hermes-bench profile written".
const pprofOverlay = `package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"syscall"
)

func init() {
	dir, phase := os.Getenv("HERMES_BENCH_PPROF_DIR"), os.Getenv("HERMES_BENCH_PPROF_PHASE")
	if dir == "" {
		return
	}
	cpu, err := os.Create(filepath.Join(dir, "cpu-"+phase+".pprof"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "hermes-bench profile:", err)
		return
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		fmt.Fprintln(os.Stderr, "hermes-bench profile:", err)
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		<-sig
		pprof.StopCPUProfile()
		_ = cpu.Close()
		runtime.GC()
		for _, name := range []string{"heap", "allocs"} {
			f, err := os.Create(filepath.Join(dir, name+"-"+phase+".pprof"))
			if err != nil {
				fmt.Fprintln(os.Stderr, "hermes-bench profile:", err)
				continue
			}
			_ = pprof.Lookup(name).WriteTo(f, 0)
			_ = f.Close()
		}
		fmt.Fprintln(os.Stderr, ` + "`" + `{"level":"info","message":"hermes-bench profile written"}` + "`" + `)
	}()
}
`

// rig is the fakes one measurement runs hermes-bot against.
type rig struct {
	tg *telegramtest.Server
	oc *opencodetest.Server

	// nextMsg is the ID of the next message the fake Telegram will give in
	// the chat: messages are numbered 1, 2, … per chat.
	nextMsg int
	// seq numbers the questions rig makes, so each message names its own.
	seq int

	// dirs are the projects' directories, as GET /project lists them.
	dirs []string

	stopBeats chan struct{}
	beating   sync.WaitGroup
}

// heartbeatEvery is how often opencode sends server.heartbeat.
const heartbeatEvery = 10 * time.Second

// newRig starts the fakes, with dirCount projects in the fake opencode.
func newRig(dirCount int) (*rig, error) {
	r := &rig{
		tg:      telegramtest.NewServer(benchToken, telegramtest.WithMaxPollWait(telegramPollWait)),
		oc:      opencodetest.NewServer(),
		nextMsg: 1,
	}
	if err := r.tg.AddChat(benchChatID, telegramtest.ChatSupergroup); err != nil {
		r.tg.Close()
		r.oc.Close()
		return nil, fmt.Errorf("fake telegram: %w", err)
	}
	dirs := benchDirs(dirCount)
	projects := make([]opencode.Project, len(dirs))
	for i, d := range dirs {
		projects[i] = opencode.Project{ID: fmt.Sprintf("prj_bench%02d", i), Worktree: d}
	}
	r.oc.SetProjects(projects)
	r.dirs = dirs
	// Like opencode, the fake stream carries a heartbeat every 10 s.
	r.stopBeats = make(chan struct{})
	r.beating.Add(1)
	go func() {
		defer r.beating.Done()
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-r.stopBeats:
				return
			case <-t.C:
				r.oc.SendEvent("", opencode.TypeServerHeartbeat, struct{}{})
			}
		}
	}()
	return r, nil
}

func (r *rig) close() {
	close(r.stopBeats)
	r.beating.Wait()
	r.tg.Close()
	r.oc.Close()
}

// env is hermes-bot's environment: the fakes, the store at db, no pacing.
func (r *rig) env(db string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Dir(db),
		"TELEGRAM_BOT_TOKEN=" + benchToken,
		"TELEGRAM_CHAT_ID=" + strconv.FormatInt(benchChatID, 10),
		"TELEGRAM_ALLOWED_USER_IDS=" + strconv.FormatInt(presser.ID, 10),
		"TELEGRAM_API_URL=" + r.tg.URL,
		"OPENCODE_URL=" + r.oc.URL,
		"HERMES_DB=" + db,
		"HERMES_TELEGRAM_RATE=0",
		"HERMES_LOG_FORMAT=json",
		"HERMES_LOG_LEVEL=info",
	}
}

// question is one question.asked the rig sends.
type question struct {
	seq int
	dir string
	req opencode.QuestionRequest
}

// benchDirs are the projects' directories.
func benchDirs(n int) []string {
	dirs := make([]string, max(n, 1))
	for i := range dirs {
		dirs[i] = fmt.Sprintf("/home/user/projects/service-%02d", i)
	}
	return dirs
}

func sessionID(i int) string { return fmt.Sprintf("ses_bench%06d", i) }

// newQuestion makes the next question, of session sess in its directory.
// Its text carries "#<seq>:" so the message posted for it can be told
// apart.
func (r *rig) newQuestion(sess int) question {
	r.seq++
	return question{seq: r.seq, dir: r.sessionDir(sess), req: opencode.QuestionRequest{
		ID:        fmt.Sprintf("que_bench%09d", r.seq),
		SessionID: sessionID(sess),
		Questions: []opencode.Question{{
			Question: fmt.Sprintf("Bench question #%d: which database should I use?", r.seq),
			Header:   "Database",
			Options:  []opencode.Option{{Label: "Postgres", Description: "relational"}, {Label: "SQLite", Description: "embedded"}},
		}},
		Tool: &opencode.ToolRef{MessageID: fmt.Sprintf("msg_bench%09d", r.seq), CallID: fmt.Sprintf("call_bench%09d", r.seq)},
	}}
}

// sessionDir is the directory session i works in.
func (r *rig) sessionDir(i int) string { return r.dirs[i%len(r.dirs)] }

// addSessions makes the fake know sessions 0…n-1, so their titles are
// found as they would be in opencode.
func (r *rig) addSessions(n int) {
	for i := range n {
		r.oc.AddSession(opencode.Session{ID: sessionID(i), Title: fmt.Sprintf("Bench session %d", i), Directory: r.sessionDir(i)})
	}
}

// seqOf reads the "#<seq>:" a question's message carries; 0 if none.
func seqOf(text string) int {
	_, rest, ok := strings.Cut(text, "Bench question #")
	if !ok {
		return 0
	}
	digits, _, ok := strings.Cut(rest, ":")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 0
	}
	return n
}

// asked is what became of one question: when its record was handed to
// the fake's event stream, when the fake Telegram stored its message, and
// that message's ID.
type asked struct {
	sent, posted time.Time
	msgID        int
}

func (a asked) latency() time.Duration { return a.posted.Sub(a.sent) }

// ask sends qs on the event stream, one after the other as fast as the
// fake takes them, and waits until hermes-bot has posted each.
func (r *rig) ask(ctx context.Context, qs []question) ([]asked, error) {
	want := make(map[int]int, len(qs)) // seq → index
	for i, q := range qs {
		want[q.seq] = i
	}
	out := make([]asked, len(qs))
	var unexpected []string
	collected := make(chan error, 1)
	go func() {
		found := 0
		collected <- r.tg.Wait(ctx, func() bool {
			at := time.Now()
			for found < len(qs) {
				m, ok := r.tg.Message(benchChatID, r.nextMsg)
				if !ok {
					break
				}
				r.nextMsg++
				i, ours := want[seqOf(m.Text)]
				if !ours || out[i].msgID != 0 {
					unexpected = append(unexpected, m.PlainText)
					continue
				}
				out[i].posted, out[i].msgID = at, m.ID
				found++
			}
			return found == len(qs)
		})
	}()
	sent := make([]time.Time, len(qs))
	for i, q := range qs {
		sent[i] = time.Now()
		r.oc.AddQuestion(q.dir, q.req)
	}
	if err := <-collected; err != nil {
		return nil, fmt.Errorf("wait for %d questions to be posted: %w", len(qs), err)
	}
	if len(unexpected) > 0 {
		return nil, fmt.Errorf("hermes-bot posted messages that are not the questions asked: %q", unexpected)
	}
	for i := range out {
		out[i].sent = sent[i]
	}
	return out, nil
}

func msgIDs(as []asked) []int {
	ids := make([]int, len(as))
	for i, a := range as {
		ids[i] = a.msgID
	}
	return ids
}

// dismiss answers qs in opencode, as the TUI would, and waits until
// hermes-bot has edited each message to say so: the bridge is idle again.
func (r *rig) dismiss(ctx context.Context, qs []question, as []asked) error {
	for _, q := range qs {
		if !r.oc.AnswerQuestion(q.dir, q.req.ID, [][]string{{"Postgres"}}) {
			return fmt.Errorf("dismiss %s: not pending in the fake opencode", q.req.ID)
		}
	}
	return r.waitEdited(ctx, msgIDs(as))
}

// waitEdited waits until every message of ids was edited at least once.
func (r *rig) waitEdited(ctx context.Context, ids []int) error {
	left := ids
	err := r.tg.Wait(ctx, func() bool {
		for len(left) > 0 {
			m, ok := r.tg.Message(benchChatID, left[0])
			if !ok || m.Edits == 0 {
				return false
			}
			left = left[1:]
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("wait for %d messages to be edited: %w", len(left), err)
	}
	return nil
}

// start runs hermes-bot against the rig with the store at db. phase names
// the profiles written with -pprof.
func (r *rig) start(o *options, db, phase string) (*botProc, error) {
	env := r.env(db)
	if o.pprofDir != "" {
		env = append(env, "HERMES_BENCH_PPROF_DIR="+o.pprofDir, "HERMES_BENCH_PPROF_PHASE="+phase)
	}
	return startBot(o.bin, env, filepath.Join(o.scratch, phase+".log"))
}

// finish writes the profiles when profiling, then stops the process
// gracefully, and reports what it logged at warn level or above.
func (r *rig) finish(ctx context.Context, o *options, p *botProc) error {
	if o.pprofDir != "" {
		if err := p.profile(ctx); err != nil {
			p.kill()
			return fmt.Errorf("write profiles: %w", err)
		}
	}
	if err := p.stop(); err != nil {
		return err
	}
	if probs := p.logs.problems(); len(probs) > 0 {
		fmt.Fprintf(o.progress, "hermes-bot logged %d warnings or errors, first: %s\n", len(probs), probs[0])
	}
	return nil
}

// posted waits until hermes-bot has logged that it posted q, which it
// does after saving the message ID: the request can be pressed.
func (p *botProc) posted(ctx context.Context, q question) error {
	_, err := p.logs.wait(ctx, func(l logLine) bool { return l.Message == "question posted" && l.RequestID == q.req.ID })
	if err != nil {
		return fmt.Errorf("wait for %s to be posted: %w", q.req.ID, err)
	}
	return nil
}

// botProc is a running hermes-bot.
type botProc struct {
	cmd   *exec.Cmd
	start time.Time // just before the process was started
	logs  *logWatch
	done  chan struct{}
	err   error // set when done closes
}

// startBot starts bin with env. Its stderr (the JSON log) is watched and
// copied to logPath (kept with -keep); its stdout is dropped.
func startBot(bin string, env []string, logPath string) (*botProc, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("start hermes-bot: log file: %w", err)
	}
	cmd := exec.Command(bin)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start hermes-bot: %w", err)
	}
	p := &botProc{cmd: cmd, logs: newLogWatch(), done: make(chan struct{})}
	p.start = time.Now()
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start hermes-bot: %w", err)
	}
	logsRead := make(chan struct{})
	go func() {
		defer close(logsRead)
		defer logFile.Close()
		p.logs.read(io.TeeReader(stderr, logFile))
	}()
	go func() {
		// Wait closes the pipe: the log must be read to its end first.
		<-logsRead
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *botProc) pid() int { return p.cmd.Process.Pid }

// signal sends sig to the process, unless it has exited.
func (p *botProc) signal(sig syscall.Signal) error {
	select {
	case <-p.done:
		return fmt.Errorf("hermes-bot exited early: %v; log:\n%s", p.err, p.logs.tail(20))
	default:
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("signal hermes-bot: %w", err)
	}
	return nil
}

// stop ends the process with SIGTERM, killing it if it does not exit
// within stopTimeout. A clean exit returns nil.
func (p *botProc) stop() error {
	if err := p.signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-p.done:
		if p.err != nil {
			return fmt.Errorf("hermes-bot exited with %v; log:\n%s", p.err, p.logs.tail(20))
		}
		return nil
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("hermes-bot did not stop within %s of SIGTERM", stopTimeout)
	}
}

// kill ends the process at once; for error paths.
func (p *botProc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// profile asks a binary built with -pprof to write its profiles, and
// waits until it has.
func (p *botProc) profile(ctx context.Context) error {
	if err := p.signal(syscall.SIGUSR1); err != nil {
		return err
	}
	_, err := p.logs.wait(ctx, func(l logLine) bool { return l.Message == "hermes-bench profile written" })
	return err
}

// logLine is one JSON line of hermes-bot's log, stamped when it was read.
type logLine struct {
	at        time.Time
	raw       string
	Level     string `json:"level"`
	Message   string `json:"message"`
	RequestID string `json:"requestID"`
}

// logWatch collects a process's log lines as they come.
type logWatch struct {
	mu      sync.Mutex
	lines   []logLine
	eof     bool
	changed chan struct{} // closed and replaced on every line
}

func newLogWatch() *logWatch { return &logWatch{changed: make(chan struct{})} }

func (w *logWatch) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		l := logLine{at: time.Now(), raw: sc.Text()}
		_ = json.Unmarshal(sc.Bytes(), &l) // a line that is not JSON keeps only raw
		w.mu.Lock()
		w.lines = append(w.lines, l)
		close(w.changed)
		w.changed = make(chan struct{})
		w.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, r)
	w.mu.Lock()
	w.eof = true
	close(w.changed)
	w.mu.Unlock()
}

// errLogEnded is returned by wait when the log ends without the line.
var errLogEnded = errors.New("hermes-bot's log ended")

// wait returns the first line that match accepts, waiting for it.
func (w *logWatch) wait(ctx context.Context, match func(logLine) bool) (logLine, error) {
	seen := 0
	for {
		w.mu.Lock()
		lines, eof, ch := w.lines, w.eof, w.changed
		w.mu.Unlock()
		for ; seen < len(lines); seen++ {
			if match(lines[seen]) {
				return lines[seen], nil
			}
		}
		if eof {
			return logLine{}, errLogEnded
		}
		select {
		case <-ctx.Done():
			return logLine{}, fmt.Errorf("wait for a log line: %w", ctx.Err())
		case <-ch:
		}
	}
}

// problems returns the lines logged at warn level or above.
func (w *logWatch) problems() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, l := range w.lines {
		switch l.Level {
		case "warn", "error", "fatal", "panic":
			out = append(out, l.raw)
		}
	}
	return out
}

// tail returns the last n lines, for error messages.
func (w *logWatch) tail(n int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for _, l := range w.lines[max(0, len(w.lines)-n):] {
		b.WriteString(l.raw)
		b.WriteByte('\n')
	}
	return b.String()
}
