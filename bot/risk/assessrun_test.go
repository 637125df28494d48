package risk

import (
	"slices"
	"testing"
)

func TestAssessRun(t *testing.T) {
	dir := t.TempDir()
	ok := &Run{Read: true}
	for _, tc := range []struct {
		name  string
		cmd   string
		run   *Run
		want  Level
		first Reason
	}{
		{"no call", "ls", nil, Low, Reason{Code: ReasonProvenReadOnly}},
		{"in the project", "ls", ok, Low, Reason{Code: ReasonProvenReadOnly}},
		{"default timeout", "ls", &Run{Read: true, Timeout: MaxTimeout}, Low, Reason{Code: ReasonProvenReadOnly}},
		{"not read", "ls", &Run{}, Medium, Reason{Code: ReasonToolCallNotRead}},
		{"elsewhere", "ls", &Run{Read: true, Elsewhere: "/p/.git"}, Medium, Reason{Code: ReasonRunsInAnotherFolder, Arg: "/p/.git"}},
		{"a day", "ls", &Run{Read: true, Timeout: 86400000}, Medium, Reason{Code: ReasonMayRunLong, Arg: "24h0m0s"}},
		{"high stays high", "rm -rf /", &Run{Read: true, Elsewhere: "/x"}, High, Reason{Code: ReasonDeletesFilesRecursivelyAndWithout}},
		{"medium stays medium", "make", &Run{Read: true, Elsewhere: "/x"}, Medium, Reason{Code: ReasonRunsInAnotherFolder, Arg: "/x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := AssessRun(dir, "bash", []string{tc.cmd}, bashMeta(tc.cmd), tc.run)
			if a.Level != tc.want || len(a.Details) == 0 || a.Details[0].Code != tc.first.Code || a.Details[0].Arg != tc.first.Arg && tc.first.Arg != "" {
				t.Fatalf("AssessRun(%q, %+v) = %+v, want %s first %+v", tc.cmd, tc.run, a, tc.want, tc.first)
			}
			if a.Level > Low && slices.ContainsFunc(a.Details, func(r Reason) bool { return r.Code == ReasonProvenReadOnly }) {
				t.Errorf("a raised assessment still says it is proven: %+v", a)
			}
			// A raise adds to what Assess says; it never lowers it.
			if base := Assess(dir, "bash", []string{tc.cmd}, bashMeta(tc.cmd)); a.Level < base.Level {
				t.Errorf("AssessRun lowered %s to %s", base.Level, a.Level)
			}
		})
	}
}
