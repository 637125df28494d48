package opencode

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// DefaultMaxUpload is PromptFiles' cap on the files of one prompt when the
// caller gives none: they travel base64-encoded in one JSON body.
const DefaultMaxUpload = 10 << 20

// File is a file sent to the agent with a prompt: an image, which the
// model sees as an image, or a text file, which opencode hands the model
// as the file's text under its name.
type File struct {
	Name string
	// MIME is "text/plain" or one of the image types NewFile knows.
	MIME string
	Data []byte
}

// imageTypes are the image formats models take, as sniffed.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// NewFile makes a File of data by what it holds, whatever its name says:
// a PNG, JPEG, GIF or WebP image is an image; UTF-8 text without NUL bytes
// is text/plain. Anything else (a PDF, an archive, a binary) is refused
// with an error wrapping ErrNotAccepted that says so.
func NewFile(name string, data []byte) (File, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "file"
	}
	sniffed, _, _ := strings.Cut(http.DetectContentType(data), ";")
	if slices.Contains(imageTypes, sniffed) {
		return File{Name: name, MIME: sniffed, Data: data}, nil
	}
	if utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
		return File{Name: name, MIME: "text/plain", Data: data}, nil
	}
	return File{}, fmt.Errorf("file %q (%s): only images (PNG, JPEG, GIF, WebP) and UTF-8 text files can go to the agent: %w",
		name, sniffed, ErrNotAccepted)
}

// IsImage reports whether f goes to the model as an image.
func (f File) IsImage() bool { return strings.HasPrefix(f.MIME, "image/") }

// dataURL is f as the data: URL opencode takes for an uploaded file.
func (f File) dataURL() string {
	return "data:" + f.MIME + ";base64," + base64.StdEncoding.EncodeToString(f.Data)
}

// FileTooLargeError is PromptFiles' error when the files of a prompt pass
// its cap. It wraps ErrNotAccepted.
type FileTooLargeError struct {
	// Name is the file that passed the cap.
	Name string
	// Size is the files' total size up to and with Name; Max the cap.
	Size, Max int64
}

func (e *FileTooLargeError) Error() string {
	return fmt.Sprintf("file %q: the files come to %d bytes, more than the %d allowed", e.Name, e.Size, e.Max)
}

// Unwrap makes the error ErrNotAccepted: sending it again will not help.
func (e *FileTooLargeError) Unwrap() error { return ErrNotAccepted }

// PromptFiles sends text and files to session id of dir as the person's
// next message, as PromptAsync does; text may be empty when files are
// not. Files of more than maxBytes together (DefaultMaxUpload when ≤ 0)
// are refused with a *FileTooLargeError before anything is sent. Whether
// the model sees an image depends on its configuration: see SessionModel.
func (c *Client) PromptFiles(ctx context.Context, dir, id, text string, files []File, maxBytes int64) error {
	if id == "" || strings.TrimSpace(text) == "" && len(files) == 0 {
		return fmt.Errorf("prompt session %q: no session, or neither text nor files: %w", id, ErrNotAccepted)
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxUpload
	}
	var total int64
	for _, f := range files {
		if f.MIME == "" {
			return fmt.Errorf("prompt session %s: file %q has no type: %w", id, f.Name, ErrNotAccepted)
		}
		if total += int64(len(f.Data)); total > maxBytes {
			return fmt.Errorf("prompt session %s: %w", id, &FileTooLargeError{Name: f.Name, Size: total, Max: maxBytes})
		}
	}
	if c.Generation() == 2 {
		return c.promptFiles2(ctx, id, text, files)
	}
	var parts []map[string]string
	if strings.TrimSpace(text) != "" {
		parts = append(parts, map[string]string{"type": "text", "text": text})
	}
	for _, f := range files {
		parts = append(parts, map[string]string{"type": "file", "mime": f.MIME, "filename": f.Name, "url": f.dataURL()})
	}
	return c.call(ctx, "prompt session "+id+" with files", http.MethodPost, "/session/"+url.PathEscape(id)+"/prompt_async",
		dirQuery(dir), map[string]any{"parts": parts}, nil)
}

// promptFiles2 is prompt2 with files, each {uri, mime, name}
// (packages/schema/src/prompt-input.ts@1bfd211), in both of the body's
// shapes. Which URI schemes OpenCode 2 reads is not defined there; a
// data: URL is what 1.x takes.
func (c *Client) promptFiles2(ctx context.Context, id, text string, files []File) error {
	fs := make([]map[string]string, 0, len(files))
	for _, f := range files {
		fs = append(fs, map[string]string{"uri": f.dataURL(), "mime": f.MIME, "name": f.Name})
	}
	body := map[string]any{
		"text": text, "files": fs,
		"prompt":   map[string]any{"text": text, "files": fs},
		"delivery": deliverQueue,
	}
	return c.call(ctx, "prompt session "+id+" with files", http.MethodPost, sessionPath(id, "prompt"), nil, body, nil)
}

