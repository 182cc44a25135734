package xpkg_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// imageForms writes an xpkgtest image as a .xpkg, an OCI layout and an OCI
// layout tar.
func imageForms(t *testing.T, img *xpkgtest.Image) []form {
	return []form{
		{"xpkg", xpkg.SourceXpkg, openPath(img.XpkgFile(t))},
		{"oci-layout", xpkg.SourceOCILayout, openPath(img.LayoutDir(t))},
		{"oci-layout-tar", xpkg.SourceOCILayoutTar, openPath(img.LayoutTarFile(t))},
	}
}

// TestOpenBrokenImages opens the broken image variants of xpkgtest in every
// image form: each gives its image diagnostic, or the typed error.
func TestOpenBrokenImages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		broken  xpkgtest.Broken
		wantErr error    // Open fails with this class
		want    []string // otherwise Lint reports these rules among others
		message string   // in the first image diagnostic's message
		objects int      // objects read
	}{
		{broken: xpkgtest.TwoBaseLayers, want: []string{"XP501"}, message: "second base layer", objects: 1},
		{broken: xpkgtest.MisplacedPackageYAML, want: []string{"XP503", "XP003"}, message: "package/package.yaml"},
		{broken: xpkgtest.LegacyStack, want: []string{"XP504", "XP003"}, message: ".registry/app.yaml"},
		{broken: xpkgtest.DigestMismatch, wantErr: oci.ErrDigestMismatch},
	}
	for _, tc := range cases {
		t.Run(tc.broken.String(), func(t *testing.T) {
			t.Parallel()
			img := tc.broken.MustImage(t)
			for _, f := range imageForms(t, img) {
				p, err := f.open(t)
				if tc.wantErr != nil {
					var se *xpkg.SourceError
					if !errors.Is(err, tc.wantErr) || !errors.As(err, &se) || se.SourceKind != f.kind {
						t.Errorf("%s: Open error = %v, want a *SourceError of kind %v matching %v", f.name, err, f.kind, tc.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: Open: %v", f.name, err)
				}
				if len(p.Objects) != tc.objects {
					t.Errorf("%s: %d objects, want %d", f.name, len(p.Objects), tc.objects)
				}
				res := mustLint(t, p)
				ids := ruleIDs(res.Diagnostics)
				for _, w := range tc.want {
					if !slices.Contains(ids, w) {
						t.Errorf("%s: diagnostics %v lack %s", f.name, ids, w)
					}
				}
				for _, d := range res.Diagnostics {
					if d.RuleID == tc.want[0] && !strings.Contains(d.Message, tc.message) {
						t.Errorf("%s: %s message %q lacks %q", f.name, d.RuleID, d.Message, tc.message)
					}
				}
			}
		})
	}
}

// TestOpenTwoBaseLayersFacts checks the XP501 path: the first base layer is
// read, and the facts and the diagnostic name both layers.
func TestOpenTwoBaseLayersFacts(t *testing.T) {
	t.Parallel()
	img := xpkgtest.TwoBaseLayers.MustImage(t)
	p, err := xpkg.Open(t.Context(), img.LayoutDir(t))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	layers := img.Manifest().Layers
	if got := p.Image.Facts.BaseLayers; len(got) != 2 || got[0] != layers[0].Digest.String() || got[1] != layers[1].Digest.String() {
		t.Errorf("BaseLayers = %v, want both layers in manifest order", got)
	}
	if p.Image.BaseLayer.Digest != layers[0].Digest || p.Pkg().GetName() != "provider-two-base-layers" {
		t.Errorf("read %s from %s, want the first base layer", p.Pkg().GetName(), p.Image.BaseLayer.Digest)
	}
	// Up to v2.1 Crossplane refuses two base layers; from v2.2 it reads
	// the first (RULES.md, XP501).
	for target, sev := range map[string]linter.Severity{"v2.1.0": linter.SeverityError, "": linter.SeverityWarning} {
		res := mustLint(t, p, linter.WithCrossplaneVersion(target))
		i := slices.IndexFunc(res.Diagnostics, func(d linter.Diagnostic) bool { return d.RuleID == "XP501" })
		if i < 0 || res.Diagnostics[i].Pos.File != layers[1].Digest.String() || res.Diagnostics[i].Severity != sev {
			t.Errorf("target %q: diagnostics %v: want an XP501 %s on %s", target, res.Diagnostics, sev, layers[1].Digest)
		}
	}
}

// writeImage builds an image with ociwrite and writes it as a layout and as
// a .xpkg.
func writeImage(t *testing.T, spec ociwrite.Image) (layout, xpkgFile string) {
	t.Helper()
	b, err := ociwrite.Build(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	layout = filepath.Join(t.TempDir(), "layout")
	if err := b.WriteLayout(t.Context(), layout); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := b.WriteDockerArchive(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	xpkgFile = filepath.Join(t.TempDir(), "image.xpkg")
	if err := os.WriteFile(xpkgFile, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return layout, xpkgFile
}

// tarLayer returns an unannotated layer of files (name, content pairs), or
// one annotated io.crossplane.xpkg=annotation.
func tarLayer(t *testing.T, annotation string, files ...string) ociwrite.Layer {
	t.Helper()
	var fs []ociwrite.File
	for i := 0; i+1 < len(files); i += 2 {
		fs = append(fs, ociwrite.File{Name: files[i], Data: []byte(files[i+1])})
	}
	data, err := ociwrite.TarFiles(fs...)
	if err != nil {
		t.Fatal(err)
	}
	l := ociwrite.Layer{Tar: data}
	if annotation != "" {
		l.Annotations = map[string]string{xpkg.AnnotationKey: annotation}
	}
	return l
}

// TestOpenFlattened reads images without a base layer: package.yaml comes
// from the flattened filesystem (XP502), or is explained (XP503), or is
// missing (ErrNoPackageYAML).
func TestOpenFlattened(t *testing.T) {
	t.Parallel()
	lower := string(xpkgtest.NewProvider("provider-lower").YAML())
	upper := string(xpkgtest.NewProvider("provider-upper").YAML())
	cases := []struct {
		name     string
		layers   func(t *testing.T) []ociwrite.Layer
		wantErr  error
		wantName string   // the meta object read
		wantPath string   // Facts.PackageYAMLPath
		wantFrom int      // the layer package.yaml was read from
		want     []string // image rules reported
	}{
		{
			name: "upper layer wins",
			layers: func(t *testing.T) []ociwrite.Layer {
				return []ociwrite.Layer{tarLayer(t, "", "package.yaml", lower), tarLayer(t, "", "./package.yaml", upper)}
			},
			wantName: "provider-upper", wantPath: "./package.yaml", wantFrom: 1, want: []string{"XP502"},
		},
		{
			name: "lower layer holds it",
			layers: func(t *testing.T) []ociwrite.Layer {
				return []ociwrite.Layer{tarLayer(t, "", "package.yaml", lower), tarLayer(t, "", "README.md", "hello")}
			},
			wantName: "provider-lower", wantPath: "package.yaml", wantFrom: 0, want: []string{"XP502"},
		},
		{
			name: "misplaced",
			layers: func(t *testing.T) []ociwrite.Layer {
				return []ociwrite.Layer{tarLayer(t, "", "a/package.yaml", lower, "b/c/package.yaml", upper)}
			},
			want: []string{"XP503"},
		},
		{
			name: "nothing",
			layers: func(t *testing.T) []ociwrite.Layer {
				return []ociwrite.Layer{tarLayer(t, "", "README.md", "hello")}
			},
			wantErr: xpkg.ErrNoPackageYAML,
		},
		{
			name: "base layer without package.yaml",
			layers: func(t *testing.T) []ociwrite.Layer {
				return []ociwrite.Layer{tarLayer(t, "", "package.yaml", lower), tarLayer(t, xpkg.AnnotationBase, "README.md", "hello")}
			},
			wantErr: xpkg.ErrNoPackageYAML,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			layers := tc.layers(t)
			layout, xpkgFile := writeImage(t, ociwrite.Image{Layers: layers, LabelAnnotations: []string{xpkg.AnnotationKey}})
			for _, src := range []string{layout, xpkgFile} {
				p, err := xpkg.Open(t.Context(), src)
				if tc.wantErr != nil {
					if !errors.Is(err, tc.wantErr) {
						t.Errorf("%s: Open error = %v, want %v", filepath.Base(src), err, tc.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: Open: %v", filepath.Base(src), err)
				}
				facts := p.Image.Facts
				if tc.wantName != "" {
					if p.Pkg() == nil || p.Pkg().GetName() != tc.wantName {
						t.Errorf("read %v, want %s", p.Meta, tc.wantName)
					}
					if !facts.Flattened || facts.PackageYAMLPath != tc.wantPath || p.Image.BaseLayer != nil {
						t.Errorf("facts %+v, want flattened with package.yaml at %s", facts, tc.wantPath)
					}
					if p.Image.PackageLayer == nil || p.Image.PackageLayer.Digest != p.Image.Layers[tc.wantFrom].Digest {
						t.Errorf("PackageLayer = %v, want layer %d", p.Image.PackageLayer, tc.wantFrom)
					}
				}
				var image []string
				for _, d := range mustLint(t, p).Diagnostics {
					if strings.HasPrefix(d.RuleID, "XP5") {
						image = append(image, d.RuleID)
					}
				}
				if !slices.Equal(image, tc.want) {
					t.Errorf("%s: image diagnostics %v, want %v", filepath.Base(src), image, tc.want)
				}
			}
		})
	}
}

// TestOpenReadsOnlyTheLayersNeeded gives an image a corrupt layer that is
// neither the base layer nor the examples layer: Open never reads it.
func TestOpenReadsOnlyTheLayersNeeded(t *testing.T) {
	t.Parallel()
	pkg := xpkgtest.NewProvider("provider-example").WithCRD("example.org", "Widget")
	corrupt := tarLayer(t, "", "usr/share/doc/README", "not the package")
	corrupt.Corrupt = true
	layout, _ := writeImage(t, ociwrite.Image{
		Layers:           []ociwrite.Layer{corrupt, tarLayer(t, xpkg.AnnotationBase, "package.yaml", string(pkg.YAML()))},
		LabelAnnotations: []string{xpkg.AnnotationKey},
	})
	p, err := xpkg.Open(t.Context(), layout)
	if err != nil {
		t.Fatalf("Open read a layer it did not need: %v", err)
	}
	if len(p.Objects) != 1 {
		t.Errorf("%d objects, want 1", len(p.Objects))
	}
}

// TestOpenImage loads an image resolved by the caller.
func TestOpenImage(t *testing.T) {
	t.Parallel()
	img := xpkgtest.NewFunction("function-example").WithCRD("fn.example.org", "Input").MustImage(t)
	ctx := t.Context()
	src, err := oci.Open(ctx, img.LayoutDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	resolved, err := oci.Resolve(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	p, err := xpkg.OpenImage(ctx, src, resolved, xpkg.WithSourceName("registry.example.org/fn:v1"))
	if err != nil {
		t.Fatalf("OpenImage: %v", err)
	}
	if p.SourceKind != xpkg.SourceImage || p.Source != "registry.example.org/fn:v1" || p.Image.Facts.Source != p.Source {
		t.Errorf("Kind %v, Source %q, facts source %q", p.SourceKind, p.Source, p.Image.Facts.Source)
	}
	if p.Image.ManifestDigest != img.Digest() || len(p.Objects) != 1 {
		t.Errorf("ManifestDigest %s (want %s), %d objects", p.Image.ManifestDigest, img.Digest(), len(p.Objects))
	}
	if _, err := xpkg.OpenImage(ctx, src, nil); err == nil {
		t.Error("OpenImage(nil image) succeeded")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := xpkg.OpenImage(cancelled, src, resolved); !errors.Is(err, context.Canceled) {
		t.Errorf("OpenImage with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestOpenPlatform reads an index with one package image per platform.
func TestOpenPlatform(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "layout")
	var entries []ocispec.Descriptor
	for _, arch := range []string{"amd64", "arm64"} {
		p := xpkgtest.NewProvider("provider-" + arch)
		b, err := ociwrite.Build(t.Context(), ociwrite.Image{
			Layers:           []ociwrite.Layer{tarLayer(t, xpkg.AnnotationBase, "package.yaml", string(p.YAML()))},
			LabelAnnotations: []string{xpkg.AnnotationKey},
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.WriteLayout(t.Context(), dir); err != nil {
			t.Fatal(err)
		}
		d := b.ManifestDescriptor()
		d.Platform = &ocispec.Platform{OS: "linux", Architecture: arch}
		entries = append(entries, d)
	}
	index, err := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: entries})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ocispec.ImageIndexFile), index, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		opts     []xpkg.Option
		want     string
		wantErr  error
		platform string
	}{
		{name: "default linux/amd64", want: "provider-amd64", platform: "linux/amd64"},
		{name: "linux/arm64", opts: []xpkg.Option{xpkg.WithPlatform(ocispec.Platform{OS: "linux", Architecture: "arm64"})}, want: "provider-arm64", platform: "linux/arm64"},
		{name: "no match", opts: []xpkg.Option{xpkg.WithPlatform(ocispec.Platform{OS: "linux", Architecture: "s390x"})}, wantErr: oci.ErrNoMatchingPlatform},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := xpkg.Open(t.Context(), dir, tc.opts...)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("Open error = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if p.Pkg().GetName() != tc.want || p.Image.Platform == nil || oci.PlatformString(*p.Image.Platform) != tc.platform {
				t.Errorf("read %s for platform %v, want %s for %s", p.Pkg().GetName(), p.Image.Platform, tc.want, tc.platform)
			}
		})
	}
}
