package bot

// SyncBuffer lets the black-box tests (package bot_test) collect a
// logger's output with the helper the tests inside the package use. It
// is defined in a test file, so it is no part of the package's API.
type SyncBuffer = syncBuffer
