// Package i18n holds every text hermes-bot writes for people, one catalog
// (Text) per language, and the identifiers of the toasts a button press is
// answered with (Toast), which a closed request is remembered by and the
// metrics count.
//
// Adding a language is a catalog here (a Text value, in For and
// Languages); the settings accept what Languages lists. The reasons of a
// risk assessment are said by package bot/risk in its own languages
// (risk.Reason); a new language adds its reason table there. What the
// agent reads (the reject message of an expired permission) is not a
// person's text and stays in the bridge, in English.
//
// Texts that are HTML say so; a function's arguments are already escaped
// where its result is HTML. Catalogs are never modified after
// initialisation, so they are safe for concurrent use.
package i18n
