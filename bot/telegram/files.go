package telegram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// Files both ways: a photo or a document replying to a session's message
// goes to the agent with its caption as the prompt (steer.go), and /file
// PATH replying to one sends that file of the session's project.

const (
	// maxDownload is the largest file the Bot API lets a bot download.
	maxDownload = 20 << 20
	// maxSendFile is the largest file a bot may upload.
	maxSendFile = 50 << 20
	// cmdFile sends a project's file.
	cmdFile = "file"
)

// fileRef is a file a person sent, not yet fetched: held prompts keep
// this, not the bytes.
type fileRef struct {
	id, name string
	size     int64
}

// filesOf returns the photo (its largest size) or document m carries.
func filesOf(m *models.Message) []fileRef {
	switch {
	case len(m.Photo) > 0:
		p := m.Photo[len(m.Photo)-1]
		return []fileRef{{id: p.FileID, name: "photo.jpg", size: int64(p.FileSize)}}
	case m.Document != nil:
		return []fileRef{{id: m.Document.FileID, name: m.Document.FileName, size: m.Document.FileSize}}
	}
	return nil
}

var (
	// errFilesOff: MaxUpload is 0.
	errFilesOff = errors.New("files are off")
	// errFetch: Telegram did not give the file.
	errFetch = errors.New("could not fetch the file from Telegram")
)

// tooBigError is files larger than limit bytes.
type tooBigError struct{ limit int64 }

func (e *tooBigError) Error() string { return fmt.Sprintf("larger than %d bytes", e.limit) }

// checkSizes refuses files Telegram will not let us download, or more
// than MaxUpload together, by the sizes the update gives.
func (f *Frontend) checkSizes(files []fileRef) error {
	if len(files) == 0 {
		return nil
	}
	if f.cfg.MaxUpload <= 0 {
		return errFilesOff
	}
	var total int64
	for _, fr := range files {
		if fr.size > maxDownload {
			return &tooBigError{limit: maxDownload}
		}
		if total += fr.size; total > f.cfg.MaxUpload {
			return &tooBigError{limit: f.cfg.MaxUpload}
		}
	}
	return nil
}

// fetchFiles downloads files, within Telegram's limit and MaxUpload.
func (f *Frontend) fetchFiles(ctx context.Context, files []fileRef) ([]frontend.File, error) {
	if err := f.checkSizes(files); err != nil {
		return nil, err
	}
	out := make([]frontend.File, 0, len(files))
	left := f.cfg.MaxUpload
	for _, fr := range files {
		limit := min(left, maxDownload)
		data, err := f.download(ctx, fr, limit)
		if err != nil {
			return nil, err
		}
		left -= int64(len(data))
		out = append(out, frontend.File{Name: fr.name, Data: data})
	}
	return out, nil
}

// download fetches fr with getFile and the file link, at most limit
// bytes. The link holds the bot token: no error names it.
func (f *Frontend) download(ctx context.Context, fr fileRef, limit int64) ([]byte, error) {
	file, err := f.tg.GetFile(ctx, &tgbot.GetFileParams{FileID: fr.id})
	if err != nil {
		return nil, fmt.Errorf("get file %q: %w: %w", fr.name, errFetch, err)
	}
	if file.FileSize > limit {
		return nil, &tooBigError{limit: limit}
	}
	link := f.tg.FileDownloadLink(file)
	redact := NewRedactor(link, linkToken(link))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return nil, fmt.Errorf("download file %q: %w: %w", fr.name, errFetch, redact.Error(err))
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("download file %q: %w: %w", fr.name, errFetch, redact.Error(err))
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download file %q: HTTP %d: %w", fr.name, resp.StatusCode, errFetch)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("download file %q: %w: %w", fr.name, errFetch, redact.Error(err))
	}
	if int64(len(data)) > limit {
		return nil, &tooBigError{limit: limit}
	}
	return data, nil
}

// linkToken is the bot token in a file link (".../file/bot<token>/path"),
// to redact it alone too.
func linkToken(link string) string {
	_, rest, ok := strings.Cut(link, "/file/bot")
	if !ok {
		return ""
	}
	token, _, _ := strings.Cut(rest, "/")
	return token
}

// fileFailure says in one line why files did not reach the agent, or ""
// when err is no file's fault.
func (f *Frontend) fileFailure(err error) string {
	tx := f.text.Steer
	var big *tooBigError
	var large *opencode.FileTooLargeError
	switch {
	case errors.Is(err, errFilesOff):
		return tx.FilesOff
	case errors.As(err, &big):
		return tx.FileTooBig(sizeText(big.limit))
	case errors.As(err, &large):
		return tx.FileTooBig(sizeText(large.Max))
	case errors.Is(err, frontend.ErrNoImages):
		return tx.NoImages
	case errors.Is(err, frontend.ErrFileRefused):
		return tx.FileKind
	case errors.Is(err, errFetch):
		return tx.FileFetch
	}
	return ""
}

// sizeText says n bytes in MB or KB when whole, else in bytes.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// The reasons a project file is not sent.
var (
	errOutside = errors.New("path leads outside the project")
	errMissing = errors.New("no such file in the project")
	errKind    = errors.New("not a regular file")
	errNoPath  = errors.New("no valid path")
	errEmpty   = errors.New("the file is empty")
)

