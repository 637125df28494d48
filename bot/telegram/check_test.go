package telegram

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/go-telegram/bot/models"
)

// checkMessageText is a small, independent version of Telegram's checks:
// 1–4096 UTF-16 units, and HTML made only of the tags we use, properly
// nested, with every '&' starting an entity.
func checkMessageText(text string) error {
	if n := u16len(text); n == 0 || n > maxMessageLen {
		return fmt.Errorf("text length %d", n)
	}
	var stack []string
	for i := 0; i < len(text); {
		switch text[i] {
		case '&':
			m := entityRE.FindString(text[i:])
			if m == "" {
				return fmt.Errorf("stray '&' at %d", i)
			}
			i += len(m)
		case '<':
			end := strings.IndexByte(text[i:], '>')
			if end < 0 {
				return fmt.Errorf("unclosed tag at %d", i)
			}
			tag := text[i+1 : i+end]
			i += end + 1
			if name, ok := strings.CutPrefix(tag, "/"); ok {
				if len(stack) == 0 || stack[len(stack)-1] != name {
					return fmt.Errorf("unexpected </%s>", name)
				}
				stack = stack[:len(stack)-1]
				continue
			}
			name, _, _ := strings.Cut(tag, " ")
			switch name {
			case "b", "i", "code", "pre", "blockquote":
				if tag != name {
					return fmt.Errorf("attributes on <%s>", tag)
				}
			case "a":
				if !regexp.MustCompile(`^a href="(tg://user\?id=\d+|https://t\.me/c/\d+/\d+)"$`).MatchString(tag) {
					return fmt.Errorf("unexpected link <%s>", tag)
				}
			default:
				return fmt.Errorf("unexpected tag <%s>", tag)
			}
			stack = append(stack, name)
		case '>':
			return fmt.Errorf("stray '>' at %d", i)
		default:
			i++
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("unclosed <%s>", stack[len(stack)-1])
	}
	return nil
}

var entityRE = regexp.MustCompile(`^&(lt|gt|amp|quot|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});`)

// checkKeyboard applies Telegram's inline keyboard limits.
func checkKeyboard(kb *models.InlineKeyboardMarkup) error {
	raw, err := json.Marshal(kb)
	if err != nil {
		return err
	}
	if len(raw) > 10000 {
		return fmt.Errorf("reply markup is too long: %d bytes", len(raw))
	}
	total := 0
	for _, row := range kb.InlineKeyboard {
		if len(row) == 0 || len(row) > 8 {
			return fmt.Errorf("row of %d buttons", len(row))
		}
		for _, btn := range row {
			total++
			if btn.Text == "" {
				return fmt.Errorf("button without text")
			}
			if btn.URL != "" {
				if btn.CallbackData != "" || !strings.HasPrefix(btn.URL, "http") {
					return fmt.Errorf("link button %q with data %q", btn.URL, btn.CallbackData)
				}
				continue
			}
			if n := len(btn.CallbackData); n == 0 || n > maxCallbackData {
				return fmt.Errorf("callback data of %d bytes: %q", n, btn.CallbackData)
			}
		}
	}
	if total > 100 {
		return fmt.Errorf("%d buttons", total)
	}
	return nil
}

// testChat is the supergroup the package's tests post to.
const testChat int64 = -1001234

// alice is a person in testChat.
var alice = models.User{ID: 11, FirstName: "Alice", Username: "alice"}
