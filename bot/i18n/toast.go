package i18n

// Toast names a toast a press can be answered with. It is an identifier,
// not a text: a closed request is remembered by it (on disk, so the
// values never change), the metrics count outcomes by it, and Text.Toast
// says it in a person's language. Rewording a toast changes only the
// catalogs.
type Toast string

// The toasts.
const (
	ToastUnknown      Toast = "unknown"
	ToastNotAllowed   Toast = "not_allowed"
	ToastGone         Toast = "gone"
	ToastStale        Toast = "stale"
	ToastBusy         Toast = "busy"
	ToastSending      Toast = "sending"
	ToastFailed       Toast = "failed"
	ToastTypeAnswer   Toast = "type_answer"
	ToastSelectFirst  Toast = "select_first"
	ToastPromptFailed Toast = "prompt_failed"

	ToastAnswered          Toast = "answered"
	ToastAnsweredElsewhere Toast = "answered_elsewhere"
	ToastDismissed         Toast = "dismissed"
	ToastExpired           Toast = "expired"
	// ToastCancelled: a link form was cancelled here.
	ToastCancelled Toast = "cancelled"
)

// Toast is the text of toast id in t's language; a toast no catalog
// knows (a record written by a newer release) is shown as it is.
func (t *Text) Toast(id Toast) string {
	texts := map[Toast]string{
		ToastUnknown:           t.ToastUnknown,
		ToastNotAllowed:        t.ToastNotAllowed,
		ToastGone:              t.ToastGone,
		ToastStale:             t.ToastStale,
		ToastBusy:              t.ToastBusy,
		ToastSending:           t.ToastSending,
		ToastFailed:            t.ToastFailed,
		ToastTypeAnswer:        t.ToastTypeAnswer,
		ToastSelectFirst:       t.ToastSelectFirst,
		ToastPromptFailed:      t.ToastPromptFailed,
		ToastAnswered:          t.ToastAnswered,
		ToastAnsweredElsewhere: t.ToastAnsweredElsewhere,
		ToastDismissed:         t.ToastDismissed,
		ToastExpired:           t.ToastExpired,
		ToastCancelled:         t.ToastCancelled,
	}
	if s, ok := texts[id]; ok {
		return s
	}
	return string(id)
}
