// Package i18n holds every text hermes-bot writes for people, one catalog
// (Text) per language, and the identifiers of the toasts a button press is
// answered with (Toast), which a closed request is remembered by and the
// metrics count.
//
// A new language is a catalog here and nothing else: a Text value with
// its steering texts (steer.go) and its table of risk reasons (reason.go),
// listed in For and Languages; the settings accept what Languages lists.
// Package bot/risk gives the reasons of an assessment as codes
// (risk.ReasonCode) and says none of them itself, and the tests fail for a
// code some language does not say. What the agent reads (the reject
// message of an expired permission) is not a person's text and stays in
// the bridge, in English.
//
// Texts that are HTML say so; a function's arguments are already escaped
// where its result is HTML. Catalogs are never modified after
// initialisation, so they are safe for concurrent use.
package i18n
