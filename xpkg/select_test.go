package xpkg_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// layer returns a layer descriptor named by n, annotated
// io.crossplane.xpkg=annotation unless it is empty.
func layer(n, annotation string) ocispec.Descriptor {
	d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip, Digest: digest.FromString(n), Size: 1}
	if annotation != "" {
		d.Annotations = map[string]string{xpkg.AnnotationKey: annotation}
	}
	return d
}

// TestSelectLayerLabels: where a format drops layer annotations (a docker
// archive), the config labels LayerLabel(digest) say what a layer is; an
// annotation the descriptor carries wins; the input is not modified.
func TestSelectLayerLabels(t *testing.T) {
	t.Parallel()
	base, examples, kept := layer("base", ""), layer("examples", ""), layer("kept", "kept")
	labels := map[string]string{
		xpkg.LayerLabel(base.Digest):     xpkg.AnnotationBase,
		xpkg.LayerLabel(examples.Digest): xpkg.AnnotationExamples,
		xpkg.LayerLabel(kept.Digest):     "ignored: the annotation is present",
		"org.opencontainers.image.title": "not a layer label",
	}
	layers := []ocispec.Descriptor{base, examples, kept}
	s, err := xpkg.SelectLayer(layers, labels)
	if err != nil {
		t.Fatal(err)
	}
	if s.BaseLayer == nil || s.BaseLayer.Digest != base.Digest || s.BaseLayer.Annotations[xpkg.AnnotationKey] != xpkg.AnnotationBase {
		t.Errorf("Base = %v, want %s annotated base", s.BaseLayer, base.Digest)
	}
	if s.ExamplesLayer == nil || s.ExamplesLayer.Digest != examples.Digest {
		t.Errorf("Examples = %v, want %s", s.ExamplesLayer, examples.Digest)
	}
	wantOther := []xpkg.LayerFact{{Digest: examples.Digest.String(), Annotation: xpkg.AnnotationExamples}, {Digest: kept.Digest.String(), Annotation: "kept"}}
	if diff := cmp.Diff(wantOther, s.Facts.OtherLayers); diff != "" {
		t.Errorf("OtherLayers (-want +got):\n%s", diff)
	}
	if layers[0].Annotations != nil || layers[1].Annotations != nil {
		t.Errorf("SelectLayer modified its input: %v", layers)
	}
}

