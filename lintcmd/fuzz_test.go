package lintcmd

import (
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
)

// FuzzParseConfig: no configuration file makes the checker panic, and one
// it accepts holds only rules it knows and globs that compile.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"ignore:\n  - .github/workflows/*\ndisable: [XP206]\nseverity: {XP104: info}\nfail-on: warning\ncrossplane-version: v2.1.0\n",
		"foo: 1\n", "- a\n", "", "severity:\n  XP104: [x]\n", "ignore: &a [*a]\n", "disable: !!binary aGVsbG8=\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := builtinChecker.parseConfig(t.Context(), "f.yaml", data)
		if err != nil {
			return
		}
		for _, id := range c.disabled {
			if builtinChecker.lookupRule(id) == nil {
				t.Errorf("accepted unknown rule %q", id)
			}
		}
		for _, g := range c.ignore {
			ignored([]string{g}, "a/b.yaml")
		}
	})
}

// FuzzUnifiedDiff: edits anywhere in any text give a diff whose "-" and
// "+" lines are the text's and the edited text's, without a panic.
func FuzzUnifiedDiff(f *testing.F) {
	f.Add("a: 1\nb: 2\nc: 3\n", uint16(3), uint16(4), "10", uint16(8), uint16(9), "20")
	f.Add("x", uint16(0), uint16(1), "y\nz\n", uint16(1), uint16(1), "")
	f.Fuzz(func(t *testing.T, text string, o1, e1 uint16, n1 string, o2, e2 uint16, n2 string) {
		edits := []linter.TextEdit{
			{File: "f", Offset: int64(o1), End: int64(e1), NewText: n1},
			{File: "f", Offset: int64(o2), End: int64(e2), NewText: n2},
		}
		_, ok, _ := linter.ApplyFixes("f", []byte(text), []linter.SuggestedFix{{TextEdits: edits[:1]}, {TextEdits: edits[1:]}})
		d := unifiedDiff("f", []byte(text), ok)
		if !strings.HasPrefix(d, "--- a/f\n+++ b/f\n") {
			t.Fatalf("diff %q", d)
		}
	})
}
