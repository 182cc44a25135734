package rules

import "github.com/xpkgkit/xpkgkit/linter"

func ruleBaseLayers() *linter.Rule {
	return &linter.Rule{
		ID: "XP501", Name: "base-layers", Severity: linter.SeverityError, Requires: []any{imageFactsKey{}},
		Doc: `More than one layer annotated io.crossplane.xpkg: base

The xpkg specification allows at most one layer descriptor with the
annotation io.crossplane.xpkg: base; that layer holds package.yaml. With
two, which one is the package is ambiguous. The verdict follows the
target:

- up to v2.1: Crossplane refuses the package ("package is invalid due to
  multiple annotated base layers"; crossplane v2.1.0,
  internal/controller/pkg/revision/imageback.go, ImageBackend.Init, which
  also refuses an image of more than 256 layers): an error;
- from v2.2: imageback.go is gone (crossplane commit 99aae5796, "Use
  xpkg.Client in revision controller"): the package is read by
  ExtractPackageYAML (crossplane v2.2.0 internal/xpkg/client.go; from v2.3
  crossplane-runtime pkg/xpkg), which takes the first base layer and
  ignores the others, and no layer cap remains: a warning, since a later
  base layer is likely a mistake.

Each base layer after the first is reported, by digest (the diagnostic's
file).`,
		Bad:  "# image facts\nbaseLayers: [sha256:aaa..., sha256:bbb...]\n",
		Good: "# image facts\nbaseLayers: [sha256:aaa...]\n",
		Run: func(p *linter.Pass) error {
			if len(imageFacts(p).BaseLayers) < 2 {
				return nil
			}
			single := release(p).SingleBaseLayer
			for _, d := range imageFacts(p).BaseLayers[1:] {
				if canceled(p) {
					return p.Context().Err()
				}
				if !single {
					p.Report(linter.Diagnostic{Severity: linter.SeverityWarning, Pos: imagePos(p, d), Message: "layer " + token(d) + " is a second base layer (io.crossplane.xpkg: base): Crossplane " + targetName(p) + " reads the first, " + token(imageFacts(p).BaseLayers[0]) + ", and ignores this one"})
					continue
				}
				p.Report(linter.Diagnostic{Pos: imagePos(p, d), Message: "layer " + token(d) + " is a second base layer (io.crossplane.xpkg: base); the first is " + token(imageFacts(p).BaseLayers[0]) + ": at most one layer may carry the annotation, and Crossplane " + targetName(p) + " refuses the package"})
			}
			return nil
		},
	}
}

func ruleNoBaseAnnotation() *linter.Rule {
	return &linter.Rule{
		ID: "XP502", Name: "no-base-annotation", Severity: linter.SeverityWarning, Requires: []any{imageFactsKey{}},
		Doc: `No base annotation: package.yaml came from the flattened filesystem

No layer is annotated io.crossplane.xpkg: base, so package.yaml was read
from the filesystem that results from applying every layer in order. That
works, but the specification prefers the annotation: a later layer can
overwrite the package by accident, and a reader must process every layer.
Build the package with crossplane xpkg build, which annotates the layer.`,
		Bad:  "# image facts\nflattened: true\npackageYAMLPath: package.yaml\n",
		Good: "# image facts\nbaseLayers: [sha256:aaa...]\npackageYAMLPath: package.yaml\n",
		Run: func(p *linter.Pass) error {
			if imageFacts(p).Flattened && len(imageFacts(p).BaseLayers) == 0 {
				p.Report(linter.Diagnostic{Pos: imagePos(p, ""), Message: "no layer is annotated io.crossplane.xpkg: base: package.yaml was read from the flattened filesystem"})
			}
			return nil
		},
	}
}

func rulePackageYAMLLocation() *linter.Rule {
	return &linter.Rule{
		ID: "XP503", Name: "package-yaml-location", Severity: linter.SeverityError, Requires: []any{imageFactsKey{}},
		Doc: `No package.yaml at the root, but one elsewhere in the layer

The xpkg specification puts package.yaml at the root of the base layer (or
of the flattened filesystem), and xpkgkit reads it only there: an image
with package.yaml only in a directory, such as a/package.yaml, is not a
package by the specification, and xpkgkit has nothing to lint. The rule
names the misplaced files. Crossplane itself is laxer: it takes the first
file named package.yaml in any directory of the layer (crossplane v2.1.0,
internal/controller/pkg/revision, ImageBackend.Init compares only the base
name), so it may install such an image. xpkgkit deliberately keeps this an
error: which file Crossplane picks depends on the order of the tar
entries, and nothing was checked.`,
		Bad:  "# image facts\nmisplacedPackageYAML: [package/package.yaml]\n",
		Good: "# image facts\npackageYAMLPath: package.yaml\n",
		Run: func(p *linter.Pass) error {
			if imageFacts(p).PackageYAMLPath != "" || len(imageFacts(p).MisplacedPackageYAML) == 0 {
				return nil
			}
			p.Report(linter.Diagnostic{Pos: imagePos(p, ""), Message: "no package.yaml at the root of the image, but " + joinValues(imageFacts(p).MisplacedPackageYAML, token) + ": Crossplane reads only /package.yaml"})
			return nil
		},
	}
}

func ruleLegacyStack() *linter.Rule {
	return &linter.Rule{
		ID: "XP504", Name: "legacy-stack", Severity: linter.SeverityError, Requires: []any{imageFactsKey{}},
		Doc: `The content is the defunct stack layout

Crossplane's first package format, the "stack" (a .registry directory with
app.yaml, install.yaml, resources/ and icons), was replaced by the xpkg
format (package format v2) and its design marked defunct. No supported
Crossplane installs a stack: it finds no package.yaml in the image
("couldn't find package.yaml file after checking N files in the archive";
crossplane v2.1.0, internal/controller/pkg/revision, ImageBackend.Init).
Rebuild the package as an xpkg, with a crossplane.yaml meta object and its
CRDs or XRDs.`,
		Bad:  "# image facts\nlegacyStack: true\nlegacyStackPath: .registry/app.yaml\n",
		Good: "# image facts\npackageYAMLPath: package.yaml\n",
		Run: func(p *linter.Pass) error {
			if !imageFacts(p).LegacyStack {
				return nil
			}
			path := imageFacts(p).LegacyStackPath
			if path == "" {
				path = ".registry/app.yaml"
			}
			p.Report(linter.Diagnostic{Pos: imagePos(p, ""), Message: "the image holds " + token(path) + ": it is a Crossplane stack, the defunct first package format, which no supported Crossplane installs; rebuild it as an xpkg"})
			return nil
		},
	}
}
