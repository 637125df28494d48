package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the module's root, seen from this package's folder, where
// go test runs it.
const repoRoot = "../.."

// TestNoCommentCitesAnIssue: comments and docs are read without the issue
// tracker: "the figures of issue N" tells a reader of go doc nothing.
func TestNoCommentCitesAnIssue(t *testing.T) {
	cite := regexp.MustCompile(`(?i)\bissue (#?\d+)`)
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Ext(path) != ".go" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := cite.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q, which no reader of the code can see: say what it means instead", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
