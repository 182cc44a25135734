package xpkgtest_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// validPackages returns one fixture of each kind, with every kind of
// content the builder makes.
func validPackages() map[string]*xpkgtest.Package {
	return map[string]*xpkgtest.Package{
		"provider": xpkgtest.NewProvider("provider-example").
			WithCrossplaneConstraint(">=v1.14.0").
			WithCRD("example.org", "Widget", "v1alpha1", "v1beta1").
			WithCRD("example.org", "Policy").
			WithDependency(meta.KindProvider, "xpkg.crossplane.io/crossplane-contrib/provider-kubernetes", ">=v0.9.0").
			WithAnnotation("meta.crossplane.io/readme", "Manages widgets.").
			WithExample([]byte("apiVersion: example.org/v1alpha1\nkind: Widget\nmetadata:\n  name: small\n")),
		"configuration": xpkgtest.NewConfiguration("configuration-example").
			WithCrossplaneConstraint(">=v1.14.0").
			WithXRD("platform.example.org", "Cluster", "v1alpha1").
			WithComposition("clusters-aws", "platform.example.org/v1alpha1", "Cluster", "crossplane-contrib-function-patch-and-transform").
			WithDependency(meta.KindProvider, "xpkg.crossplane.io/crossplane-contrib/provider-aws", ">=v1.0.0").
			WithDependency(meta.KindFunction, "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform", ">=v0.8.0"),
		"function": xpkgtest.NewFunction("function-example").
			WithCRD("fn.example.org", "Input", "v1beta1"),
	}
}

func TestValidPackagesParse(t *testing.T) {
	t.Parallel()
	want := map[string]struct {
		kind    meta.Kind
		objects int
	}{
		"provider":      {meta.KindProvider, 2},
		"configuration": {meta.KindConfiguration, 2},
		"function":      {meta.KindFunction, 1},
	}
	for name, p := range validPackages() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for form, parse := range map[string]func() (*parser.Package, error){
				"YAML": func() (*parser.Package, error) { return parser.Parse(t.Context(), bytes.NewReader(p.YAML())) },
				"FS":   func() (*parser.Package, error) { return parser.ParseFS(t.Context(), p.FS()) },
				"Dir":  func() (*parser.Package, error) { return parser.ParseFS(t.Context(), os.DirFS(p.Dir(t))) },
			} {
				pkg, err := parse()
				if err != nil {
					t.Fatalf("%s: %v", form, err)
				}
				if len(pkg.Errors) > 0 {
					t.Errorf("%s: parse errors: %v", form, pkg.Errors)
				}
				if len(pkg.Meta) != 1 || meta.Kind(pkg.Meta[0].Kind) != want[name].kind || pkg.Meta[0].ObjectMeta.Name != p.Name() {
					t.Errorf("%s: meta = %v", form, pkg.Meta)
				}
				if len(pkg.Objects) != want[name].objects {
					t.Errorf("%s: %d objects, want %d", form, len(pkg.Objects), want[name].objects)
				}
			}
		})
	}
}

// TestImageMatchesBuild checks that a fixture's image is the image
// xpkg.Build makes from its FS: same package.yaml, same digest.
func TestImageMatchesBuild(t *testing.T) {
	t.Parallel()
	for name, p := range validPackages() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, err := xpkg.Build(t.Context(), p.FS())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(p.YAML()), string(res.PackageYAML())); diff != "" {
				t.Errorf("package.yaml (-fixture +Build):\n%s", diff)
			}
			if diff := cmp.Diff(string(p.ExamplesYAML()), string(res.ExamplesYAML())); diff != "" {
				t.Errorf("examples (-fixture +Build):\n%s", diff)
			}
			if got, want := p.MustImage(t).Digest(), res.Digest(); got != want {
				t.Errorf("digest = %s, Build gives %s", got, want)
			}
		})
	}
}

func TestFixturesAreValues(t *testing.T) {
	t.Parallel()
	base := xpkgtest.NewProvider("provider-base")
	before := string(base.YAML())
	_ = base.WithCRD("example.org", "Widget").WithAnnotation("a", "b").WithoutAnnotation(meta.AnnotationLicense).
		WithDependency(meta.KindProvider, "xpkg.crossplane.io/x/y", ">=v1.0.0").WithExample([]byte("kind: X")).
		WithCrossplaneConstraint(">=v2.0.0")
	if after := string(base.YAML()); after != before {
		t.Errorf("With... changed its receiver:\n%s", cmp.Diff(before, after))
	}
	if base.ExamplesYAML() != nil {
		t.Error("WithExample changed its receiver")
	}
}

