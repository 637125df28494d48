package risk

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// kindNames are how Describe shows what a value or operand may be.
var kindNames = map[argKind]string{
	argPath:     "PATH",
	argText:     "TEXT",
	argPattern:  "PATTERN",
	argNumber:   "N",
	argContext:  "CONTEXT",
	argRev:      "REV",
	argSedLine:  "LINES",
	argJqPath:   "FILTER",
	argDateFmt:  "+FORMAT",
	argStatFmt:  "FORMAT",
	argGitFmt:   "FORMAT",
	argCmdName:  "NAME",
	argChar:     "CHAR",
	argList:     "LIST",
	argSortKey:  "KEY",
	argType:     "TYPE",
	argExt:      "EXT",
	argRange:    "RANGE",
	argDateText: "DATE",
}

// Describe renders the grammar as a Markdown list, one program (or git
// subcommand) a line, for docs/auto-approval.md: what auto-approval allows is then
// read from the table itself.
func Describe() string {
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(grammarTable())) {
		p := grammarTable()[n]
		if p.subs == nil {
			fmt.Fprintf(&b, "- `%s`%s\n", n, describeSpec(p.spec))
			continue
		}
		fmt.Fprintf(&b, "- `%s`, with `%s` before the subcommand, or `%s %s` alone:\n", n,
			strings.Join(sortedKeys(p.global), "`, `"), n, strings.Join(sortedKeys(p.spec.opts), " "))
		for _, s := range slices.Sorted(maps.Keys(p.subs)) {
			fmt.Fprintf(&b, "  - `%s %s`%s\n", n, s, describeSpec(p.subs[s]))
		}
	}
	return b.String()
}

func describeSpec(s spec) string {
	var parts []string
	if len(s.opts) > 0 {
		var os []string
		for _, name := range sortedKeys(s.opts) {
			o := s.opts[name]
			switch {
			case o.kind == argNone:
				os = append(os, "`"+name+"`")
			case o.kind == argEnum:
				os = append(os, "`"+name+"` "+strings.Join(o.values, "|"))
			case o.attached && strings.HasPrefix(name, "--"):
				os = append(os, "`"+name+"="+kindNames[o.kind]+"`")
			case o.attached:
				os = append(os, "`"+name+kindNames[o.kind]+"`")
			default:
				os = append(os, "`"+name+" "+kindNames[o.kind]+"`")
			}
		}
		if s.numericShort {
			os = append(os, "`-N`")
		}
		parts = append(parts, "options "+strings.Join(os, " "))
	}
	var ops []string
	for _, k := range s.lead {
		ops = append(ops, kindNames[k])
	}
	switch {
	case s.max == 0:
	case s.revsThenPaths:
		ops = append(ops, "REV… [--] PATH…")
	case s.max < 0:
		ops = append(ops, kindNames[s.rest]+"…")
	default:
		for range s.max {
			ops = append(ops, "["+kindNames[s.rest]+"]")
		}
	}
	if len(ops) > 0 {
		parts = append(parts, "operands "+strings.Join(ops, " "))
	} else {
		parts = append(parts, "no operands")
	}
	return ": " + strings.Join(parts, "; ")
}

func sortedKeys(m map[string]opt) []string { return slices.Sorted(maps.Keys(m)) }
