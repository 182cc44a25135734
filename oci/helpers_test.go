package oci_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	digest "github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/oci"
)

// entry is one tar entry of a test layer.
type entry struct {
	name string
	body string
	typ  byte // tar.TypeReg when zero
	link string
}

func file(name, body string) entry { return entry{name: name, body: body} }
func dir(name string) entry        { return entry{name: name, typ: tar.TypeDir} }

// tarBytes writes entries as a tar.
func tarBytes(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o644, Linkname: e.link, Format: tar.FormatPAX}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zstdBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zw.Close()
	return zw.EncodeAll(b, nil)
}

// builder pushes test images into a MemoryStore.
type builder struct {
	t testing.TB
	s *oci.MemoryStore
}

func newBuilder(t testing.TB) *builder { return &builder{t: t, s: oci.NewMemoryStore()} }

func (b *builder) push(mt string, content []byte) ocispec.Descriptor {
	b.t.Helper()
	d, err := b.s.PushBytes(context.Background(), mt, content)
	if err != nil {
		b.t.Fatal(err)
	}
	return d
}

func (b *builder) pushJSON(mt string, v any) ocispec.Descriptor {
	b.t.Helper()
	j, err := json.Marshal(v)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.push(mt, j)
}

// gzLayer pushes a gzip layer of entries.
func (b *builder) gzLayer(entries ...entry) ocispec.Descriptor {
	return b.push(ocispec.MediaTypeImageLayerGzip, gzipBytes(b.t, tarBytes(b.t, entries...)))
}

// image pushes an OCI image of layers with config labels.
func (b *builder) image(labels map[string]string, layers ...ocispec.Descriptor) ocispec.Descriptor {
	cfg := ocispec.Image{Config: ocispec.ImageConfig{Labels: labels}, RootFS: ocispec.RootFS{Type: "layers"}}
	m := ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    b.pushJSON(ocispec.MediaTypeImageConfig, cfg),
		Layers:    append([]ocispec.Descriptor{}, layers...),
	}
	return b.pushJSON(ocispec.MediaTypeImageManifest, m)
}

// index pushes an OCI index of manifests.
func (b *builder) index(manifests ...ocispec.Descriptor) ocispec.Descriptor {
	return b.pushJSON(ocispec.MediaTypeImageIndex, ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex,
		Manifests: manifests,
	})
}

func (b *builder) tag(d ocispec.Descriptor, ref string) {
	b.t.Helper()
	if err := b.s.Tag(context.Background(), d, ref); err != nil {
		b.t.Fatal(err)
	}
}

func withPlatform(d ocispec.Descriptor, p string) ocispec.Descriptor {
	pl, err := oci.ParsePlatform(p)
	if err != nil {
		panic(err)
	}
	d.Platform = &pl
	return d
}

// corruptFetcher serves replacement bytes for some digests.
type corruptFetcher struct {
	oci.Fetcher
	replace map[digest.Digest][]byte
}

func (c corruptFetcher) Fetch(ctx context.Context, d ocispec.Descriptor) (io.ReadCloser, error) {
	if b, ok := c.replace[d.Digest]; ok {
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	return c.Fetcher.Fetch(ctx, d)
}

// wantErr checks that err is of class want (nil: no error).
func wantErr(t testing.TB, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("error %v, want class %v", err, want)
	}
}

func corpusPath(t testing.TB, name string) string {
	t.Helper()
	return testcorpus.Path(t, name)
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the regular files of src into dst.
func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(dst, rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
