package xpkg_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

const (
	patFunction = "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform"
	awsProvider = "xpkg.crossplane.io/crossplane-contrib/provider-aws"
)

// openFixtures are packages built with xpkgtest, each read in every form.
func openFixtures() map[string]*xpkgtest.Package {
	broken := func(b xpkgtest.Broken) *xpkgtest.Package {
		p, _ := b.Package()
		return p
	}
	return map[string]*xpkgtest.Package{
		"provider": xpkgtest.NewProvider("provider-example").
			WithCrossplaneConstraint(">=v1.14.0").
			WithCRD("example.org", "Widget", "v1alpha1", "v1beta1").
			WithCRD("example.org", "Gadget"),
		"configuration with examples": xpkgtest.NewConfiguration("configuration-example").
			WithCrossplaneConstraint(">=v1.14.0").
			WithXRD("example.org", "XNetwork", "v1alpha1").
			WithComposition("xnetworks.example.org", "example.org/v1alpha1", "XNetwork", "crossplane-contrib-function-patch-and-transform").
			WithDependency(meta.KindFunction, patFunction, ">=v0.8.0").
			WithExample([]byte("apiVersion: example.org/v1alpha1\nkind: XNetwork\nmetadata:\n  name: example\nspec: {}\n")),
		"function": xpkgtest.NewFunction("function-example").
			WithCRD("fn.example.org", "Input", "v1beta1"),
		"warnings and errors": xpkgtest.NewProvider("provider-problems").
			WithoutAnnotation(meta.AnnotationLicense).
			WithDependency(meta.KindProvider, "crossplane-contrib/provider-aws", "not a version").
			WithDependency(meta.KindProvider, awsProvider+":v1.0.0", ">=v1.0.0").
			WithCRD("example.org", "Widget").
			WithObject([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: not-allowed\n")).
			WithObject([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n")).
			WithObject([]byte("just a scalar\n")),
		"two metas":                 broken(xpkgtest.TwoMetas),
		"bad crossplane constraint": broken(xpkgtest.BadCrossplaneConstraint),
		"no meta":                   broken(xpkgtest.NoMeta),
	}
}

// TestOpenSameDiagnostics is the acceptance test for packages built from
// the same YAML in every form: the same objects and the same diagnostics,
// with the same positions, apart from file names and the image rules.
func TestOpenSameDiagnostics(t *testing.T) {
	t.Parallel()
	for name, fix := range openFixtures() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			offsets := streamLines(fix)
			var (
				wantObjects []string
				wantDiags   []string
				ref         string
			)
			for _, f := range fixtureForms(t, fix) {
				p, err := f.open(t)
				// A directory without crossplane.yaml whose tree holds YAML
				// files is still a package directory, as crossplane xpkg
				// build reads it: "no meta" draws XP101 in every form.
				if err != nil {
					t.Fatalf("%s: Open: %v", f.name, err)
				}
				if p.SourceKind != f.kind {
					t.Errorf("%s: Kind = %v, want %v", f.name, p.SourceKind, f.kind)
				}
				res := mustLint(t, p)
				var lineMap map[string]int
				if f.kind == xpkg.SourceDirectory {
					lineMap = offsets
				}
				objs, diags := objectNames(p), diagnosticLines(res.Diagnostics, lineMap)
				if wantObjects == nil {
					wantObjects, wantDiags, ref = objs, diags, f.name
					if len(diags) == 0 && name == "warnings and errors" {
						t.Fatalf("%s: no diagnostics for a package with problems", f.name)
					}
					continue
				}
				if d := cmp.Diff(wantObjects, objs); d != "" {
					t.Errorf("objects of %s differ from those of %s (-%s +%s):\n%s", f.name, ref, ref, f.name, d)
				}
				if d := cmp.Diff(wantDiags, diags); d != "" {
					t.Errorf("diagnostics of %s differ from those of %s (-%s +%s):\n%s", f.name, ref, ref, f.name, d)
				}
			}
		})
	}
}

// TestOpenFixtureDetails checks what Open records beside the YAML: kinds,
// image facts, digests, examples, roots.
func TestOpenFixtureDetails(t *testing.T) {
	t.Parallel()
	fix := openFixtures()["configuration with examples"]
	img := fix.MustImage(t)
	for _, f := range fixtureForms(t, fix) {
		t.Run(f.name, func(t *testing.T) {
			p, err := f.open(t)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if p.Pkg() == nil || p.Pkg().GetName() != "configuration-example" {
				t.Errorf("meta object not read: %v", p.Meta)
			}
			isImage := f.kind != xpkg.SourceDirectory && f.kind != xpkg.SourcePackageYAML && f.name != "reader-yaml"
			if (p.Image != nil) != isImage {
				t.Fatalf("Image = %v, want an image: %v", p.Image, isImage)
			}
			hasExamples := f.kind != xpkg.SourcePackageYAML && f.name != "reader-yaml"
			if got := p.Examples != nil && len(p.Examples.Objects) == 1; got != hasExamples {
				t.Errorf("examples read = %v, want %v (%+v)", got, hasExamples, p.Examples)
			}
			if !isImage {
				return
			}
			im := p.Image
			if im.Manifest.Config.Digest != img.Manifest().Config.Digest {
				t.Errorf("ConfigDigest = %s, want %s", im.Manifest.Config.Digest, img.Manifest().Config.Digest)
			}
			if f.kind == xpkg.SourceOCILayout && im.ManifestDigest != img.Digest() {
				t.Errorf("ManifestDigest = %s, want %s", im.ManifestDigest, img.Digest())
			}
			base := img.Manifest().Layers[0]
			if im.BaseLayer == nil || im.BaseLayer.Digest != base.Digest || im.PackageLayer == nil || im.PackageLayer.Digest != base.Digest {
				t.Errorf("BaseLayer = %v, PackageLayer = %v, want %s", im.BaseLayer, im.PackageLayer, base.Digest)
			}
			if im.ExamplesLayer == nil || im.ExamplesLayer.Digest != img.Manifest().Layers[1].Digest {
				t.Errorf("ExamplesLayer = %v", im.ExamplesLayer)
			}
			want := linterFacts(p.Source, base.Digest.String(), img.Manifest().Layers[1].Digest.String())
			if d := cmp.Diff(want, im.Facts); d != "" {
				t.Errorf("Facts (-want +got):\n%s", d)
			}
			if len(im.Layers) != 2 || im.Layers[0].Annotations[xpkg.AnnotationKey] != xpkg.AnnotationBase {
				t.Errorf("Layers = %v, want two with the base annotation on the first", im.Layers)
			}
		})
	}
}

// TestOpenPackageSubdir reads a repository whose package is in package/.
func TestOpenPackageSubdir(t *testing.T) {
	t.Parallel()
	p, err := xpkg.Open(t.Context(), "testdata/open/repository")
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if p.SourceKind != xpkg.SourceDirectory || !strings.HasSuffix(p.Root, "package") {
		t.Errorf("Kind = %v, Root = %q, want a directory rooted at package/", p.SourceKind, p.Root)
	}
	if got, want := objectNames(p), []string{
		"apiextensions.k8s.io/v1/CustomResourceDefinition widgets.example.org",
		"meta.pkg.crossplane.io/v1/Provider provider-in-subdir",
	}; !slices.Equal(got, want) {
		t.Errorf("objects = %v, want %v", got, want)
	}
	for _, o := range p.Objects {
		if o.Pos.File != "crds/widgets.yaml" {
			t.Errorf("position file = %q, want it relative to the package root", o.Pos.File)
		}
	}
}
