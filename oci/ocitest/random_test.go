package ocitest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/validate"
	digest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/ocitest"
)

// memoryStore pushes blobs into a new MemoryStore and tags root.
func memoryStore(t *testing.T, blobs []ocitest.Blob, root ocispec.Descriptor) *oci.MemoryStore {
	t.Helper()
	s := oci.NewMemoryStore()
	for _, b := range blobs {
		if err := s.Push(t.Context(), b.Descriptor, bytes.NewReader(b.Data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Tag(t.Context(), root, ""); err != nil {
		t.Fatal(err)
	}
	return s
}

// writeLayout writes blobs as an OCI image layout in a new directory, root
// its one index entry, and returns the directory.
func writeLayout(t *testing.T, blobs []ocitest.Blob, root ocispec.Descriptor) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "blobs", "sha256"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, b := range blobs {
		if err := os.WriteFile(filepath.Join(dir, "blobs", "sha256", b.Descriptor.Digest.Encoded()), b.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx, err := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{root}})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"index.json": idx, "oci-layout": []byte(`{"imageLayoutVersion":"1.0.0"}`)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRandomImage checks, for several seeds and shapes, that a random image
// is the same for the same arguments, differs for another seed, is valid to
// go-containerregistry's validate, and reads back through package oci with
// one file of the asked size a layer.
func TestRandomImage(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		seed   uint64
		layers int
		size   int64
	}{
		"no layers":          {seed: 1, layers: 0, size: 10},
		"one empty file":     {seed: 2, layers: 1, size: 0},
		"one layer":          {seed: 3, layers: 1, size: 1000},
		"several layers":     {seed: 4, layers: 5, size: 4097},
		"odd size":           {seed: 5, layers: 2, size: 7},
		"large layer":        {seed: 6, layers: 1, size: 1 << 20},
		"negative arguments": {seed: 7, layers: -3, size: -1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			blobs, man := ocitest.RandomImage(tc.seed, tc.layers, tc.size)
			again, man2 := ocitest.RandomImage(tc.seed, tc.layers, tc.size)
			if man.Digest != man2.Digest || len(blobs) != len(again) {
				t.Fatalf("same arguments, different images: %s and %s", man.Digest, man2.Digest)
			}
			for i := range blobs {
				if !bytes.Equal(blobs[i].Data, again[i].Data) {
					t.Errorf("blob %d differs between two calls", i)
				}
				if digest.FromBytes(blobs[i].Data) != blobs[i].Descriptor.Digest {
					t.Errorf("blob %d: digest does not match its bytes", i)
				}
			}
			if _, other := ocitest.RandomImage(tc.seed+100, tc.layers, tc.size); other.Digest == man.Digest && max(tc.layers, 0) > 0 && tc.size > 0 {
				t.Errorf("seeds %d and %d give the same image", tc.seed, tc.seed+100)
			}
			if want := max(tc.layers, 0) + 2; len(blobs) != want {
				t.Errorf("%d blobs, want %d (layers, config, manifest)", len(blobs), want)
			}
			if blobs[len(blobs)-1].Descriptor.Digest != man.Digest {
				t.Error("the manifest is not the last blob")
			}

			img, err := oci.ResolveDescriptor(ctx, memoryStore(t, blobs, man), man)
			if err != nil {
				t.Fatal(err)
			}
			if len(img.Manifest.Layers) != max(tc.layers, 0) {
				t.Errorf("%d layers, want %d", len(img.Manifest.Layers), max(tc.layers, 0))
			}
			for i, l := range img.Manifest.Layers {
				rc, err := oci.ReadLayerFile(ctx, memoryStore(t, blobs, man), l, ocitest.RandomFile(i))
				if err != nil {
					t.Fatalf("layer %d: %v", i, err)
				}
				n, err := io.Copy(io.Discard, rc)
				rc.Close()
				if err != nil || n != max(tc.size, 0) {
					t.Errorf("layer %d: %s holds %d bytes (%v), want %d", i, ocitest.RandomFile(i), n, err, max(tc.size, 0))
				}
			}

			gidx, err := layout.ImageIndexFromPath(writeLayout(t, blobs, man))
			if err != nil {
				t.Fatal(err)
			}
			gimg, err := gidx.Image(mustHash(t, man.Digest))
			if err != nil {
				t.Fatal(err)
			}
			if err := validate.Image(gimg); err != nil {
				t.Errorf("go-containerregistry's validate.Image: %v", err)
			}
		})
	}
}

// TestRandomIndex checks that a random index is valid to
// go-containerregistry's validate and that each of its images resolves by
// platform, the platforms taken in turn.
func TestRandomIndex(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		images    int
		platforms []string
	}{
		"none":     {images: 0},
		"one":      {images: 1, platforms: []string{"linux/amd64"}},
		"three":    {images: 3, platforms: []string{"linux/amd64", "linux/arm64", "linux/arm/v7"}},
		"wraps":    {images: 7, platforms: []string{"linux/amd64", "linux/arm64", "linux/arm/v7", "linux/ppc64le", "linux/s390x", "linux/riscv64", "linux/amd64"}},
		"negative": {images: -1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			blobs, root := ocitest.RandomIndex(42, tc.images, 2, 100)
			var idx ocispec.Index
			if err := json.Unmarshal(blobs[len(blobs)-1].Data, &idx); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range idx.Manifests {
				got = append(got, oci.PlatformString(*m.Platform))
			}
			if len(got) != len(tc.platforms) {
				t.Fatalf("platforms %v, want %v", got, tc.platforms)
			}
			for i := range got {
				if got[i] != tc.platforms[i] {
					t.Errorf("platform %d = %s, want %s", i, got[i], tc.platforms[i])
				}
			}
			s := memoryStore(t, blobs, root)
			for i, p := range tc.platforms[:min(len(tc.platforms), 6)] {
				pl, err := oci.ParsePlatform(p)
				if err != nil {
					t.Fatal(err)
				}
				img, err := oci.ResolveDescriptor(t.Context(), s, root, oci.WithPlatform(pl))
				if err != nil {
					t.Fatalf("ResolveDescriptor(%s): %v", p, err)
				}
				if img.Descriptor.Digest != idx.Manifests[i].Digest {
					t.Errorf("%s resolved to %s, want %s", p, img.Descriptor.Digest, idx.Manifests[i].Digest)
				}
			}
			gidx, err := layout.ImageIndexFromPath(writeLayout(t, blobs, root))
			if err != nil {
				t.Fatal(err)
			}
			inner, err := gidx.ImageIndex(mustHash(t, root.Digest))
			if err != nil {
				t.Fatal(err)
			}
			if err := validate.Index(inner); err != nil {
				t.Errorf("go-containerregistry's validate.Index: %v", err)
			}
		})
	}
}

func mustHash(t *testing.T, d digest.Digest) v1.Hash {
	t.Helper()
	h, err := v1.NewHash(d.String())
	if err != nil {
		t.Fatal(err)
	}
	return h
}
