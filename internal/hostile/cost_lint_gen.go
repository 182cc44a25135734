package hostile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// lintCostBytes is the fixed input size of the lint worst cases: each
// fills a package.yaml stream of about this many bytes with what makes its
// rules work hardest (the most objects of the kinds they read, the most
// diagnostics), so that the cost of every rule is measured on inputs of
// one size. It is the size of the quadratic examples: 6 000 meta
// objects, or 3 000 XRDs and 3 000 Compositions.
const lintCostBytes = 1 << 20

// lintWorst is the worst case of one or more lint rules.
type lintWorst struct {
	// rules are the IDs of the built-in rules whose work the case
	// maximises; every built-in rule must be named by some case
	// (TestLintWorstCasesCoverEveryRule).
	rules []string
	// needsVersion says the rules run only with a target Crossplane version
	// (linter.WithCrossplaneVersion): the coverage test gives one.
	needsVersion bool
	Case
}

// stream returns a package.yaml stream of head, then unit(0), unit(1), …
// until the stream is lintCostBytes long (less tail), then tail.
func stream(head string, unit func(i int) string, tail string) []byte {
	var b bytes.Buffer
	b.Grow(lintCostBytes + 4<<10)
	b.WriteString(head)
	for i := 0; b.Len()+len(tail) < lintCostBytes; i++ {
		b.WriteString(unit(i))
	}
	b.WriteString(tail)
	return b.Bytes()
}

// streamYAML is the Write function of a package.yaml case whose content
// gen returns.
func streamYAML(name string, gen func() []byte) func(context.Context, string) (string, error) {
	return yamlCase(name, func(w io.Writer) error {
		_, err := w.Write(gen())
		return err
	})
}

// streamXpkg is the Write function of a .xpkg case whose package.yaml gen
// returns.
func streamXpkg(name string, gen func() []byte) func(context.Context, string) (string, error) {
	return xpkgCase(name, func() []layerSpec { return packageYAMLLayer(gen())() }, xpkgHooks{})
}

// Heads of the worst cases: meta objects whose own diagnostics are few and
// known, so that the case's outcome is decided by the rules it attacks.
const (
	// badConfiguration is a Configuration whose name is invalid (XP201, a
	// warning).
	badConfiguration = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: Hostile_Cost\n"
	// goodProvider is a Provider meta object.
	goodProvider = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-hostile\n"
	// errorTail is a document that is an error in any package (XP102: a
	// ConfigMap), so that a case whose rules report only warnings or info
	// still fails the run, as every hostile case must.
	errorTail = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hostile-error\n"
	// schemaXRD is an XRD (example.org/v1 XThing) whose schema wants an
	// integer at spec.size.
	schemaXRD = "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: xthings.example.org\nspec:\n  group: example.org\n" +
		"  names: {kind: XThing, plural: xthings}\n  versions:\n  - name: v1\n    served: true\n    referenceable: true\n" +
		"    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size: {type: integer}\n"
	// badProvider is a Provider whose name is invalid (XP201).
	badProvider = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: Provider_Hostile\n"
)

// symlinkDir is the Write function of a package directory whose
// crossplane.yaml is content and which holds n symbolic links named *.yaml
// (the parser does not follow them: XP006 reports each).
func symlinkDir(name string, content []byte, n int) func(context.Context, string) (string, error) {
	return func(ctx context.Context, dir string) (string, error) {
		out, err := caseOutput(dir, name, KindPackageDir)
		if err != nil {
			return "", err
		}
		links := filepath.Join(out, "links")
		if err := os.MkdirAll(links, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(out, "crossplane.yaml"), content, 0o644); err != nil {
			return "", err
		}
		for i := range n {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return "", err
				}
			}
			if err := os.Symlink("../crossplane.yaml", filepath.Join(links, fmt.Sprintf("l%d.yaml", i))); err != nil {
				return "", err
			}
		}
		return out, nil
	}
}

// manyBaseLayers returns n gzip layers, each annotated as the base layer
// and holding a package.yaml (the first one's is valid).
func manyBaseLayers(n int) func() []layerSpec {
	return func() []layerSpec {
		ls := make([]layerSpec, n)
		for i := range ls {
			pkg := validPackage
			if i > 0 {
				pkg = strings.Replace(validPackage, "name: hostile-fixture", fmt.Sprintf("name: hostile-fixture-%d", i), 1)
			}
			ls[i] = baseLayer(tarOf(file("package.yaml", []byte(pkg))))
			ls[i].fast = true
		}
		return ls
	}
}

// misplacedLayers returns n unannotated gzip layers with no package.yaml
// at the root: each holds perLayer files named package.yaml below it, and
// the first the stack layout's .registry/app.yaml.
func misplacedLayers(n, perLayer int) func() []layerSpec {
	return func() []layerSpec {
		ls := make([]layerSpec, n)
		for i := range ls {
			var es []tarEntry
			if i == 0 {
				es = append(es, file(".registry/app.yaml", []byte("name: hostile-stack\n")))
			}
			for j := range perLayer {
				es = append(es, file(fmt.Sprintf("l%d/d%d/package.yaml", i, j), []byte("{}\n")))
			}
			ls[i] = layerSpec{mediaType: ocispec.MediaTypeImageLayerGzip, tar: tarOf(es...), fast: true}
		}
		return ls
	}
}

// flatLayers returns n unannotated gzip layers, each holding one small
// file, the last also package.yaml (content).
func flatLayers(n int, content []byte) func() []layerSpec {
	return func() []layerSpec {
		ls := make([]layerSpec, n)
		for i := range ls {
			es := []tarEntry{file(fmt.Sprintf("f%d.txt", i), []byte("x\n"))}
			if i == n-1 {
				es = append(es, file("package.yaml", content))
			}
			ls[i] = layerSpec{mediaType: ocispec.MediaTypeImageLayerGzip, tar: tarOf(es...), fast: true}
		}
		return ls
	}
}
