// Package i18n holds every text hermes-bot writes for people, one catalog
// (Text) per language, and the identifiers of the toasts a button press is
// answered with (Toast), which a closed request is remembered by and the
// metrics count.
//
// A new language is a catalog here and nothing else: a file like zh.go
// with its Text value, its steering texts and its table of risk reasons,
// and its line in catalogs (text.go), which gives its code (Languages,
// what the settings accept) and its name (LanguageName). Package bot/risk
// gives the reasons of an assessment as codes (risk.ReasonCode) and says
// none of them itself; the tests fail for a code some language does not
// say. What the agent reads (the reject message of an expired permission)
// is not a person's text and stays in the bridge, in English.
//
// Texts that are HTML say so; a function's arguments are already escaped
// where its result is HTML. Catalogs are never modified after
// initialisation, so they are safe for concurrent use.
package i18n
