// Command frameworkonly is what a rule author writes who wants the lint
// framework and none of xpkgkit's rules: it parses the package.yaml files
// given, lints each with one rule of its own and prints the diagnostics.
// internal/consumer's test lists what it links: no built-in rule package,
// no schema validator (kube-openapi's), no API server.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

// teamLabel reports every object without an acme.example/team label.
var teamLabel = linter.Rule{
	ID: "ACME001", Name: "team-label", Severity: linter.SeverityWarning,
	Doc: "Objects need a team label\n\nEvery object of the package names the team that owns it.",
	Run: func(p *linter.Pass) error {
		for _, o := range p.Package.Objects {
			if o.ObjectMeta.Labels["acme.example/team"] == "" {
				p.Reportf(o, []string{"metadata"}, "%s %s has no acme.example/team label", o.Kind, o.ObjectMeta.Name)
			}
		}
		return nil
	},
}

func main() {
	ctx := context.Background()
	for _, path := range os.Args[1:] {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pkg, err := parser.Parse(ctx, f, parser.WithFile(path))
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		rule := teamLabel
		res, err := linter.Lint(ctx, pkg, linter.WithRuleSet(&rule))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, d := range res.Diagnostics {
			fmt.Println(d)
		}
	}
}
