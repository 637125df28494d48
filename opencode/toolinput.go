package opencode

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// toolInput is what a tool call's input says in short: the one argument
// a person recognises it by. The fields are raw, so a value of an
// unexpected type costs that argument and never the decoding around it;
// every other key (a written file's content, an edit's strings) is
// skipped unread.
type toolInput struct {
	Command     json.RawMessage `json:"command"`
	FilePath    json.RawMessage `json:"filePath"`
	Pattern     json.RawMessage `json:"pattern"`
	URL         json.RawMessage `json:"url"`
	Query       json.RawMessage `json:"query"`
	Path        json.RawMessage `json:"path"`
	Description json.RawMessage `json:"description"`
	Name        json.RawMessage `json:"name"`
}

// UnmarshalJSON takes an object; anything else (an input still streamed
// as a string) is no argument, not an error.
func (in *toolInput) UnmarshalJSON(b []byte) error {
	type plain toolInput
	var p plain
	if json.Unmarshal(b, &p) == nil {
		*in = toolInput(p)
	}
	return nil
}

// argument returns the input's short argument on one line, at most
// maxArgument characters: a command's start, a path's end. "" when the
// input has none of the keys known.
func (in toolInput) argument() string {
	if s := rawString(in.Command); s != "" {
		return clipEnd(s)
	}
	for _, raw := range []json.RawMessage{in.FilePath, in.Path} {
		if s := rawString(raw); s != "" {
			return clipStart(s)
		}
	}
	for _, raw := range []json.RawMessage{in.Pattern, in.URL, in.Query, in.Description, in.Name} {
		if s := rawString(raw); s != "" {
			return clipEnd(s)
		}
	}
	return ""
}

// rawString is raw's string, trimmed, or "" when raw is not a string.
func rawString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return strings.TrimSpace(s)
}

// clipEnd keeps s's first line and cuts it to maxArgument characters.
func clipEnd(s string) string {
	first, rest, multi := strings.Cut(s, "\n")
	first = strings.TrimSpace(first)
	if utf8.RuneCountInString(first) > maxArgument {
		return string([]rune(first)[:maxArgument-1]) + "…"
	}
	if multi && strings.TrimSpace(rest) != "" {
		return first + " …"
	}
	return first
}

// clipStart cuts a path to its last maxArgument characters: the file's
// name is what tells it apart.
func clipStart(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if utf8.RuneCountInString(s) <= maxArgument {
		return s
	}
	return "…" + lastRunes(s, maxArgument-1)
}
