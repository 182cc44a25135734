package apiserver_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apiserver"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// TestCompositionModeOnce: at a v2 target, a Resources-mode Composition
// (mode Resources, or spec.resources without a mode) is XP410's finding
// alone: XP422 leaves out the API server's refusals of the same problem
// (issue 34, item 8: one Composition problem was reported twice).
func TestCompositionModeOnce(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../rules/testdata/rules/XP410/bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := parser.Parse(context.Background(), strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	opts := append(apiserver.LintOptions(), linter.WithCrossplaneVersion("v2.4.0"))
	res, err := linter.Lint(context.Background(), pkg, append([]linter.Option{linter.WithRuleSet(rules.Builtin()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, d := range res.Diagnostics {
		if d.Object.Kind == "Composition" {
			per[d.RuleID]++
		}
	}
	if per["XP410"] != 2 || per["XP422"] != 0 {
		t.Errorf("Composition findings by rule %v, want XP410: 2 and no XP422", per)
	}
}
