package main

import (
	"strings"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/meta"
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
