package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// seedSessions is how many sessions the stored requests belong to.
const seedSessions = 500

// seed writes a store of n question requests, already posted and far from
// expiry, spread over the rig's directories, and makes the fake opencode
// list each as pending: the state of a hermes-bot restarted while n
// requests wait, which its sync after connect finds unchanged. It returns
// the path of a new store under o.scratch; copy it before use, since
// hermes-bot changes it.
//
// Each Create commits with an fsync, so the store is written on tmpfs
// when there is one and copied.
func seed(o *options, r *rig, n int) (string, error) {
	build := o.scratch
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "hermes-bench-"); err == nil {
			defer os.RemoveAll(d)
			build = d
		}
	}
	tmp := filepath.Join(build, fmt.Sprintf("seed-%d.tmp.db", n))
	s, err := pending.Open(tmp)
	if err != nil {
		return "", fmt.Errorf("seed store: %w", err)
	}
	now := time.Now()
	for i := range n {
		sess := i % seedSessions
		dir := r.sessionDir(sess)
		q := opencode.QuestionRequest{
			ID:        fmt.Sprintf("que_seed%09d", i),
			SessionID: sessionID(sess),
			Questions: []opencode.Question{{
				Question: fmt.Sprintf("Stored question %d: which database should service %d use?", i, sess),
				Header:   "Database",
				Options:  []opencode.Option{{Label: "Postgres", Description: "relational"}, {Label: "SQLite", Description: "embedded"}},
			}},
			Tool: &opencode.ToolRef{MessageID: fmt.Sprintf("msg_seed%09d", i), CallID: fmt.Sprintf("call_seed%09d", i)},
		}
		r.oc.StoreQuestion(dir, q)
		e := &pending.Entry{
			Kind:          pending.KindQuestion,
			Directory:     dir,
			Project:       "global",
			SessionID:     q.SessionID,
			CallID:        q.Tool.CallID,
			ToolMessageID: q.Tool.MessageID,
			RequestID:     q.ID,
			Places:        map[string]pending.Place{"telegram": pending.Place(fmt.Sprintf(`{"chat":%d,"message":%d}`, benchChatID, 1_000_000+i))},
			SessionTitle:  fmt.Sprintf("Bench session %d", sess),
			CreatedAt:     now.Add(-time.Hour + time.Duration(i)*time.Millisecond),
			ExpiresAt:     now.Add(24 * time.Hour),
		}
		for _, oq := range q.Questions {
			pq := pending.Question{Text: oq.Question, Header: oq.Header, Custom: true}
			for _, op := range oq.Options {
				pq.Options = append(pq.Options, pending.Option{Label: op.Label, Description: op.Description})
			}
			e.Questions = append(e.Questions, pq)
		}
		if err := s.Create(e); err != nil {
			_ = s.Close()
			return "", fmt.Errorf("seed store: %w", err)
		}
	}
	if err := s.Close(); err != nil {
		return "", fmt.Errorf("seed store: %w", err)
	}
	dir, err := os.MkdirTemp(o.scratch, "seed-")
	if err != nil {
		return "", fmt.Errorf("seed store: %w", err)
	}
	path := filepath.Join(dir, fmt.Sprintf("seed-%d.db", n))
	if err := copyFile(tmp, path); err != nil {
		return "", err
	}
	return path, nil
}

// copyFile copies src to a new file dst and syncs it.
func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy store: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("copy store: %w", err)
	}
	defer func() {
		if cerr := out.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("copy store: %w", cerr)
		}
	}()
	if _, err := io.Copy(out, in); err != nil {
		return fmt.Errorf("copy store to %s: %w", dst, err)
	}
	if err := out.Sync(); err != nil {
		return fmt.Errorf("copy store to %s: %w", dst, err)
	}
	return nil
}