func TestSelectLayer(t *testing.T) {
	t.Parallel()
	base, base2 := layer("base", xpkg.AnnotationBase), layer("base2", xpkg.AnnotationBase)
	examples, other, plain := layer("examples", xpkg.AnnotationExamples), layer("other", "something-else"), layer("plain", "")
	cases := []struct {
		name         string
		layers       []ocispec.Descriptor
		wantBase     *ocispec.Descriptor
		wantLayers   []ocispec.Descriptor
		wantExamples *ocispec.Descriptor
		wantFacts    xpkg.ImageFacts
		wantErr      error
	}{
		{
			name:       "one base layer",
			layers:     []ocispec.Descriptor{plain, base},
			wantBase:   &base,
			wantLayers: []ocispec.Descriptor{base},
			wantFacts:  xpkg.ImageFacts{BaseLayers: []string{base.Digest.String()}},
		},
		{
			name:         "base and examples",
			layers:       []ocispec.Descriptor{base, examples, other},
			wantBase:     &base,
			wantLayers:   []ocispec.Descriptor{base},
			wantExamples: &examples,
			wantFacts: xpkg.ImageFacts{
				BaseLayers: []string{base.Digest.String()},
				OtherLayers: []xpkg.LayerFact{
					{Digest: examples.Digest.String(), Annotation: xpkg.AnnotationExamples},
					{Digest: other.Digest.String(), Annotation: "something-else"},
				},
			},
		},
		{
			name:         "no base: flatten every layer",
			layers:       []ocispec.Descriptor{plain, examples},
			wantLayers:   []ocispec.Descriptor{plain, examples},
			wantExamples: &examples,
			wantFacts:    xpkg.ImageFacts{OtherLayers: []xpkg.LayerFact{{Digest: examples.Digest.String(), Annotation: xpkg.AnnotationExamples}}},
		},
		{
			name:       "no layers",
			wantLayers: nil,
		},
		{
			name:       "two base layers",
			layers:     []ocispec.Descriptor{base, plain, base2},
			wantBase:   &base,
			wantLayers: []ocispec.Descriptor{base},
			wantFacts:  xpkg.ImageFacts{BaseLayers: []string{base.Digest.String(), base2.Digest.String()}},
			wantErr:    xpkg.ErrMultipleBaseLayers,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := xpkg.SelectLayer(tc.layers, nil)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("SelectLayer error = %v, want %v", err, tc.wantErr)
			}
			if s == nil {
				t.Fatal("SelectLayer returned no selection")
			}
			if d := cmp.Diff(tc.wantBase, s.BaseLayer); d != "" {
				t.Errorf("Base (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantLayers, s.Layers); d != "" {
				t.Errorf("Layers (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantExamples, s.ExamplesLayer); d != "" {
				t.Errorf("Examples (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantFacts, s.Facts); d != "" {
				t.Errorf("Facts (-want +got):\n%s", d)
			}
			var be *xpkg.BaseLayersError
			if tc.wantErr != nil && (!errors.As(err, &be) || len(be.Layers) != 2 || !strings.Contains(err.Error(), base2.Digest.String())) {
				t.Errorf("error %v: want a *BaseLayersError naming both layers", err)
			}
		})
	}
}

// TestSelectionOpenPackageYAML reads package.yaml through a selection,
// and explains a missing one.
func TestSelectionOpenPackageYAML(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, tc := range []struct {
		name          string
		img           *xpkgtest.Image
		wantMisplaced []string
		wantLegacy    bool
	}{
		{name: "valid", img: xpkgtest.NewProvider("provider-example").MustImage(t)},
		{name: "misplaced", img: xpkgtest.MisplacedPackageYAML.MustImage(t), wantMisplaced: []string{"package/package.yaml"}},
		{name: "legacy", img: xpkgtest.LegacyStack.MustImage(t), wantLegacy: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src, err := oci.Open(ctx, tc.img.LayoutDir(t))
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			img, err := oci.Resolve(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			sel, err := xpkg.SelectLayer(img.Manifest.Layers, img.Config.Config.Labels)
			if err != nil {
				t.Fatal(err)
			}
			f, err := sel.OpenPackageYAML(ctx, src)
			if tc.wantMisplaced == nil && !tc.wantLegacy {
				if err != nil {
					t.Fatalf("OpenPackageYAML: %v", err)
				}
				defer f.Close()
				if sel.Facts.PackageYAMLPath != xpkg.PackageFile || sel.PackageLayer == nil || sel.PackageLayer.Digest != sel.BaseLayer.Digest {
					t.Errorf("facts %+v, package layer %v", sel.Facts, sel.PackageLayer)
				}
				return
			}
			if !errors.Is(err, xpkg.ErrNoPackageYAML) || !errors.Is(err, oci.ErrNotFound) {
				t.Fatalf("OpenPackageYAML error = %v, want ErrNoPackageYAML and oci.ErrNotFound", err)
			}
			if d := cmp.Diff(tc.wantMisplaced, sel.Facts.MisplacedPackageYAML); d != "" {
				t.Errorf("MisplacedPackageYAML (-want +got):\n%s", d)
			}
			if sel.Facts.LegacyStack != tc.wantLegacy || (tc.wantLegacy && sel.Facts.LegacyStackPath != ".registry/app.yaml") {
				t.Errorf("LegacyStack = %v at %q, want %v", sel.Facts.LegacyStack, sel.Facts.LegacyStackPath, tc.wantLegacy)
			}
			if sel.Facts.PackageYAMLPath != "" || sel.Facts.Flattened {
				t.Errorf("facts %+v claim a package.yaml", sel.Facts)
			}
		})
	}
}
