package risk

// EnglishReason says a reason in English, for the tests that check what
// Assess found by its wording. The texts are bot/i18n's, which imports
// this package, so an external test file (english_test.go) sets it.
var EnglishReason func(Reason) string

// reasons is a's reasons as EnglishReason says them.
func (a Assessment) reasons() []string {
	out := make([]string, len(a.Details))
	for i, r := range a.Details {
		out[i] = EnglishReason(r)
	}
	return out
}
