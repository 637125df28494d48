// Package webview shows a chat of a telegramtest.Server as a web page, the
// way a Telegram client shows it, and lets a person act in it: press an
// inline button, reply to a message (a force_reply prompt above all) or
// write in the chat, as one of a few users.
//
// It lives beside the fake because it is a view of the fake and nothing
// more: every action goes through the fake's own user methods (PressButton,
// Reply, SendText), so the bot under test receives exactly the updates a
// real client would cause, and the page shows the chat from the fake's
// state (Messages), rendered from the entities Telegram would have parsed
// out of the bot's HTML. It owns no bot logic, nor any access control:
// cmd/hermes-demo serves it under a per-run secret path and refuses other
// sites' requests; tests drive it over HTTP or in a browser.
//
// The page is plain server-rendered HTML with a form per button: it works
// without JavaScript, and a test can read it and post its forms as a
// browser would. Everything the bot or a user wrote is escaped; only the
// formatting entities become tags, and only http, https and tg links
// become links.
//
// # Concurrency
//
// A View is an http.Handler safe for concurrent requests. It keeps a short
// activity log (who pressed what, the toasts the bot answered with) in
// memory, under a mutex.
package webview
