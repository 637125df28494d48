package opencode_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// CancelForm deletes the form on a server with DELETE …/form/{id}; a form
// unknown or settled already is ErrNotFound, without trying POST.
func TestCancelFormDelete(t *testing.T) {
	s, c := probed2(t)
	f := s.AddForm("ses_1", opencodetest.Form{Mode: "url", URL: "https://example.com"})
	ctx := ctx2(t)
	if err := c.CancelForm(ctx, "ses_1", f.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.CancelForm(ctx, "ses_1", f.ID); !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("cancel again: %v, want ErrNotFound", err)
	}
	if err := c.CancelForm(ctx, "ses_1", "frm_none"); !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("cancel of an unknown form: %v, want ErrNotFound", err)
	}
	got := requestsAfterProbe(s)
	want := []string{
		"DELETE /api/session/ses_1/form/" + f.ID, "DELETE /api/session/ses_1/form/" + f.ID, "DELETE /api/session/ses_1/form/frm_none",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("requests %q, want %q", got, want)
	}
	if r := s.Replies(); len(r) != 1 || r[0].Kind != opencodetest.CancelForm || r[0].RequestID != f.ID {
		t.Errorf("replies %+v", r)
	}
}

// A server without DELETE …/form/{id} (an untagged 404, a 405, or a web
// page) gets POST …/cancel; its tagged 404 and 409 are ErrNotFound.
func TestCancelFormFallsBackToPost(t *testing.T) {
	for name, deleteRoute := range map[string]func(*http.ServeMux){
		"404": func(*http.ServeMux) {},
		"405": func(mux *http.ServeMux) {
			mux.HandleFunc("GET /api/session/{sid}/form/{id}", func(http.ResponseWriter, *http.Request) {})
		},
		"web page": func(mux *http.ServeMux) {
			mux.HandleFunc("DELETE /", func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = io.WriteString(w, "<!doctype html>")
			})
		},
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			mux := http.NewServeMux()
			deleteRoute(mux)
			mux.HandleFunc("POST /api/session/{sid}/form/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				got = append(got, r.PathValue("id"))
				mu.Unlock()
				switch r.PathValue("id") {
				case "frm_1":
					w.WriteHeader(http.StatusNoContent)
				case "frm_settled":
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusConflict)
					_, _ = io.WriteString(w, `{"_tag":"FormAlreadySettledError","id":"frm_settled","message":"Form already cancelled"}`)
				default:
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusNotFound)
					_, _ = io.WriteString(w, `{"_tag":"FormNotFoundError","id":"frm_x","message":"Form not found"}`)
				}
			})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			c := client2(t, srv.URL, "", 2)
			ctx := ctx2(t)
			if err := c.CancelForm(ctx, "ses_1", "frm_1"); err != nil {
				t.Errorf("cancel: %v", err)
			}
			for _, id := range []string{"frm_settled", "frm_x"} {
				if err := c.CancelForm(ctx, "ses_1", id); !errors.Is(err, opencode.ErrNotFound) {
					t.Errorf("cancel %s: %v, want ErrNotFound", id, err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if want := []string{"frm_1", "frm_settled", "frm_x"}; !reflect.DeepEqual(got, want) {
				t.Errorf("POST cancels of %q, want %q", got, want)
			}
		})
	}
}
