package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"github.com/xpkgkit/xpkgkit/parser"
)

func ruleMetaFileName() *linter.Rule {
	return &linter.Rule{
		ID: "XP008", Name: "meta-file-name", Severity: linter.SeverityInfo,
		Doc: `The meta object of a package directory is not in crossplane.yaml

A package in its on-disk format usually keeps its meta object (Provider,
Configuration or Function) in crossplane.yaml at the package root, which is
where people and tools look for it. Crossplane does not require it: crossplane
xpkg build parses every YAML file under the package root and finds the meta
object by its group and kind, whatever the file's name (crossplane v2.1.0,
cmd/crank/xpkg/build.go and internal/xpkg/build.go, which refuses only a
package without exactly one meta object). xpkgkit reads such a directory the
same way and notes the file's name here. Only packages read from a directory
are concerned: in an image the meta object is always in package.yaml.`,
		Bad:  "# the package directory\nmeta.yaml: the Provider\ncrds/bucket.yaml: a CustomResourceDefinition\n",
		Good: "# the package directory\ncrossplane.yaml: the Provider\ncrds/bucket.yaml: a CustomResourceDefinition\n",
		Run: func(p *linter.Pass) error {
			if p.Package.Files == nil { // not read from a directory
				return nil
			}
			m := p.Meta()
			if m == nil || m.Pos.File == parser.MetaFile {
				return nil
			}
			p.Reportf(m, nil, "the meta object is in %s, not %s: crossplane xpkg build finds it in any YAML file, but %s is where people and tools look for it",
				token(m.Pos.File), parser.MetaFile, parser.MetaFile)
			return nil
		},
	}
}
