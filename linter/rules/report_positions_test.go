package rules_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// TestReportPositionsManyDiagnostics lints a Configuration with 2 000
// dependencies, each with an invalid version: 2 000 diagnostics on one
// object. Their positions are resolved with one parse of the object (asking
// the object for each one parsed it again each time: quadratic, 40 s for
// the hostile corpus's 5 000), and each must point at its own entry.
func TestReportPositionsManyDiagnostics(t *testing.T) {
	t.Parallel()
	const n = 2000
	var b strings.Builder
	b.WriteString("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: flood\nspec:\n  dependsOn:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.example.com/p%d\n    version: \">=v1.0.0 <<< %d\"\n", i, i)
	}
	p, err := parser.Parse(t.Context(), strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	// Uncapped: the point is the positions of all 2 000.
	res, err := linter.Lint(t.Context(), p, linter.WithRuleSet(rules.Builtin()...), linter.WithMaxDiagnostics(0))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, d := range res.Diagnostics {
		if !strings.HasPrefix(d.Field, "spec.dependsOn[") || !strings.HasSuffix(d.Field, "].version") {
			continue
		}
		var i int
		if _, err := fmt.Sscanf(d.Field, "spec.dependsOn[%d].version", &i); err != nil {
			t.Fatalf("field %q: %v", d.Field, err)
		}
		// Entry i's version key is on line 7 + 4*i + 3 (1-based).
		if want := 7 + 4*i + 3; d.Pos.Line != want {
			t.Errorf("%s: line %d, want %d", d.Field, d.Pos.Line, want)
		}
		seen[i] = true
	}
	if len(seen) != n {
		t.Errorf("%d dependencies with a version diagnostic, want %d", len(seen), n)
	}
}
