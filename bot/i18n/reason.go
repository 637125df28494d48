package i18n

import (
	"strings"

	"github.com/hermes-bot/hermes-bot/bot/risk"
)

// reasonSayer is a catalog's RiskReason: it says a reason with table, and
// unknown for a code the table lacks (the zero code), which the catalog
// tests keep from happening to any code risk.ReasonCodes lists.
func reasonSayer(table map[risk.ReasonCode]string, unknown string) func(risk.Reason) string {
	return func(r risk.Reason) string {
		t, ok := table[r.Code]
		if !ok {
			return unknown
		}
		// Not fmt: the detail is a command or a path and may hold % itself.
		return strings.Replace(t, "%s", r.Arg, 1)
	}
}

// RiskReasons says every reason of assessment a, most serious first, as
// RiskReason does; English.RiskReasons is what a log records.
func (t *Text) RiskReasons(a risk.Assessment) []string {
	out := make([]string, len(a.Details))
	for i, r := range a.Details {
		out[i] = t.RiskReason(r)
	}
	return out
}
