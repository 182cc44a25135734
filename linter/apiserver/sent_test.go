package apiserver

import (
	"context"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// TestKindsNotSent: an object whose zero values would take it past
// internal/sent's node limit as sent is reported as not validated (an
// info), never as valid or refused; a small one is validated (its
// steps all named "" draw errors).
func TestKindsNotSent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		steps    int
		wantInfo bool
	}{{10, false}, {58_000, true}} {
		var b strings.Builder
		b.WriteString("apiVersion: ops.crossplane.io/v1alpha1\nkind: Operation\nmetadata:\n  name: many\nspec:\n  mode: Pipeline\n  pipeline:\n")
		b.WriteString(strings.Repeat("  - {}\n", c.steps))
		pkg, err := parser.Parse(context.Background(), strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(ruleKinds()), linter.WithCrossplaneVersion("v2.4.0"))
		if err != nil {
			t.Fatal(err)
		}
		var info, errs int
		for _, d := range res.Diagnostics {
			switch {
			case d.Severity == linter.SeverityInfo && strings.Contains(d.Message, "not validated: the object as sent exceeds the node limit"):
				info++
			case d.Severity == linter.SeverityError:
				errs++
			}
		}
		if (info == 1) != c.wantInfo || c.wantInfo && errs > 0 || !c.wantInfo && errs == 0 {
			t.Errorf("%d empty steps: %d not-validated infos and %d errors; want the info %v (else errors)", c.steps, info, errs, c.wantInfo)
		}
	}
}
