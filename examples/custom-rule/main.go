// Command custom-rule shows how an organisation adds its own lint rule to
// xpkgkit's built-in ones: here, every CompositeResourceDefinition must name
// its owning team in the annotation docs.example.org/owner.
//
// A rule is a plain linter.Rule value (an ID, a kebab-case name, a doc, a
// severity, the package kinds it applies to, and a Run function that reports
// through the Pass); it is tested with linttest against YAML fixtures
// annotated with "# want" comments (see rule_test.go), and run beside the
// built-in rules with linter.WithRules.
//
// Usage:
//
//	custom-rule SOURCE...
//
// Each SOURCE is anything xpkg.Open reads. The exit code is 0 when no
// diagnostic is an error, 1 when one is, 2 when a source cannot be read.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// OwnerAnnotation is the annotation every XRD must carry: the team that
// owns the API.
const OwnerAnnotation = "docs.example.org/owner"

// OwnerRule returns the organisation's rule. It is a function returning a
// fresh value, not a global, so that no caller can change the rule for
// another.
func OwnerRule() *linter.Rule {
	return &linter.Rule{
		ID:       "ORG001",
		Name:     "xrd-owner",
		Severity: linter.SeverityError,
		Kinds:    []meta.Kind{meta.KindConfiguration},
		Doc: `Every XRD names its owner

Each CompositeResourceDefinition must carry the annotation
docs.example.org/owner, naming the team that owns the API it defines, so
that platform users know whom to ask.`,
		Bad:  "kind: CompositeResourceDefinition\nmetadata:\n  name: xnetworks.example.org\n",
		Good: "kind: CompositeResourceDefinition\nmetadata:\n  name: xnetworks.example.org\n  annotations:\n    docs.example.org/owner: team-network\n",
		Run: func(p *linter.Pass) error {
			for _, o := range p.Package.Objects {
				if o.GroupVersionKind().Group != "apiextensions.crossplane.io" || o.Kind != "CompositeResourceDefinition" {
					continue
				}
				if strings.TrimSpace(o.ObjectMeta.Annotations[OwnerAnnotation]) == "" {
					p.Reportf(o, []string{"metadata", "annotations"}, "XRD %s has no %s annotation: name the team that owns it", o.ObjectMeta.Name, OwnerAnnotation)
				}
			}
			return nil
		},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run lints each source with the built-in rules and OwnerRule, and returns
// the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "usage: custom-rule SOURCE...")
		return 2
	}
	ctx := context.Background()
	code := 0
	for _, src := range args {
		pkg, err := xpkg.Open(ctx, src)
		if err != nil {
			fmt.Fprintf(stderr, "custom-rule: %v\n", err)
			return 2
		}
		res, err := pkg.Lint(ctx, linter.WithRules(OwnerRule()))
		if err != nil {
			fmt.Fprintf(stderr, "custom-rule: %v\n", err)
			return 2
		}
		for _, d := range res.Diagnostics {
			fmt.Fprintf(stdout, "%s: %s\n", src, d)
		}
		fmt.Fprintf(stdout, "%s: %d errors, %d warnings, %d infos\n", src,
			res.Count(linter.SeverityError), res.Count(linter.SeverityWarning), res.Count(linter.SeverityInfo))
		if res.AtOrAbove(linter.SeverityError) {
			code = 1
		}
	}
	return code
}
