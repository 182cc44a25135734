package rules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// TestExampleOfBuiltinType: XP408 does not say that an example of a core
// Kubernetes type (a v1 Secret) or of an unserved Crossplane type "may come
// from a dependency": no package serves those (issue 34, item 8); an
// example of another group may.
func TestExampleOfBuiltinType(t *testing.T) {
	t.Parallel()
	const pkgYAML = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: c\n"
	for _, tc := range []struct {
		example, want, notWant string
	}{
		{"apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n", "v1 Secret is a Kubernetes type", "dependency"},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n", "is a Kubernetes type", "dependency"},
		{"apiVersion: ops.crossplane.io/v1alpha1\nkind: Nonexistent\nmetadata:\n  name: o\n", "is a Crossplane type", "dependency"},
		{"apiVersion: acme.example.org/v1\nkind: Bucket\nmetadata:\n  name: b\n", "may come from a dependency", "Kubernetes type"},
	} {
		pkg, err := parser.Parse(context.Background(), strings.NewReader(pkgYAML))
		if err != nil {
			t.Fatal(err)
		}
		ex, err := parser.Parse(context.Background(), strings.NewReader(tc.example))
		if err != nil {
			t.Fatal(err)
		}
		res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(rules.Lookup("XP408")), rules.WithExamples(ex))
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, d := range res.Diagnostics {
			msgs = append(msgs, d.Message)
		}
		all := strings.Join(msgs, "\n")
		if !strings.Contains(all, tc.want) || strings.Contains(all, tc.notWant) {
			t.Errorf("%s: %q, want %q and not %q", strings.SplitN(tc.example, "\n", 3)[1], all, tc.want, tc.notWant)
		}
	}
}
