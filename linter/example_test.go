package linter_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

// A platform team's own rule: every object must carry a team label. Lint
// runs the rules it is given, here that one alone; the built-in rules are
// linter/rules's (rules.Builtin), added by whoever wants them.
func Example() {
	teamLabel := &linter.Rule{
		ID:       "ACME001",
		Name:     "team-label",
		Severity: linter.SeverityWarning,
		Doc:      "Objects need a team label\n\nEvery object of the package names the team that owns it.",
		Run: func(p *linter.Pass) error {
			for _, o := range p.Package.Objects {
				if o.ObjectMeta.Labels["acme.example/team"] == "" {
					p.Reportf(o, []string{"metadata"}, "%s %q has no acme.example/team label", o.Kind, o.ObjectMeta.Name)
				}
			}
			return nil
		},
	}

	stream := `apiVersion: meta.pkg.crossplane.io/v1
kind: Provider
metadata:
  name: provider-example
  annotations:
    meta.crossplane.io/maintainer: Example <maintainers@example.org>
    meta.crossplane.io/source: https://github.com/example/provider-example
    meta.crossplane.io/license: Apache-2.0
    meta.crossplane.io/description: Manages example buckets.
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller
`
	ctx := context.Background()
	pkg, err := parser.Parse(ctx, strings.NewReader(stream), parser.WithFile("package.yaml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := linter.Lint(ctx, pkg, linter.WithRules(teamLabel))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range res.Diagnostics {
		fmt.Println(d)
	}
	fmt.Println("fails:", res.AtOrAbove(linter.SeverityError))
	// Output:
	// package.yaml:13:1: warning ACME001 team-label: Deployment "controller" has no acme.example/team label
	// fails: false
}
