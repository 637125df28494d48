package daemon

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// seenRequest is what the server got of one request.
type seenRequest struct {
	length  int64
	chunked bool
	body    []byte
}

func recordingServer(t *testing.T) (*httptest.Server, chan seenRequest) {
	t.Helper()
	seen := make(chan seenRequest, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("server: read body: %v", err)
		}
		seen <- seenRequest{length: r.ContentLength, chunked: len(r.TransferEncoding) > 0, body: body}
	}))
	t.Cleanup(srv.Close)
	return srv, seen
}

// pipeBody streams data through an io.Pipe, as go-telegram/bot does.
func pipeBody(data []byte, err error) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		for chunk := range slices.Chunk(data, 100) {
			if _, werr := pw.Write(chunk); werr != nil {
				return
			}
		}
		pw.CloseWithError(err)
	}()
	return pr
}

// postThrough posts body to the Bot API method of a recording server
// through telegramTransport, and returns the request and what the server
// got of it.
func postThrough(t *testing.T, method string, body io.Reader) (*http.Request, seenRequest) {
	t.Helper()
	srv, seen := recordingServer(t)
	hc := &http.Client{Transport: telegramTransport()}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/bot123:secret/"+method, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("round trip: %v", err)
	}
	resp.Body.Close()
	return req, <-seen
}

func TestBufferBodiesSendsOnePiece(t *testing.T) {
	want := []byte(strings.Repeat("--boundary\r\ncontent\r\n", 200))
	req, got := postThrough(t, "sendMessage", pipeBody(want, nil))
	if got.chunked || got.length != int64(len(want)) {
		t.Errorf("server saw chunked=%v Content-Length=%d, want one piece of %d bytes", got.chunked, got.length, len(want))
	}
	if !bytes.Equal(got.body, want) {
		t.Errorf("body differs: got %d bytes, want %d", len(got.body), len(want))
	}
	if req.ContentLength != 0 {
		t.Errorf("the caller's request was changed: ContentLength %d", req.ContentLength)
	}
}

func TestBufferBodiesStreamsWhatIsTooBig(t *testing.T) {
	want := bytes.Repeat([]byte("x"), maxBufferedBody+12345)
	_, got := postThrough(t, "sendDocument", pipeBody(want, nil))
	if !got.chunked {
		t.Errorf("a body over %d bytes was buffered (Content-Length %d), want it streamed", maxBufferedBody, got.length)
	}
	if !bytes.Equal(got.body, want) {
		t.Errorf("body differs: got %d bytes, want %d", len(got.body), len(want))
	}
}

func TestBufferBodiesBodyErrorKeepsTokenOut(t *testing.T) {
	srv, seen := recordingServer(t)
	formErr := errors.New("form broke")
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/bot123:secret/sendMessage", pipeBody([]byte("half a form"), formErr))
	if err != nil {
		t.Fatal(err)
	}
	// Called directly: http.Client adds the URL to the error, which the
	// bot's Redactor cleans; the transport must add no token of its own.
	_, err = telegramTransport().RoundTrip(req)
	if !errors.Is(err, formErr) {
		t.Fatalf("round trip error %v, want it to wrap the body's error", err)
	}
	if strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "sendMessage") {
		t.Errorf("error %q: want the method named and no token", err)
	}
	select {
	case r := <-seen:
		t.Errorf("the server got a request with a broken body: %q", r.body)
	default:
	}
}

func TestBufferBodiesPassesOthersThrough(t *testing.T) {
	if _, got := postThrough(t, "getMe", strings.NewReader("known length")); got.length != int64(len("known length")) || string(got.body) != "known length" {
		t.Errorf("server saw %d bytes %q", got.length, got.body)
	}
}
