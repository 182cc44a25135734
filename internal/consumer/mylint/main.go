// Command mylint is what a platform team writes to ship its own rule with
// the whole xpkg-lint command line (internal/consumer's test runs it).
package main

import (
	"github.com/xpkgkit/xpkgkit/lintcmd"
	"github.com/xpkgkit/xpkgkit/linter"
)

func main() {
	lintcmd.Main(&linter.Rule{
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
	})
}
