package telegram

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// BenchmarkOutboxBurst posts 100 messages at once to one chat through an
// Outbox, to the fake Bot API with pacing off, alternately one at a time
// (MaxInFlight 1) and with DefaultOutboxMaxInFlight, and reports each
// batch's time and the speed-up: over loopback, where the machine's CPU
// bounds it, and with a round trip made 2 ms longer, as on a network
// (api.telegram.org is 50–300 ms away from most places):
//
//	go test -run '^$' -bench OutboxBurst ./bot/
func BenchmarkOutboxBurst(b *testing.B) {
	b.Run("loopback", func(b *testing.B) { benchOutboxBurst(b, 0) })
	b.Run("rtt+2ms", func(b *testing.B) { benchOutboxBurst(b, 2*time.Millisecond) })
}

func benchOutboxBurst(b *testing.B, rtt time.Duration) {
	const (
		token = "123:abc"
		chat  = int64(-1001)
		batch = 100
	)
	tb := loopbackClient(b, token, chat, rtt)
	serial := NewOutbox(tb, OutboxOptions{MaxInFlight: 1}, zerolog.Nop())
	defer serial.Close()
	concurrent := NewOutbox(tb, OutboxOptions{}, zerolog.Nop())
	defer concurrent.Close()
	ctx := context.Background()
	post := func(o *Outbox) time.Duration {
		start := time.Now()
		errs := make(chan error, batch)
		var wg sync.WaitGroup
		for i := range batch {
			wg.Go(func() {
				if _, err := o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: chat, Text: fmt.Sprint("question ", i)}); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		return elapsed
	}
	post(serial) // open the connections before timing
	post(concurrent)
	var one, many time.Duration
	n := 0
	for b.Loop() {
		one += post(serial)
		many += post(concurrent)
		n++
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(n) / float64(time.Millisecond) }
	b.ReportMetric(ms(one), "ms/batch-1-in-flight")
	b.ReportMetric(ms(many), fmt.Sprintf("ms/batch-%d-in-flight", DefaultOutboxMaxInFlight))
	b.ReportMetric(float64(one)/float64(many), "speed-up")
}

// loopbackClient is a Bot API client of a fake Telegram holding chat,
// both closed when b ends, with rtt added to every call.
func loopbackClient(b *testing.B, token string, chat int64, rtt time.Duration) *tgbot.Bot {
	b.Helper()
	srv := telegramtest.NewServer(token)
	b.Cleanup(srv.Close)
	if err := srv.AddChat(chat, telegramtest.ChatSupergroup); err != nil {
		b.Fatal(err)
	}
	// As cmd/hermes-bot's transport: enough idle connections for every
	// call in flight, so none is dialled again, and bodies sent whole.
	transport := &http.Transport{MaxIdleConnsPerHost: 2 * DefaultOutboxMaxInFlight}
	b.Cleanup(transport.CloseIdleConnections)
	tb, err := tgbot.New(token, tgbot.WithServerURL(srv.URL), tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(time.Second, &http.Client{Timeout: 10 * time.Second, Transport: wholeBodies{transport, rtt}}))
	if err != nil {
		b.Fatal(err)
	}
	return tb
}

// wholeBodies sends a request body of unknown length in one piece, as
// cmd/hermes-bot's transport does: go-telegram/bot streams its forms
// through a pipe, which net/http would send as many small chunks. It
// waits rtt first, as a network would.
type wholeBodies struct {
	next http.RoundTripper
	rtt  time.Duration
}

func (t wholeBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.rtt > 0 {
		time.Sleep(t.rtt)
	}
	if req.Body == nil || req.ContentLength > 0 {
		return t.next.RoundTrip(req)
	}
	buf, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Body, out.ContentLength = io.NopCloser(bytes.NewReader(buf)), int64(len(buf))
	return t.next.RoundTrip(out)
}
