package daemon

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"path"
)

// maxBufferedBody is the largest request body bufferBodies sends in one
// piece. A message with its keyboard is a few tens of KiB at most; the
// one upload, a cut request's whole text as a document, is rarely more
// than this, and past it is streamed as go-telegram writes it.
const maxBufferedBody = 1 << 20

// telegramTransport is the transport under the Telegram client: one whose
// idle connections are kept for as many calls as the outbox runs at once
// (net/http keeps 2 per host by default, so a third concurrent send would
// open, and then close, a connection of its own, a TLS handshake each
// time against the real Telegram), with request bodies buffered.
func telegramTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 16
	return bufferBodies{next: t}
}

// bufferBodies reads a request body of unknown length into memory before
// sending it. go-telegram/bot streams every call's multipart form through
// an io.Pipe, so net/http would send it chunked, flushing each small write
// of the form (a boundary, a header, a value) to the socket as a chunk of
// its own: a dozen system calls per call, on both ends, instead of one.
type bufferBodies struct {
	next http.RoundTripper
}

func (t bufferBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody || req.ContentLength > 0 {
		return t.next.RoundTrip(req)
	}
	buf, err := io.ReadAll(io.LimitReader(req.Body, maxBufferedBody+1))
	if err != nil {
		req.Body.Close()
		// The path holds the bot token; its last element is the method.
		return nil, fmt.Errorf("read the body of telegram %s: %w", path.Base(req.URL.Path), err)
	}
	// A RoundTripper must not change the request it was given.
	out := req.Clone(req.Context())
	if len(buf) > maxBufferedBody {
		// Too big to hold: send what was read, then the rest as it comes.
		out.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(buf), req.Body), req.Body}
		return t.next.RoundTrip(out)
	}
	req.Body.Close()
	out.Body = io.NopCloser(bytes.NewReader(buf))
	out.ContentLength = int64(len(buf))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf)), nil }
	return t.next.RoundTrip(out)
}
