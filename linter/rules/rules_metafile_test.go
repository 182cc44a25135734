package rules_test

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// TestMetaFileName runs XP008 over package directories: one whose meta
// object is in meta.yaml (an info at the meta object, and nothing worse),
// one with crossplane.yaml (nothing).
func TestMetaFileName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file string
		want       bool
	}{
		{"meta.yaml", "meta.yaml", true},
		{"crossplane.yaml", "crossplane.yaml", false},
		{"nested", "package/provider.yml", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := fstest.MapFS{tc.file: {Data: []byte(provider)}}
			pkg, err := parser.ParseFS(context.Background(), fsys)
			if err != nil {
				t.Fatal(err)
			}
			res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(rules.Lookup("XP008")))
			if err != nil {
				t.Fatal(err)
			}
			var got []linter.Diagnostic
			for _, d := range res.Diagnostics {
				if d.RuleID == "XP008" {
					got = append(got, d)
				}
			}
			if !tc.want {
				if len(got) != 0 {
					t.Errorf("diagnostics %v; want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Severity != linter.SeverityInfo || got[0].Pos.File != tc.file || got[0].Pos.Line != 1 ||
				got[0].Message != "the meta object is in "+tc.file+", not crossplane.yaml: crossplane xpkg build finds it in any YAML file, but crossplane.yaml is where people and tools look for it" {
				t.Errorf("diagnostics %v; want one info at %s:1", got, tc.file)
			}
		})
	}
}