// ModelInfo is the model a session runs on, and whether opencode hands it
// images: a model whose configuration does not declare image input gets
// an error text in an image's place.
type ModelInfo struct {
	ProviderID string
	ID         string
	Name       string
	Image      bool
}

// SessionModel returns the model session id of dir runs on (opencode 1.x:
// the session's, else the configured default) and what it takes, from
// opencode's provider list (GET /config/providers: only the providers it
// can use, a few KiB, not the whole catalogue of GET /provider). A model
// that list lacks, or none at all, is ErrNotFound.
func (c *Client) SessionModel(ctx context.Context, dir, id string) (ModelInfo, error) {
	if id == "" {
		return ModelInfo{}, fmt.Errorf("session model: empty session ID: %w", ErrNotAccepted)
	}
	if c.Generation() == 2 {
		return c.sessionModel2(ctx, dir, id)
	}
	var s struct {
		Model struct {
			ID         string `json:"id"`
			ProviderID string `json:"providerID"`
		} `json:"model"`
	}
	if err := c.call(ctx, "get session "+id, http.MethodGet, "/session/"+url.PathEscape(id), dirQuery(dir), nil, &s); err != nil {
		return ModelInfo{}, err
	}
	m := ModelInfo{ProviderID: s.Model.ProviderID, ID: s.Model.ID}
	if m.ID == "" {
		var cfg struct {
			Model string `json:"model"`
		}
		if err := c.call(ctx, "get config", http.MethodGet, "/config", dirQuery(dir), nil, &cfg); err != nil {
			return ModelInfo{}, err
		}
		m.ProviderID, m.ID, _ = strings.Cut(cfg.Model, "/")
	}
	if m.ID == "" || m.ProviderID == "" {
		return ModelInfo{}, fmt.Errorf("session model of %s: no model chosen, by the session or the configuration: %w", id, ErrNotFound)
	}
	var providers struct {
		Providers []struct {
			ID     string `json:"id"`
			Models map[string]struct {
				Name         string `json:"name"`
				Capabilities struct {
					Input struct {
						Image bool `json:"image"`
					} `json:"input"`
				} `json:"capabilities"`
			} `json:"models"`
		} `json:"providers"`
	}
	if err := c.call(ctx, "list providers", http.MethodGet, "/config/providers", dirQuery(dir), nil, &providers); err != nil {
		return ModelInfo{}, err
	}
	for _, p := range providers.Providers {
		if p.ID != m.ProviderID {
			continue
		}
		if model, ok := p.Models[m.ID]; ok {
			m.Name, m.Image = model.Name, model.Capabilities.Input.Image
			return m, nil
		}
	}
	return ModelInfo{}, fmt.Errorf("session model of %s: %s/%s is not among opencode's providers: %w", id, m.ProviderID, m.ID, ErrNotFound)
}

// sessionModel2 reads the session's model ref (Session.Info.model,
// packages/schema/src/session.ts@a2cc772) and its capabilities.input from
// GET /api/model (packages/protocol/src/groups/model.ts@1652328,
// packages/schema/src/model.ts@24c7576).
func (c *Client) sessionModel2(ctx context.Context, dir, id string) (ModelInfo, error) {
	var s data2[struct {
		Model struct {
			ID         string `json:"id"`
			ProviderID string `json:"providerID"`
		} `json:"model"`
	}]
	if err := c.call(ctx, "get session "+id, http.MethodGet, sessionPath(id), nil, nil, &s); err != nil {
		return ModelInfo{}, err
	}
	m := ModelInfo{ProviderID: s.Data.Model.ProviderID, ID: s.Data.Model.ID}
	if m.ID == "" {
		return ModelInfo{}, fmt.Errorf("session model of %s: the session names no model: %w", id, ErrNotFound)
	}
	var models data2[[]struct {
		ID           string `json:"id"`
		ProviderID   string `json:"providerID"`
		Name         string `json:"name"`
		Capabilities struct {
			Input []string `json:"input"`
		} `json:"capabilities"`
	}]
	if err := c.call(ctx, "list models", http.MethodGet, "/api/model", locationQuery(dir), nil, &models); err != nil {
		return ModelInfo{}, err
	}
	for _, model := range models.Data {
		if model.ID == m.ID && model.ProviderID == m.ProviderID {
			m.Name, m.Image = model.Name, slices.Contains(model.Capabilities.Input, "image")
			return m, nil
		}
	}
	return ModelInfo{}, fmt.Errorf("session model of %s: %s/%s is not among the models listed: %w", id, m.ProviderID, m.ID, ErrNotFound)
}