func TestManyObjectsKeepOrder(t *testing.T) {
	t.Parallel()
	p := xpkgtest.NewProvider("provider-many")
	for i := range 1001 {
		p = p.WithObject([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-" + string(rune('a'+i%26)) + "\n"))
	}
	res, err := xpkg.Build(t.Context(), p.FS())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.PackageYAML(), p.YAML()) {
		t.Error("Build of FS reorders the objects of a large fixture")
	}
}

func TestWrittenForms(t *testing.T) {
	t.Parallel()
	p := validPackages()["provider"]
	img := p.MustImage(t)
	paths := map[string]string{
		"xpkg":       img.XpkgFile(t),
		"layout":     img.LayoutDir(t),
		"layout tar": img.LayoutTarFile(t),
	}
	if filepath.Ext(paths["xpkg"]) != xpkg.Extension {
		t.Errorf("xpkg file %s lacks the %s extension", paths["xpkg"], xpkg.Extension)
	}
	for form, path := range paths {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			src, err := oci.Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			ri, err := oci.Resolve(t.Context(), src)
			if err != nil {
				t.Fatal(err)
			}
			if ri.Manifest.Config.Digest != img.Manifest().Config.Digest {
				t.Errorf("config digest = %s, want %s", ri.Manifest.Config.Digest, img.Manifest().Config.Digest)
			}
			got := []string{ri.Manifest.Layers[0].Annotations[xpkg.AnnotationKey], ri.Manifest.Layers[1].Annotations[xpkg.AnnotationKey]}
			if diff := cmp.Diff([]string{xpkg.AnnotationBase, xpkg.AnnotationExamples}, got); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			for i, want := range [][]byte{p.YAML(), p.ExamplesYAML()} {
				name := map[int]string{0: xpkg.PackageFile, 1: xpkg.ExamplesFile}[i]
				content := readLayerFile(t, src, ri.Manifest.Layers[i], name)
				if !bytes.Equal(content, want) {
					t.Errorf("%s differs", name)
				}
			}
		})
	}
	yamlFile := p.PackageYAMLFile(t)
	if b, err := os.ReadFile(yamlFile); err != nil || !bytes.Equal(b, p.YAML()) || filepath.Base(yamlFile) != xpkg.PackageFile {
		t.Errorf("PackageYAMLFile %s: %v", yamlFile, err)
	}
}

func readLayerFile(t *testing.T, f oci.Fetcher, layer ocispec.Descriptor, name string) []byte {
	t.Helper()
	file, err := oci.ReadLayerFile(t.Context(), f, layer, name)
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	defer file.Close()
	b, err := io.ReadAll(file)
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	return b
}

