package lintcmd_test

import (
	"context"
	"fmt"
	"os"

	"github.com/xpkgkit/xpkgkit/lintcmd"
	"github.com/xpkgkit/xpkgkit/linter"
)

// A lint program with a rule of its own: here it is run on one package
// directory, in a program it is lintcmd.Main(rule) in main.
func Example() {
	rule := &linter.Rule{
		ID: "ACME001", Name: "team-annotation", Severity: linter.SeverityWarning,
		Doc: "Every package names its team\n\nThe meta object carries the annotation acme.example/team.",
		Run: func(p *linter.Pass) error {
			for _, m := range p.Package.Meta {
				if m.ObjectMeta.Annotations["acme.example/team"] == "" {
					p.Reportf(m, []string{"metadata", "annotations"}, "no acme.example/team annotation")
				}
			}
			return nil
		},
	}
	c := lintcmd.New(lintcmd.WithRules(rule), lintcmd.WithName("acme-lint"))
	code := c.Run(context.Background(), []string{"--fail-on", "warning", "../xpkg/testdata/build/provider-example"}, nil, os.Stdout, os.Stderr)
	fmt.Println("exit code", code)
	// Output:
	// ../xpkg/testdata/build/provider-example (directory): 0 errors, 1 warning, 0 info
	// ../xpkg/testdata/build/provider-example/crossplane.yaml:6:3: warning ACME001 team-annotation: no acme.example/team annotation
	//
	// 1 source: 0 errors, 1 warning, 0 info
	// exit code 1
}
