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
	switch id {
	case ToastUnknown:
		return t.ToastUnknown
	case ToastNotAllowed:
		return t.ToastNotAllowed
	case ToastGone:
		return t.ToastGone
	case ToastStale:
		return t.ToastStale
	case ToastBusy:
		return t.ToastBusy
	case ToastSending:
		return t.ToastSending
	case ToastFailed:
		return t.ToastFailed
	case ToastTypeAnswer:
		return t.ToastTypeAnswer
	case ToastSelectFirst:
		return t.ToastSelectFirst
	case ToastPromptFailed:
		return t.ToastPromptFailed
	case ToastAnswered:
		return t.ToastAnswered
	case ToastAnsweredElsewhere:
		return t.ToastAnsweredElsewhere
	case ToastDismissed:
		return t.ToastDismissed
	case ToastExpired:
		return t.ToastExpired
	case ToastCancelled:
		return t.ToastCancelled
	}
	return string(id)
}
