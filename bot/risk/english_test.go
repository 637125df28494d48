package risk_test

import (
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/risk"
)

func init() {
	risk.EnglishReason = i18n.English.RiskReason
}
