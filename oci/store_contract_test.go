package oci_test

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/ocitest"
)

// layoutFiles returns the files of an OCI image layout holding blobs with
// index as index.json, by path.
func layoutFiles(t *testing.T, blobs []ocitest.Blob, index ocispec.Index) map[string][]byte {
	t.Helper()
	idx, err := json.Marshal(index)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		ocispec.ImageLayoutFile: []byte(`{"imageLayoutVersion":"1.0.0"}`),
		ocispec.ImageIndexFile:  idx,
	}
	for _, b := range blobs {
		files[path.Join(ocispec.ImageBlobsDir, b.Descriptor.Digest.Algorithm().String(), b.Descriptor.Digest.Encoded())] = b.Data
	}
	return files
}

// TestStoreContract runs ocitest.TestStore on every Store of this package
// that can hold any index: the memory store, and an OCI layout as an fs.FS,
// as a directory and as a tar file. (A docker archive's index is made from
// its manifest.json, so it cannot hold TestStore's; its reads are tested in
// dockerarchive_test.go.)
func TestStoreContract(t *testing.T) {
	t.Parallel()
	open := func(t *testing.T, p string) oci.Store {
		t.Helper()
		s, err := oci.Open(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	cases := map[string]func(t *testing.T, blobs []ocitest.Blob, index ocispec.Index) oci.Store{
		"MemoryStore": func(t *testing.T, blobs []ocitest.Blob, index ocispec.Index) oci.Store {
			s := oci.NewMemoryStore()
			for _, b := range blobs {
				if err := s.Push(t.Context(), b.Descriptor, bytes.NewReader(b.Data)); err != nil {
					t.Fatal(err)
				}
			}
			for _, d := range index.Manifests {
				if err := s.Tag(t.Context(), d, d.Annotations[ocispec.AnnotationRefName]); err != nil {
					t.Fatal(err)
				}
			}
			return s
		},
		"NewLayoutFS": func(t *testing.T, blobs []ocitest.Blob, index ocispec.Index) oci.Store {
			fsys := fstest.MapFS{}
			for name, data := range layoutFiles(t, blobs, index) {
				fsys[name] = &fstest.MapFile{Data: data}
			}
			s, err := oci.NewLayoutFS(t.Context(), fsys)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		"Open a layout directory": func(t *testing.T, blobs []ocitest.Blob, index ocispec.Index) oci.Store {
			dir := t.TempDir()
			for name, data := range layoutFiles(t, blobs, index) {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			return open(t, dir)
		},
		"Open a layout tar": func(t *testing.T, blobs []ocitest.Blob, index ocispec.Index) oci.Store {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			files := layoutFiles(t, blobs, index)
			for _, name := range slices.Sorted(maps.Keys(files)) {
				data := files[name]
				if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
					t.Fatal(err)
				}
				if _, err := tw.Write(data); err != nil {
					t.Fatal(err)
				}
			}
			if err := tw.Close(); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "layout.tar")
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return open(t, p)
		},
	}
	for name, newStore := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ocitest.TestStore(t, newStore)
		})
	}
}

// TestRandomImagesReadBack is a property test over ocitest's seeded random
// images: for every seed, an index of 1 to 3 images of 0 to 3 layers reads
// back the same from the memory store and from a layout directory, each
// layer's one file whole, at every platform.
func TestRandomImagesReadBack(t *testing.T) {
	t.Parallel()
	for seed := range uint64(24) {
		images, layers, size := 1+int(seed%3), int(seed%4), int64(seed*797%5000)
		t.Run(fmt.Sprintf("seed %d: %d images, %d layers, %d bytes", seed, images, layers, size), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			blobs, root := ocitest.RandomIndex(seed, images, layers, size)
			mem := oci.NewMemoryStore()
			for _, b := range blobs {
				if err := mem.Push(ctx, b.Descriptor, bytes.NewReader(b.Data)); err != nil {
					t.Fatal(err)
				}
			}
			if err := mem.Tag(ctx, root, "random"); err != nil {
				t.Fatal(err)
			}
			idx, err := mem.Index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			for name, data := range layoutFiles(t, blobs, idx) {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			lay, err := oci.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer lay.Close()
			for _, p := range []string{"linux/amd64", "linux/arm64", "linux/arm/v7"}[:images] {
				pl, err := oci.ParsePlatform(p)
				if err != nil {
					t.Fatal(err)
				}
				var files [2][][]byte
				for i, s := range []oci.Store{mem, lay} {
					img, err := oci.Resolve(ctx, s, oci.WithReference("random"), oci.WithPlatform(pl))
					if err != nil {
						t.Fatalf("Resolve(%s): %v", p, err)
					}
					if len(img.Manifest.Layers) != layers {
						t.Fatalf("%s: %d layers, want %d", p, len(img.Manifest.Layers), layers)
					}
					for l := range img.Manifest.Layers {
						f, err := oci.ReadFile(ctx, s, img.Manifest.Layers, fmt.Sprintf("random/%d", l))
						if err != nil {
							t.Fatalf("%s layer %d: %v", p, l, err)
						}
						b, err := io.ReadAll(f)
						f.Close()
						if err != nil {
							t.Fatalf("%s layer %d: %v", p, l, err)
						}
						if int64(len(b)) != size {
							t.Errorf("%s layer %d: %d bytes, want %d", p, l, len(b), size)
						}
						files[i] = append(files[i], b)
					}
				}
				for l := range files[0] {
					if !bytes.Equal(files[0][l], files[1][l]) {
						t.Errorf("%s layer %d: the memory store and the layout read different bytes", p, l)
					}
				}
			}
		})
	}
}
