package pending

// Place is where a front-end shows a request: a chat (a group, a channel), a
// message in it, and the thread of the chat it is in. What the numbers mean is the
// front-end's business; the store keeps and indexes them. Message 0: not shown yet.
type Place struct {
	Chat    int64 `json:"chat"`
	Message int   `json:"message,omitempty"`
	Thread  int   `json:"thread,omitempty"`
}
