package opencodetest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// A request of the /api surface is listed and answered through the
// adapter of the surface that raised it; the legacy routes do not know it.
func ExampleServer_AddQuestion_api() {
	srv := opencodetest.NewServer()
	defer srv.Close()
	srv.AddQuestion("/work/demo", opencode.QuestionRequest{
		ID: "que_1", SessionID: "ses_1", Surface: opencode.SurfaceAPI,
		Questions: []opencode.Question{{Question: "Which colour?", Options: []opencode.Option{{Label: "Red"}}}},
	})

	c := srv.Client()
	ctx := context.Background()
	qs, err := c.API().ListQuestions(ctx, "/work/demo")
	if err != nil {
		fmt.Println(err)
		return
	}
	q := qs[0]
	fmt.Println(q.ID, q.Surface)
	err = c.Requests(opencode.SurfaceLegacy).ReplyQuestion(ctx, "/work/demo", q.SessionID, q.ID, [][]string{{"Red"}})
	fmt.Println("legacy route:", errors.Is(err, opencode.ErrNotFound))
	if err := c.Requests(q.Surface).ReplyQuestion(ctx, "/work/demo", q.SessionID, q.ID, [][]string{{"Red"}}); err != nil {
		fmt.Println(err)
	}
	r := srv.Replies()[0]
	fmt.Println(r.Kind, r.RequestID, r.Answers, r.Surface)
	// Output:
	// que_1 api
	// legacy route: true
	// question.reply que_1 [[Red]] api
}

// Like the real server, opencode 1.x answers an /api path it does not
// route with a web page; OpenCode 2 answers every path it does not route
// 404.
func TestFakeWebPages(t *testing.T) {
	plain := opencodetest.NewServer()
	t.Cleanup(plain.Close)
	oc2 := opencodetest.NewServer(opencodetest.WithOpencode2(), opencodetest.WithAuth("", ""))
	t.Cleanup(oc2.Close)
	for _, tt := range []struct {
		url, wantType string
		wantStatus    int
	}{
		{plain.URL + "/api/nowhere", "text/html", 200},
		{plain.URL + "/api/health", "application/json", 200},
		{plain.URL + "/global/health", "application/json", 200},
		{oc2.URL + "/global/health", "application/json", 404},
		{oc2.URL + "/question", "application/json", 404},
		{oc2.URL + "/api/health", "application/json", 200},
	} {
		resp, err := http.Get(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.wantStatus || resp.Header.Get("Content-Type") != tt.wantType {
			t.Errorf("GET %s: %d %s, want %d %s", tt.url, resp.StatusCode, resp.Header.Get("Content-Type"), tt.wantStatus, tt.wantType)
		}
	}
}