// TestBrokenVariants checks that each variant breaks what it says, and
// only that: it can be written and opened in every form.
func TestBrokenVariants(t *testing.T) {
	t.Parallel()
	cases := map[xpkgtest.Broken]struct {
		// check inspects the resolved image; src fetches its blobs.
		check func(t *testing.T, src oci.Fetcher, img *oci.Image)
	}{
		xpkgtest.NoMeta: {check: func(t *testing.T, src oci.Fetcher, img *oci.Image) {
			if pkg := parseBase(t, src, img); len(pkg.Meta) != 0 || len(pkg.Objects) != 1 {
				t.Errorf("%d metas, %d objects; want 0, 1", len(pkg.Meta), len(pkg.Objects))
			}
		}},
		xpkgtest.TwoMetas: {check: func(t *testing.T, src oci.Fetcher, img *oci.Image) {
			if pkg := parseBase(t, src, img); len(pkg.Meta) != 2 {
				t.Errorf("%d metas, want 2", len(pkg.Meta))
			}
		}},
		xpkgtest.BadCrossplaneConstraint: {check: func(t *testing.T, src oci.Fetcher, img *oci.Image) {
			pkg := parseBase(t, src, img)
			if !bytes.Contains(pkg.Meta[0].Raw(), []byte("version: not-a-version")) {
				t.Errorf("meta has no bad constraint:\n%s", pkg.Meta[0].Raw())
			}
		}},
		xpkgtest.TwoBaseLayers: {check: func(t *testing.T, src oci.Fetcher, img *oci.Image) {
			if got := annotations(img); !cmp.Equal(got, []string{"base", "base"}) {
				t.Errorf("annotations = %v", got)
			}
			for _, l := range img.Manifest.Layers {
				readLayerFile(t, src, l, xpkg.PackageFile)
			}
		}},
		xpkgtest.DigestMismatch: {check: func(t *testing.T, src oci.Fetcher, img *oci.Image) {
			if src.(*oci.Source).Format() == oci.FormatDockerArchive {
				return // checked by TestDigestMismatchInXpkg
			}
			_, err := readLayer(t, src, img.Manifest.Layers[0], xpkg.PackageFile)
			if !errors.Is(err, oci.ErrDigestMismatch) {
				t.Errorf("reading the base layer: %v, want ErrDigestMismatch", err)
			}
		}},
		xpkgtest.MisplacedPackageYAML: {check: func(t *testing.T, src oci.Fetcher, img *oci.Image) {
			if _, err := readLayer(t, src, img.Manifest.Layers[0], xpkg.PackageFile); !errors.Is(err, oci.ErrNotFound) {
				t.Errorf("package.yaml at the root: %v, want ErrNotFound", err)
			}
			readLayerFile(t, src, img.Manifest.Layers[0], "package/"+xpkg.PackageFile)
		}},
		xpkgtest.LegacyStack: {check: func(t *testing.T, src oci.Fetcher, img *oci.Image) {
			if got := annotations(img); !cmp.Equal(got, []string{""}) {
				t.Errorf("annotations = %v, want none", got)
			}
			if len(img.Config.Config.Labels) != 0 {
				t.Errorf("labels = %v, want none", img.Config.Config.Labels)
			}
			readLayerFile(t, src, img.Manifest.Layers[0], ".registry/app.yaml")
			if _, err := readLayer(t, src, img.Manifest.Layers[0], xpkg.PackageFile); !errors.Is(err, oci.ErrNotFound) {
				t.Errorf("package.yaml: %v, want ErrNotFound", err)
			}
		}},
	}
	if len(cases) != len(xpkgtest.BrokenVariants()) {
		t.Fatalf("%d cases for %d variants", len(cases), len(xpkgtest.BrokenVariants()))
	}
	for _, b := range xpkgtest.BrokenVariants() {
		t.Run(b.String(), func(t *testing.T) {
			t.Parallel()
			img := b.MustImage(t)
			for form, path := range map[string]string{"xpkg": img.XpkgFile(t), "layout": img.LayoutDir(t), "layout tar": img.LayoutTarFile(t)} {
				src, err := oci.Open(t.Context(), path)
				if err != nil {
					t.Fatalf("%s: %v", form, err)
				}
				ri, err := oci.Resolve(t.Context(), src)
				if err != nil {
					t.Fatalf("%s: %v", form, err)
				}
				cases[b].check(t, src, ri)
				src.Close()
			}
			p, ok := b.Package()
			if ok != (b <= xpkgtest.BadCrossplaneConstraint) {
				t.Errorf("Package() ok = %v", ok)
			}
			if ok {
				if _, has := p.FS()[parser.MetaFile]; has == (b == xpkgtest.NoMeta) {
					t.Errorf("crossplane.yaml present = %v", has)
				}
			}
		})
	}
}

// TestDigestMismatchInXpkg checks the docker archive of DigestMismatch,
// where the digest is only in names: the layer's file is named after a
// digest its content does not have.
func TestDigestMismatchInXpkg(t *testing.T) {
	t.Parallel()
	img := xpkgtest.DigestMismatch.MustImage(t)
	data, err := os.ReadFile(img.XpkgFile(t))
	if err != nil {
		t.Fatal(err)
	}
	claimed := img.Manifest().Layers[0].Digest
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no layer file %s.tar.gz: %v", claimed.Encoded(), err)
		}
		if h.Name != claimed.Encoded()+".tar.gz" {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if digest.FromBytes(b) == claimed {
			t.Error("the layer's content matches the digest it is named after")
		}
		return
	}
}

func TestBrokenString(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, b := range xpkgtest.BrokenVariants() {
		if seen[b.String()] {
			t.Errorf("two variants named %s", b)
		}
		seen[b.String()] = true
	}
	if got := xpkgtest.Broken(99).String(); got != "Broken(99)" {
		t.Errorf("String() = %s", got)
	}
	if _, err := xpkgtest.Broken(99).Image(t.Context()); err == nil {
		t.Error("Image of an unknown variant succeeded")
	}
}

func annotations(img *oci.Image) []string {
	var out []string
	for _, l := range img.Manifest.Layers {
		out = append(out, l.Annotations[xpkg.AnnotationKey])
	}
	return out
}

func readLayer(t *testing.T, f oci.Fetcher, layer ocispec.Descriptor, name string) ([]byte, error) {
	t.Helper()
	file, err := oci.ReadLayerFile(t.Context(), f, layer, name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return io.ReadAll(file)
}

func parseBase(t *testing.T, f oci.Fetcher, img *oci.Image) *parser.Package {
	t.Helper()
	pkg, err := parser.Parse(t.Context(), bytes.NewReader(readLayerFile(t, f, img.Manifest.Layers[0], xpkg.PackageFile)))
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

func TestPlural(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"Widget": "widgets", "Policy": "policies", "Gateway": "gateways", "Class": "classes",
		"Box": "boxes", "Patch": "patches", "Mesh": "meshes", "": "",
	}
	for kind, want := range cases {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			if got := xpkgtest.Plural(kind); got != want {
				t.Errorf("Plural(%q) = %q, want %q", kind, got, want)
			}
		})
	}
}