// projectFile reads file path of project dir, at most limit bytes: a
// regular file whose real path, symlinks resolved, is inside dir's real
// path. It returns its path relative to the project.
func projectFile(dir, path string, limit int64) (string, []byte, error) {
	if path == "" || strings.ContainsRune(path, 0) || dir == "" {
		return "", nil, errNoPath
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", nil, fmt.Errorf("project %s: %w: %w", dir, errMissing, err)
	}
	if root == filepath.Dir(root) {
		// A session run at / has no project to keep a path inside.
		return "", nil, fmt.Errorf("project %s is the root folder: %w", dir, errOutside)
	}
	candidate := path
	if !filepath.IsAbs(candidate) {
		candidate = filepath.Join(root, candidate)
	}
	real, err := filepath.EvalSymlinks(candidate)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("file %s: %w", path, errMissing)
		}
		return "", nil, fmt.Errorf("file %s: %w: %w", path, errMissing, err)
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", nil, fmt.Errorf("file %s: %w", path, errOutside)
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", nil, fmt.Errorf("file %s: %w: %w", path, errMissing, err)
	}
	if !info.Mode().IsRegular() {
		return "", nil, fmt.Errorf("file %s: %w", path, errKind)
	}
	// Opened inside the project's root, non-blocking: a link swapped in
	// since cannot lead out, nor a FIFO swapped in hang the handler.
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", nil, fmt.Errorf("project %s: %w: %w", dir, errMissing, err)
	}
	defer func() { _ = r.Close() }()
	fh, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", nil, fmt.Errorf("file %s: %w: %w", path, errOutside, err)
	}
	defer func() { _ = fh.Close() }()
	if info, err = fh.Stat(); err != nil || !info.Mode().IsRegular() {
		return "", nil, fmt.Errorf("file %s: %w", path, errKind)
	}
	if info.Size() > limit {
		return "", nil, &tooBigError{limit: limit}
	}
	data, err := io.ReadAll(io.LimitReader(fh, limit+1))
	switch {
	case err != nil:
		return "", nil, fmt.Errorf("read file %s: %w", path, err)
	case int64(len(data)) > limit:
		return "", nil, &tooBigError{limit: limit}
	case len(data) == 0:
		return "", nil, fmt.Errorf("file %s: %w", path, errEmpty)
	}
	return rel, data, nil
}

// fileCommand answers /file PATH replying to a message about a session:
// it sends that file of the session's project, or says why not. The
// caller checked the chat and that the user may answer.
func (f *Frontend) fileCommand(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, text string) {
	tx := f.text.Steer
	reply := func(line string) { f.replyLine(ctx, log, m, line) }
	if !f.steering() {
		reply(tx.Off)
		return
	}
	if !f.maySteer(m.From.ID) {
		return
	}
	ref, ok := f.repliedSession(ctx, core, m)
	if !ok || ref.Directory == "" {
		reply(tx.FileHow)
		return
	}
	if f.cfg.MaxUpload <= 0 {
		reply(tx.FilesOff)
		return
	}
	path := commandArgs(text)
	log = log.With().Str("user", userOf(m.From).DisplayName()).Str("directory", ref.Directory).Str("path", path).Logger()
	rel, data, err := projectFile(ref.Directory, path, min(f.cfg.MaxUpload, maxSendFile))
	if err != nil {
		log.Info().Err(err).Msg("steering: /file refused")
		var big *tooBigError
		switch {
		case errors.As(err, &big):
			reply(tx.FileTooBig(sizeText(big.limit)))
		case errors.Is(err, errOutside):
			reply(tx.FileRefused(tx.FileOutsideReason))
		case errors.Is(err, errKind):
			reply(tx.FileRefused(tx.FileKindReason))
		case errors.Is(err, errNoPath):
			reply(tx.FileRefused(tx.FileNoPath))
		case errors.Is(err, errEmpty):
			reply(tx.FileRefused(tx.FileEmptyReason))
		default:
			reply(tx.FileRefused(tx.FileMissingReason))
		}
		return
	}
	_, err = f.tg.SendDocument(ctx, &tgbot.SendDocumentParams{
		ChatID: m.Chat.ID, MessageThreadID: threadOf(m),
		Document:        &models.InputFileUpload{Filename: filepath.Base(rel), Data: bytes.NewReader(data)},
		Caption:         plain(rel, maxCaption),
		ReplyParameters: &models.ReplyParameters{MessageID: m.ID, AllowSendingWithoutReply: true},
	})
	if err != nil {
		log.Warn().Err(err).Msg("steering: could not send the project file")
		return
	}
	log.Info().Int("bytes", len(data)).Msg("steering: project file sent")
}

// fileMessage takes a message without text: a photo or a document
// replying to a session's message is a prompt with its caption, and one
// with /new as its caption the first of a new session. Anything else is
// not for us.
func (f *Frontend) fileMessage(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message) {
	files := filesOf(m)
	if caption := strings.TrimSpace(m.Caption); len(files) > 0 && strings.HasPrefix(caption, "/") {
		f.handleCommand(ctx, core, log, m, caption) // /new as a caption
		return
	}
	reply := m.ReplyToMessage
	if len(files) == 0 || reply == nil || reply.ForumTopicCreated != nil {
		return
	}
	t := typed{
		At:         place{Chat: m.Chat.ID, Message: m.ID, Thread: threadOf(m)},
		Text:       strings.TrimSpace(m.Caption),
		User:       userOf(m.From),
		ReplyTo:    place{Chat: m.Chat.ID, Message: reply.ID, Thread: threadOf(reply)},
		ReplyToBot: reply.From != nil && reply.From.ID == f.cfg.BotID,
	}
	if !f.steerMessage(ctx, core, log, m, t, files) {
		log.Debug().Msg("ignoring a file that replies to no session's message")
	}
}
