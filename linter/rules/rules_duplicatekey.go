package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"fmt"

	"github.com/xpkgkit/xpkgkit/parser"
)

func ruleDuplicateKey() *linter.Rule {
	return &linter.Rule{
		ID: "XP007", Name: "duplicate-key", Severity: linter.SeverityWarning,
		Doc: `A key is given twice in one mapping

YAML forbids a mapping with the same key twice, but Crossplane reads it:
its package parser decodes each document with apimachinery's YAML
serializer, which converts YAML to JSON through sigs.k8s.io/yaml without
its strict mode, and the last value of the key wins, silently
(crossplane-runtime v2.1.0, pkg/parser, PackageParser.Parse). xpkgkit reads
the document the same way, and reports the later key here, naming the line
of the earlier one, whose value is lost: usually an edit that left a stale
copy behind. Keep one of the two.`,
		Bad:  metaHead + "spec:\n  crossplane:\n    version: \">=v1.14.0\"\n    version: \">=v2.0.0\"  # the first version is lost\n",
		Good: metaHead + "spec:\n  crossplane:\n    version: \">=v2.0.0\"\n",
		Run: func(p *linter.Pass) error {
			for _, objs := range [][]*parser.Object{p.Package.Meta, p.Package.Objects} {
				for obj := range each(p, objs) {
					if obj == nil {
						continue
					}
					for _, d := range obj.DuplicateKeys {
						p.Report(linter.Diagnostic{
							Pos: d.Pos, Object: obj.Ref(),
							Message: fmt.Sprintf("key %s is given again (first on line %d): the last value wins, as Crossplane reads it", token(d.Key), d.FirstLine),
						})
					}
					if obj.MoreDuplicateKeys > 0 {
						p.Report(linter.Diagnostic{
							Pos: obj.DuplicateKeys[len(obj.DuplicateKeys)-1].Pos, Object: obj.Ref(),
							Message: fmt.Sprintf("%d more keys of this document are given twice", obj.MoreDuplicateKeys),
						})
					}
				}
			}
			return p.Context().Err()
		},
	}
}
