package consumer_test

import (
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/linttest"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/meta"
)

// teamLabel is a platform team's own rule: every CRD names its owning team.
var teamLabel = &linter.Rule{
	ID:       "ACME001",
	Name:     "team-label",
	Severity: linter.SeverityWarning,
	Kinds:    []meta.Kind{meta.KindProvider},
	Doc: `A CRD has no team label

Every CustomResourceDefinition carries the acme.example/team label.`,
	Run: func(p *linter.Pass) error {
		for _, o := range p.Package.Objects {
			if o.Kind != "CustomResourceDefinition" {
				continue
			}
			if _, ok := o.Labels["acme.example/team"]; !ok {
				p.Reportf(o, []string{"metadata"}, "CRD %s has no acme.example/team label", o.Name)
			}
		}
		return nil
	},
}

func TestCustomRule(t *testing.T) {
	t.Parallel()
	if err := linter.Validate(append(rules.Builtin(), teamLabel)); err != nil {
		t.Fatal(err)
	}
	if results := linttest.Run(t, "testdata/rule", []*linter.Rule{teamLabel}); len(results) == 0 {
		t.Fatal("no fixtures ran")
	}
}
