package oci_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
)

// TestResolvePlatform covers the choice among the manifests of an index.
func TestResolvePlatform(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		platforms []string // "" for a descriptor with no platform
		want      string   // platform asked; "" for the default
		wantIndex int
		wantErr   error
	}{
		{name: "default amd64", platforms: []string{"linux/arm64", "linux/amd64"}, wantIndex: 1},
		{name: "sole manifest of another platform", platforms: []string{"linux/arm64"}, wantIndex: 0},
		{name: "sole manifest without platform", platforms: []string{""}, wantIndex: 0},
		{name: "without platform among several", platforms: []string{"", "linux/arm64"}, wantErr: oci.ErrNoMatchingPlatform},
		{name: "without platform does not match", platforms: []string{"", "linux/amd64"}, wantIndex: 1},
		{name: "first match wins", platforms: []string{"linux/amd64", "linux/amd64"}, wantIndex: 0},
		{name: "chosen platform", platforms: []string{"linux/amd64", "linux/arm64"}, want: "linux/arm64", wantIndex: 1},
		{name: "arm64 implies v8", platforms: []string{"linux/amd64", "linux/arm64/v8"}, want: "linux/arm64", wantIndex: 1},
		{name: "v8 matches bare arm64", platforms: []string{"linux/amd64", "linux/arm64"}, want: "linux/arm64/v8", wantIndex: 1},
		{name: "variant must match", platforms: []string{"linux/arm/v6", "linux/arm/v7"}, want: "linux/arm/v7", wantIndex: 1},
		{name: "arm implies v7", platforms: []string{"linux/arm/v6", "linux/arm/v7"}, want: "linux/arm", wantIndex: 1},
		{name: "no match", platforms: []string{"linux/arm64", "windows/amd64"}, wantErr: oci.ErrNoMatchingPlatform},
		{name: "empty", platforms: nil, wantErr: oci.ErrEmptyIndex},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBuilder(t)
			var ms []ocispec.Descriptor
			for i, p := range tc.platforms {
				// Distinct images, so that their digests differ.
				d := b.image(nil, b.gzLayer(file("package.yaml", string(rune('a'+i)))))
				if p != "" {
					d = withPlatform(d, p)
				}
				ms = append(ms, d)
			}
			b.tag(b.index(ms...), "v1")
			var opts []oci.Option
			if tc.want != "" {
				p, err := oci.ParsePlatform(tc.want)
				if err != nil {
					t.Fatal(err)
				}
				opts = append(opts, oci.WithPlatform(p))
			}
			img, err := oci.Resolve(context.Background(), b.s, opts...)
			wantErr(t, err, tc.wantErr)
			if err != nil {
				if errors.Is(err, oci.ErrNoMatchingPlatform) {
					for _, p := range tc.platforms {
						if p != "" && !strings.Contains(err.Error(), p) {
							t.Errorf("error %q does not list %s", err, p)
						}
					}
				}
				return
			}
			if img.Descriptor.Digest != ms[tc.wantIndex].Digest {
				t.Errorf("chose %s, want manifest %d", img.Descriptor.Digest, tc.wantIndex)
			}
			if len(img.Indexes) != 1 {
				t.Errorf("Indexes = %v, want the one index", img.Indexes)
			}
			if len(img.RefNames) != 1 || img.RefNames[0] != "v1" {
				t.Errorf("RefNames = %q, want [v1]", img.RefNames)
			}
		})
	}
}

// TestResolveReference chooses top-level entries by ref name.
func TestResolveReference(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	one := b.image(nil, b.gzLayer(file("package.yaml", "one")))
	two := b.image(nil, b.gzLayer(file("package.yaml", "two")))
	b.tag(one, "one")
	b.tag(two, "two")
	b.tag(two, "latest")
	ctx := context.Background()

	img, err := oci.Resolve(ctx, b.s, oci.WithReference("latest"))
	if err != nil {
		t.Fatal(err)
	}
	if img.Descriptor.Digest != two.Digest || strings.Join(img.RefNames, ",") != "two,latest" {
		t.Errorf("got %s %q, want %s [two latest]", img.Descriptor.Digest, img.RefNames, two.Digest)
	}
	_, err = oci.Resolve(ctx, b.s, oci.WithReference("three"))
	wantErr(t, err, oci.ErrNotFound)
	// Without a reference, two distinct images with no platform: ambiguous.
	_, err = oci.Resolve(ctx, b.s)
	wantErr(t, err, oci.ErrNoMatchingPlatform)
}

