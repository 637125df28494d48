package i18n

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/hermes-bot/hermes-bot/bot/risk"
)

// sampleArg is a value of type t to call a catalog function with.
func sampleArg(t reflect.Type) reflect.Value {
	switch t {
	case reflect.TypeOf(risk.Level(0)):
		return reflect.ValueOf(risk.High)
	case reflect.TypeOf(risk.Reason{}):
		return reflect.ValueOf(risk.Assess("", "bash", nil, []byte(`{"command":"rm -rf x"}`)).Details[0])
	}
	switch t.Kind() {
	case reflect.String:
		return reflect.ValueOf("x").Convert(t)
	case reflect.Int, reflect.Int64:
		return reflect.ValueOf(2).Convert(t)
	}
	panic("no sample for " + t.String())
}

// catalogTexts is every text of catalog c, by field name: strings as they
// are, functions called with sample arguments.
func catalogTexts(t *testing.T, c *Text) map[string]string {
	t.Helper()
	return catalogTextsOf(t, reflect.ValueOf(c).Elem())
}

// catalogTextsOf is catalogTexts of struct value v.
func catalogTextsOf(t *testing.T, v reflect.Value) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.String:
			out[name] = f.String()
		case reflect.Func:
			if f.IsNil() {
				t.Errorf("%s is nil", name)
				continue
			}
			var args []reflect.Value
			for j := range f.Type().NumIn() {
				args = append(args, sampleArg(f.Type().In(j)))
			}
			out[name] = f.Call(args)[0].String()
		case reflect.Struct:
			// A group of texts (Steer): each is checked as its own.
			sub := catalogTextsOf(t, f)
			for k, s := range sub {
				out[name+"."+k] = s
			}
		default:
			t.Fatalf("field %s has kind %s: extend catalogTexts", name, f.Kind())
		}
	}
	return out
}

func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

func TestCatalogsComplete(t *testing.T) {
	en, zh := catalogTexts(t, &English), catalogTexts(t, &Chinese)
	// Texts with nothing to translate at the sample arguments.
	noHan := map[string]bool{"ConnectedFor": true, "Matrix.Answers": true}
	for name, e := range en {
		c := zh[name]
		if strings.TrimSpace(e) == "" || strings.TrimSpace(c) == "" {
			t.Errorf("%s: empty text (en %q, zh %q)", name, e, c)
			continue
		}
		if e == c {
			t.Errorf("%s: Chinese is the English text %q", name, e)
		}
		if !noHan[name] && !hasHan(c) {
			t.Errorf("%s: Chinese text %q has no Chinese in it", name, c)
		}
		if hasHan(e) {
			t.Errorf("%s: English text %q has Chinese in it", name, e)
		}
	}
}

func TestFor(t *testing.T) {
	if For("zh") != &Chinese || For("en") != &English || For("") != &English || For("fr") != &English {
		t.Fatal("For picks the wrong catalog")
	}
	for _, l := range Languages() {
		if l != "en" && For(l) == &English {
			t.Errorf("language %q has no catalog", l)
		}
		if LanguageName(l) == "" {
			t.Errorf("language %q has no name", l)
		}
	}
	if LanguageName("fr") != "" {
		t.Error("a language without a catalog has a name")
	}
}

var allToasts = []Toast{ToastUnknown, ToastNotAllowed, ToastGone, ToastStale, ToastBusy, ToastSending, ToastFailed,
	ToastTypeAnswer, ToastSelectFirst, ToastPromptFailed, ToastAnswered, ToastAnsweredElsewhere, ToastDismissed, ToastExpired, ToastCancelled}

// Every toast has a text in each language, and none shows its identifier.
func TestToasts(t *testing.T) {
	for _, id := range allToasts {
		en, zh := English.Toast(id), Chinese.Toast(id)
		if en == string(id) || hasHan(en) || en == "" {
			t.Errorf("English toast %q = %q", id, en)
		}
		if zh == string(id) || !hasHan(zh) {
			t.Errorf("Chinese toast %q = %q", id, zh)
		}
	}
	if got := Chinese.Toast("from a newer release"); got != "from a newer release" {
		t.Errorf("an unknown toast is shown as %q", got)
	}
}

func TestSpanAndSince(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Second:            "under a minute",
		5 * time.Minute:             "5 min",
		2 * time.Hour:               "2 h",
		2*time.Hour + 5*time.Minute: "2 h 5 min",
		49 * time.Hour:              "2 d 1 h",
		72 * time.Hour:              "3 d",
	} {
		if got := English.Span(d); got != want {
			t.Errorf("Span(%v) = %q, want %q", d, got, want)
		}
	}
	if got := English.Since(30 * time.Second); got != English.JustNow {
		t.Errorf("Since(30s) = %q, want %q", got, English.JustNow)
	}
	if got, want := English.Since(5*time.Minute), English.Ago("5 min"); got != want {
		t.Errorf("Since(5m) = %q, want %q", got, want)
	}
	if got := Chinese.ErrorWords("no such class"); got != Chinese.ErrUnexpected {
		t.Errorf("ErrorWords of an unknown class = %q, want %q", got, Chinese.ErrUnexpected)
	}
}
