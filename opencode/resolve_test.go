package opencode_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// listCount counts the GET /question requests srv received.
func listCount(srv *opencodetest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Path == "/question" {
			n++
		}
	}
	return n
}

func TestResolveQuestionID(t *testing.T) {
	const dir = "/d"
	tests := []struct {
		name    string
		pending []opencode.QuestionRequest
		ref     opencode.QuestionRef
		want    string // "" for ErrNotFound
	}{
		{
			name:    "cached id",
			pending: []opencode.QuestionRequest{question("que_other", "ses_1", "call_9"), question("que_1", "ses_1", "call_1")},
			ref:     opencode.QuestionRef{RequestID: "que_1", SessionID: "ses_1", CallID: "call_1"},
			want:    "que_1",
		},
		{
			name:    "by call id",
			pending: []opencode.QuestionRequest{question("que_other", "ses_1", "call_9"), question("que_new", "ses_1", "call_1")},
			ref:     opencode.QuestionRef{RequestID: "que_old", SessionID: "ses_1", CallID: "call_1"},
			want:    "que_new",
		},
		{
			name:    "only question of the session",
			pending: []opencode.QuestionRequest{question("que_a", "ses_2", ""), question("que_new", "ses_1", "")},
			ref:     opencode.QuestionRef{RequestID: "que_old", SessionID: "ses_1", CallID: "call_1"},
			want:    "que_new",
		},
		{
			name:    "only question of the session, ref without call",
			pending: []opencode.QuestionRequest{question("que_new", "ses_1", "call_7")},
			ref:     opencode.QuestionRef{RequestID: "que_old", SessionID: "ses_1"},
			want:    "que_new",
		},
		{
			name:    "the session's only question is another tool call's",
			pending: []opencode.QuestionRequest{question("que_new", "ses_1", "call_2")},
			ref:     opencode.QuestionRef{RequestID: "que_old", SessionID: "ses_1", CallID: "call_1"},
		},
		{
			name:    "two questions in the session",
			pending: []opencode.QuestionRequest{question("que_a", "ses_1", ""), question("que_b", "ses_1", "")},
			ref:     opencode.QuestionRef{RequestID: "que_old", SessionID: "ses_1"},
		},
		{
			name: "nothing pending",
			ref:  opencode.QuestionRef{RequestID: "que_old", SessionID: "ses_1", CallID: "call_1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t)
			for _, q := range tt.pending {
				srv.StoreQuestion(dir, q)
			}
			srv.StoreQuestion("/elsewhere", question("que_x", "ses_1", "call_1"))
			c := srv.Client(opencode.WithResolveRetry(3, time.Millisecond))
			ref := tt.ref
			ref.Directory = dir
			got, err := c.ResolveQuestionID(testContext(t), ref)
			if tt.want != "" {
				if err != nil || got != tt.want {
					t.Fatalf("= %q, %v; want %q", got, err, tt.want)
				}
				if n := listCount(srv); n != 1 {
					t.Errorf("%d lists, want 1", n)
				}
				return
			}
			if !errors.Is(err, opencode.ErrNotFound) || got != "" {
				t.Fatalf("= %q, %v; want ErrNotFound", got, err)
			}
			if n := listCount(srv); n != 3 {
				t.Errorf("%d lists, want 3 (every attempt)", n)
			}
		})
	}
}

func TestResolveQuestionIDRetriesUntilListed(t *testing.T) {
	var lists atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		qs := []opencode.QuestionRequest{}
		if lists.Add(1) >= 3 {
			qs = append(qs, question("que_late", "ses_1", "call_1"))
		}
		_ = json.NewEncoder(w).Encode(qs)
	}))
	t.Cleanup(srv.Close)
	c, err := opencode.NewClient(srv.URL, opencode.WithResolveRetry(5, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.ResolveQuestionID(testContext(t), opencode.QuestionRef{Directory: "/d", CallID: "call_1"})
	if err != nil || got != "que_late" || lists.Load() != 3 {
		t.Errorf("= %q, %v after %d lists; want que_late after 3", got, err, lists.Load())
	}
}

func TestResolveQuestionIDTransient(t *testing.T) {
	ref := opencode.QuestionRef{Directory: "/d", RequestID: "que_1", SessionID: "ses_1"}

	t.Run("recovers", func(t *testing.T) {
		srv := newServer(t)
		srv.StoreQuestion("/d", question("que_1", "ses_1", ""))
		srv.FailNext("/question", 500)
		srv.FailNext("/question", 502)
		got, err := srv.Client(opencode.WithResolveRetry(3, time.Millisecond)).ResolveQuestionID(testContext(t), ref)
		if err != nil || got != "que_1" {
			t.Errorf("= %q, %v; want que_1 after two failed lists", got, err)
		}
	})
	t.Run("last attempt failed", func(t *testing.T) {
		srv := newServer(t)
		srv.FailNext("/question", 503)
		srv.FailNext("/question", 503)
		_, err := srv.Client(opencode.WithResolveRetry(2, time.Millisecond)).ResolveQuestionID(testContext(t), ref)
		if !errors.Is(err, opencode.ErrTransient) || errors.Is(err, opencode.ErrNotFound) {
			t.Errorf("err = %v, want ErrTransient only", err)
		}
	})
	t.Run("failed then not found", func(t *testing.T) {
		srv := newServer(t)
		srv.FailNext("/question", 503)
		_, err := srv.Client(opencode.WithResolveRetry(2, time.Millisecond)).ResolveQuestionID(testContext(t), ref)
		if !errors.Is(err, opencode.ErrNotFound) || errors.Is(err, opencode.ErrTransient) {
			t.Errorf("err = %v, want ErrNotFound only", err)
		}
	})
	t.Run("unauthorized ends at once", func(t *testing.T) {
		srv := newServer(t)
		srv.FailNext("/question", 401)
		_, err := srv.Client(opencode.WithResolveRetry(5, time.Millisecond)).ResolveQuestionID(testContext(t), ref)
		if !errors.Is(err, opencode.ErrUnauthorized) || listCount(srv) != 1 {
			t.Errorf("err = %v after %d lists; want ErrUnauthorized after 1", err, listCount(srv))
		}
	})
}

func TestResolveQuestionIDCancel(t *testing.T) {
	listed := make(chan struct{}, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("[]"))
		listed <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	c, err := opencode.NewClient(srv.URL, opencode.WithResolveRetry(1000, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.ResolveQuestionID(ctx, opencode.QuestionRef{Directory: "/d", RequestID: "que_1"})
		done <- err
	}()
	select {
	case <-listed:
	case <-time.After(10 * time.Second):
		t.Fatal("no list request")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ResolveQuestionID ignored the cancelled context")
	}
}