// TestResolveNested follows an index of an index, with Docker media types.
func TestResolveNested(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	cfg := b.pushJSON(oci.MediaTypeDockerConfig, ocispec.Image{})
	layer := b.push(oci.MediaTypeDockerLayer, gzipBytes(t, tarBytes(t, file("package.yaml", "docker"))))
	m := b.pushJSON(oci.MediaTypeDockerManifest, map[string]any{
		"schemaVersion": 2, "mediaType": oci.MediaTypeDockerManifest, "config": cfg, "layers": []ocispec.Descriptor{layer},
	})
	m.MediaType = oci.MediaTypeDockerManifest
	list := b.pushJSON(oci.MediaTypeDockerManifestList, map[string]any{
		"schemaVersion": 2, "mediaType": oci.MediaTypeDockerManifestList, "manifests": []ocispec.Descriptor{withPlatform(m, "linux/amd64")},
	})
	list.MediaType = oci.MediaTypeDockerManifestList
	outer := b.index(list)
	b.tag(outer, "")
	img, err := oci.Resolve(context.Background(), b.s)
	if err != nil {
		t.Fatal(err)
	}
	if img.Descriptor.Digest != m.Digest || len(img.Indexes) != 2 || img.Indexes[0].Digest != outer.Digest {
		t.Errorf("got %s via %v", img.Descriptor.Digest, img.Indexes)
	}
	if img.Platform == nil || oci.PlatformString(*img.Platform) != "linux/amd64" {
		t.Errorf("Platform = %v", img.Platform)
	}
	f, err := oci.ReadFile(context.Background(), b.s, img.Manifest.Layers, "package.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := readAllString(t, f); got != "docker" {
		t.Errorf("got %q", got)
	}
}

// TestResolveNestedTooDeep: an index chain deeper than MaxIndexDepth.
func TestResolveNestedTooDeep(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	d := b.image(nil, b.gzLayer(file("package.yaml", "deep")))
	for range 5 {
		d = b.index(d)
	}
	b.tag(d, "")
	_, err := oci.Resolve(context.Background(), b.s, oci.WithLimits(oci.Limits{MaxIndexDepth: 5}))
	wantErr(t, err, limit.ErrExceeded)
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != "MaxIndexDepth" || le.Max != 5 {
		t.Errorf("error %v does not name MaxIndexDepth=5", err)
	}
	// One more level allowed: resolves.
	if _, err := oci.Resolve(context.Background(), b.s, oci.WithLimits(oci.Limits{MaxIndexDepth: 6})); err != nil {
		t.Errorf("depth 6: %v", err)
	}
}

// TestResolveEmptyIndex: an index with zero manifests, top-level and nested.
func TestResolveEmptyIndex(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	_, err := oci.Resolve(context.Background(), b.s)
	wantErr(t, err, oci.ErrEmptyIndex)
	b.tag(b.index(), "")
	_, err = oci.Resolve(context.Background(), b.s)
	wantErr(t, err, oci.ErrEmptyIndex)
}

// TestResolveUnknownMediaType: manifest and layer media types this package
// cannot read.
func TestResolveUnknownMediaType(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	d := b.image(nil, b.gzLayer(file("package.yaml", "x")))
	d.MediaType = "application/vnd.example.manifest+json"
	b.tag(d, "")
	_, err := oci.Resolve(context.Background(), b.s)
	wantErr(t, err, oci.ErrUnsupportedMediaType)

	layer := b.push("application/vnd.example.layer.v1.tar+lz4", []byte("whatever"))
	_, err = oci.ReadLayerFile(context.Background(), b.s, layer, "package.yaml")
	wantErr(t, err, oci.ErrUnsupportedMediaType)
	rc, err := oci.OpenLayer(context.Background(), b.s, layer)
	wantErr(t, err, oci.ErrUnsupportedMediaType)
	if rc != nil {
		t.Errorf("OpenLayer returned a non-nil reader %#v with its error", rc)
	}
}

// TestResolveKeepsLayersAsWritten: Resolve gives the layers as the manifest
// does, and the config's labels as written; interpreting labels (Crossplane's
// record of layer annotations) is package xpkg's.
func TestResolveKeepsLayersAsWritten(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	base := b.gzLayer(file("package.yaml", "x"))
	other := b.gzLayer(file("other", "x"))
	annotated := other
	annotated.Annotations = map[string]string{"io.crossplane.xpkg": "kept"}
	labels := map[string]string{"io.crossplane.xpkg:" + base.Digest.String(): "base"}
	d := b.image(labels, base, annotated)
	b.tag(d, "")
	img, err := oci.Resolve(context.Background(), b.s)
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{nil, {"io.crossplane.xpkg": "kept"}}
	for i, l := range img.Manifest.Layers {
		if !maps.Equal(l.Annotations, want[i]) {
			t.Errorf("layer %d annotations %v, want %v", i, l.Annotations, want[i])
		}
	}
	if !maps.Equal(img.Config.Config.Labels, labels) {
		t.Errorf("config labels %v, want %v", img.Config.Config.Labels, labels)
	}
}
