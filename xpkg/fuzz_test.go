package xpkg_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/rules"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// fuzzLimits keeps each fuzz input cheap: small blobs, layers, documents.
func fuzzLimits() xpkg.Limits {
	return xpkg.Limits{
		OCI: oci.Limits{
			MaxManifestBytes: 64 << 10, MaxConfigBytes: 64 << 10, MaxBlobBytes: 1 << 20,
			MaxLayerBytes: 4 << 20, MaxImageBytes: 8 << 20, MaxFileBytes: 1 << 20,
			MaxTarEntries: 1000, MaxLayers: 16, MaxIndexDepth: 4, MaxZstdWindow: 4 << 20,
		},
		Parser: parser.Limits{
			MaxDocumentBytes: 64 << 10, MaxTotalBytes: 1 << 20, MaxDocuments: 256,
			MaxDepth: 64, MaxAliasExpansion: 10_000,
		},
		MaxReaderBytes: 4 << 20,
	}
}

// FuzzSelectLayer gives the layer selector an arbitrary manifest (its
// layers and their annotations) over a store holding the blobs of a real
// package image, then reads package.yaml from the selection. The selector
// must never panic, must refuse two base layers, must choose the one base
// layer when there is one and flatten otherwise.
func FuzzSelectLayer(f *testing.F) {
	p := xpkgtest.NewProvider("provider-fuzz").WithCRD("example.org", "Widget", "v1alpha1")
	img := p.MustImage(f)
	store, err := oci.Open(context.Background(), img.LayoutDir(f))
	if err != nil {
		f.Fatal(err)
	}
	m := img.Manifest()
	seed := func(edit func(*ocispec.Manifest)) {
		c := m
		c.Layers = nil
		for _, l := range m.Layers {
			l.Annotations = cloneMap(l.Annotations)
			c.Layers = append(c.Layers, l)
		}
		edit(&c)
		b, err := json.Marshal(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	seed(func(*ocispec.Manifest) {})
	seed(func(c *ocispec.Manifest) { // no annotation: flatten
		for i := range c.Layers {
			c.Layers[i].Annotations = nil
		}
	})
	seed(func(c *ocispec.Manifest) { // the same layer twice, both base
		c.Layers = append(c.Layers, c.Layers...)
	})
	seed(func(c *ocispec.Manifest) { // an examples layer and an unknown value
		l := c.Layers[0]
		l.Annotations = map[string]string{xpkg.AnnotationKey: xpkg.AnnotationExamples}
		u := c.Layers[0]
		u.Annotations = map[string]string{xpkg.AnnotationKey: "something-else"}
		c.Layers = append(c.Layers, l, u)
	})
	seed(func(c *ocispec.Manifest) { // a missing blob
		c.Layers[0].Digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
	})
	for _, name := range []string{"provider-helm", "function-go-templating"} {
		layout := filepath.Join(testcorpus.Dir(f), name+".oci")
		if idx, err := os.ReadFile(filepath.Join(layout, "index.json")); err == nil {
			var ix ocispec.Index
			if json.Unmarshal(idx, &ix) == nil && len(ix.Manifests) > 0 {
				if b, err := os.ReadFile(filepath.Join(layout, "blobs", "sha256", ix.Manifests[0].Digest.Encoded())); err == nil && len(b) < 64<<10 {
					f.Add(b)
				}
			}
		}
	}
	lim := fuzzLimits()
	f.Fuzz(func(t *testing.T, manifest []byte) {
		var mf ocispec.Manifest
		if err := json.Unmarshal(manifest, &mf); err != nil || len(mf.Layers) > 64 {
			return
		}
		bases := 0
		for _, l := range mf.Layers {
			if l.Annotations[xpkg.AnnotationKey] == xpkg.AnnotationBase {
				bases++
			}
		}
		sel, err := xpkg.SelectLayer(mf.Layers, nil)
		switch {
		case bases > 1:
			if !errors.Is(err, xpkg.ErrMultipleBaseLayers) {
				t.Fatalf("%d base layers: err = %v, want ErrMultipleBaseLayers", bases, err)
			}
			if sel == nil || len(sel.Facts.BaseLayers) != bases {
				t.Fatalf("%d base layers: selection %+v does not list them", bases, sel)
			}
			return
		case err != nil:
			t.Fatalf("SelectLayer: %v", err)
		case bases == 1:
			if sel.BaseLayer == nil || sel.BaseLayer.Annotations[xpkg.AnnotationKey] != xpkg.AnnotationBase || len(sel.Layers) != 1 {
				t.Fatalf("one base layer: selection %+v", sel)
			}
		default:
			if sel.BaseLayer != nil || len(sel.Layers) != len(mf.Layers) {
				t.Fatalf("no base layer: selection %+v does not flatten", sel)
			}
		}
		file, err := sel.OpenPackageYAML(context.Background(), store, xpkg.WithLimits(lim))
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, file)
		_ = file.Close()
	})
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// FuzzOpenReader gives OpenReader arbitrary bytes: source detection (tar,
// gzip or a YAML stream), the image readers behind it, and the parser. It
// must never panic, and it either fails with a *xpkg.SourceError or returns
// a package that lints.
func FuzzOpenReader(f *testing.F) {
	for _, s := range []string{"", "\x1f\x8b", "\x1f\x8b\x08\x00", "ustar", "---\n", "a: 1\n", "\xef\xbb\xbf---\n"} {
		f.Add([]byte(s))
	}
	hostileDir := filepath.Join("testdata", "hostile")
	entries, _ := os.ReadDir(hostileDir)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(hostileDir, e.Name())); err == nil && len(b) <= 64<<10 {
			f.Add(b)
		}
	}
	p := xpkgtest.NewConfiguration("configuration-fuzz")
	f.Add(p.YAML())
	img := p.MustImage(f)
	for _, path := range []string{img.XpkgFile(f), img.LayoutTarFile(f)} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	lim := fuzzLimits()
	f.Fuzz(func(t *testing.T, in []byte) {
		ctx := context.Background()
		pkg, err := xpkg.OpenReader(ctx, bytes.NewReader(in), xpkg.WithLimits(lim))
		if err != nil {
			var se *xpkg.SourceError
			if !errors.As(err, &se) {
				t.Fatalf("error is not a *SourceError: %T %v", err, err)
			}
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("empty error message")
			}
			return
		}
		res, err := rules.LintPackage(ctx, pkg)
		if err != nil {
			t.Fatalf("Lint: %v", err)
		}
		for _, fl := range res.Failures {
			t.Errorf("rule failed: %v", fl)
		}
	})
}
