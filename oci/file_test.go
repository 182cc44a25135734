package oci_test

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
)

// TestReadFileChangesets applies layer changesets per the image spec's
// layer.md. Layers are listed bottom first.
func TestReadFileChangesets(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		layers    [][]entry
		file      string
		want      string
		wantLayer int
		wantErr   error
		warnings  int
	}{
		{name: "one layer", layers: [][]entry{{file("package.yaml", "a")}}, file: "package.yaml", want: "a"},
		{name: "dot slash entry", layers: [][]entry{{file("./package.yaml", "a")}}, file: "package.yaml", want: "a"},
		{name: "dot slash name", layers: [][]entry{{file("package.yaml", "a")}}, file: "./package.yaml", want: "a"},
		{name: "upper replaces", layers: [][]entry{{file("package.yaml", "a")}, {file("package.yaml", "b")}}, file: "package.yaml", want: "b", wantLayer: 1},
		{name: "lower layer kept", layers: [][]entry{{file("package.yaml", "a")}, {file("other", "x")}}, file: "package.yaml", want: "a"},
		{name: "whiteout hides lower", layers: [][]entry{{file("package.yaml", "a")}, {file(".wh.package.yaml", "")}}, file: "package.yaml", wantErr: oci.ErrNotFound},
		{name: "whiteout before own entry", layers: [][]entry{{file("package.yaml", "a")}, {file(".wh.package.yaml", ""), file("package.yaml", "b")}}, file: "package.yaml", want: "b", wantLayer: 1},
		{name: "whiteout after own entry", layers: [][]entry{{file("package.yaml", "b"), file(".wh.package.yaml", "")}}, file: "package.yaml", want: "b"},
		{name: "whiteout of other name", layers: [][]entry{{file("package.yaml", "a")}, {file(".wh.package.yaml.bak", "")}}, file: "package.yaml", want: "a"},
		{name: "parent whiteout", layers: [][]entry{{file("a/f", "a")}, {file(".wh.a", "")}}, file: "a/f", wantErr: oci.ErrNotFound},
		{name: "whiteout of prefix sibling", layers: [][]entry{{file("ab/f", "a")}, {file(".wh.a", "")}}, file: "ab/f", want: "a"},
		{name: "opaque hides lower", layers: [][]entry{{file("a/f", "a")}, {dir("a/"), file("a/.wh..wh..opq", "")}}, file: "a/f", wantErr: oci.ErrNotFound},
		{name: "opaque keeps own layer", layers: [][]entry{{file("a/f", "a")}, {file("a/f", "b"), file("a/.wh..wh..opq", "")}}, file: "a/f", want: "b", wantLayer: 1},
		{name: "opaque of sibling dir", layers: [][]entry{{file("a/f", "a")}, {file("b/.wh..wh..opq", "")}}, file: "a/f", want: "a"},
		{name: "root opaque", layers: [][]entry{{file("package.yaml", "a")}, {file(".wh..wh..opq", "")}}, file: "package.yaml", wantErr: oci.ErrNotFound},
		{name: "file replaces parent dir", layers: [][]entry{{file("a/f", "a")}, {file("a", "x")}}, file: "a/f", wantErr: oci.ErrNotFound},
		{name: "dir entry keeps lower", layers: [][]entry{{file("a/f", "a")}, {dir("a/")}}, file: "a/f", want: "a"},
		{name: "duplicate in one layer", layers: [][]entry{{file("package.yaml", "a"), file("./package.yaml", "b")}}, file: "package.yaml", wantErr: oci.ErrDuplicateEntry},
		{name: "duplicate after found", layers: [][]entry{{file("package.yaml", "a"), file("x", ""), file("package.yaml", "b")}}, file: "package.yaml", wantErr: oci.ErrDuplicateEntry},
		{name: "bare whiteout", layers: [][]entry{{file("package.yaml", "a")}, {file("dir/.wh.", "")}}, file: "package.yaml", wantErr: oci.ErrInvalidWhiteout},
		{name: "dotdot entry never matches", layers: [][]entry{{file("../package.yaml", "evil")}}, file: "package.yaml", wantErr: oci.ErrNotFound},
		{name: "dotdot inside entry never matches", layers: [][]entry{{file("a/../package.yaml", "evil")}}, file: "package.yaml", wantErr: oci.ErrNotFound},
		{name: "absolute entry never matches", layers: [][]entry{{file("/package.yaml", "evil")}}, file: "package.yaml", wantErr: oci.ErrNotFound},
		{name: "unsafe entries reported", layers: [][]entry{{file("../x", ""), file("package.yaml", "a"), file("/etc/passwd", "")}}, file: "package.yaml", want: "a", warnings: 2},
		{name: "unsafe entries of upper layers reported", layers: [][]entry{{file("package.yaml", "a")}, {file("../x", "")}}, file: "package.yaml", want: "a", warnings: 1},
		{name: "misplaced file", layers: [][]entry{{file("a/package.yaml", "a")}}, file: "package.yaml", wantErr: oci.ErrNotFound},
		{name: "directory", layers: [][]entry{{dir("package.yaml/")}}, file: "package.yaml", wantErr: oci.ErrNotRegularFile},
		{name: "symlink", layers: [][]entry{{file("real.yaml", "a"), {name: "package.yaml", typ: tar.TypeSymlink, link: "real.yaml"}}}, file: "package.yaml", wantErr: oci.ErrNotRegularFile},
		{name: "escaping name asked", layers: [][]entry{{file("package.yaml", "a")}}, file: "../package.yaml", wantErr: oci.ErrNotFound},
		{name: "no layers", file: "package.yaml", wantErr: oci.ErrNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBuilder(t)
			var layers []ocispec.Descriptor
			for _, l := range tc.layers {
				layers = append(layers, b.gzLayer(l...))
			}
			f, err := oci.ReadFile(context.Background(), b.s, layers, tc.file)
			var got []byte
			if err == nil {
				got, err = io.ReadAll(f)
				f.Close()
			}
			wantErr(t, err, tc.wantErr)
			if tc.wantErr != nil {
				var e *oci.Error
				if !errors.As(err, &e) {
					t.Errorf("error %v is not an *oci.Error", err)
				}
				return
			}
			if string(got) != tc.want {
				t.Errorf("content %q, want %q", got, tc.want)
			}
			if f.LayerIndex != tc.wantLayer {
				t.Errorf("LayerIndex %d, want %d", f.LayerIndex, tc.wantLayer)
			}
			if f.Layer.Digest != layers[tc.wantLayer].Digest {
				t.Errorf("Layer %s, want %s", f.Layer.Digest, layers[tc.wantLayer].Digest)
			}
			w := f.Warnings()
			if len(w) != tc.warnings {
				t.Errorf("%d warnings %v, want %d", len(w), w, tc.warnings)
			}
			for _, e := range w {
				if !errors.Is(e, oci.ErrUnsafePath) {
					t.Errorf("warning %v is not ErrUnsafePath", e)
				}
			}
		})
	}
}

// TestReadFileStopsAtDecidingLayer checks that layers below the one that has
// the file are never fetched.
func TestReadFileStopsAtDecidingLayer(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	lower := b.gzLayer(file("package.yaml", "old"))
	upper := b.gzLayer(file("package.yaml", "new"))
	missing := lower
	missing.Digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
	f, err := oci.ReadFile(context.Background(), b.s, []ocispec.Descriptor{missing, upper}, "package.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := readAllString(t, f)
	if got != "new" {
		t.Errorf("got %q, want new", got)
	}
}

func readAllString(t testing.TB, r io.ReadCloser) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadLayerFileCompression reads a file from layers of every media type.
func TestReadLayerFileCompression(t *testing.T) {
	t.Parallel()
	raw := tarBytes(t, dir("dir/"), file("package.yaml", "content"))
	cases := []struct {
		name    string
		mt      string
		content []byte
	}{
		{"oci tar", ocispec.MediaTypeImageLayer, raw},
		{"oci gzip", ocispec.MediaTypeImageLayerGzip, gzipBytes(t, raw)},
		{"oci zstd", ocispec.MediaTypeImageLayerZstd, zstdBytes(t, raw)},
		{"docker gzip", oci.MediaTypeDockerLayer, gzipBytes(t, raw)},
		{"docker tar", oci.MediaTypeDockerLayerTar, raw},
		{"sniffed gzip", "", gzipBytes(t, raw)},
		{"sniffed zstd", "application/octet-stream", zstdBytes(t, raw)},
		{"sniffed tar", "", raw},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBuilder(t)
			d := b.push(tc.mt, tc.content)
			f, err := oci.ReadLayerFile(context.Background(), b.s, d, "package.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if got := readAllString(t, f); got != "content" {
				t.Errorf("got %q", got)
			}
		})
	}
}

// TestWalkLayer walks every entry, raw names included, and stops early with
// fs.SkipAll while still verifying the layer.
func TestWalkLayer(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	d := b.gzLayer(file("./a/package.yaml", "misplaced"), file(".registry/app.yaml", "stack"), file("../evil", "x"))
	var names []string
	err := oci.WalkLayer(context.Background(), b.s, d, func(h *tar.Header, r io.Reader) error {
		body, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		names = append(names, h.Name+"="+string(body))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"./a/package.yaml=misplaced", ".registry/app.yaml=stack", "../evil=x"}
	if len(names) != len(want) {
		t.Fatalf("walked %q, want %q", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("entry %d = %q, want %q", i, names[i], want[i])
		}
	}

	// Stopping early still verifies: a corrupted blob fails.
	raw, err := io.ReadAll(mustFetch(t, b.s, d))
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte{}, raw...)
	bad[len(bad)-1] ^= 0xff // the gzip trailer, after every entry
	cf := corruptFetcher{Fetcher: b.s, replace: map[digest.Digest][]byte{d.Digest: bad}}
	err = oci.WalkLayer(context.Background(), cf, d, func(*tar.Header, io.Reader) error { return fs.SkipAll })
	wantErr(t, err, oci.ErrDigestMismatch)
}

// TestWalkLayerTruncatedEntry reads an entry whose content the layer cuts
// short: the entry's reader fails with an *oci.Error of class ErrMalformed,
// not the tar reader's bare io.ErrUnexpectedEOF (a fuzz finding).
func TestWalkLayerTruncatedEntry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	raw := tarBytes(t, file("package.yaml", strings.Repeat("a", 2048)))
	tests := map[string][]byte{
		"mid-content":  raw[:512+100],
		"after header": raw[:512],
		"gzip":         gzipBytes(t, raw[:512+1000]),
	}
	for name, layer := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := oci.NewMemoryStore()
			d, err := s.PushBytes(ctx, "", layer)
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			err = oci.WalkLayer(ctx, s, d, func(_ *tar.Header, r io.Reader) error {
				calls++
				_, err := io.Copy(io.Discard, r)
				return err
			})
			if calls != 1 {
				t.Errorf("callback called %d times, want 1", calls)
			}
			var oe *oci.Error
			if !errors.As(err, &oe) {
				t.Fatalf("WalkLayer: %v (%T), want an *oci.Error", err, err)
			}
			wantErr(t, err, oci.ErrMalformed)
		})
	}
}

func mustFetch(t testing.TB, f oci.Fetcher, d ocispec.Descriptor) io.Reader {
	t.Helper()
	rc, err := f.Fetch(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	return rc
}

// TestFileCloseDuringRead closes a File while another goroutine reads it,
// as xpkg does after a cancelled parse left its read behind: Close returns
// at once (nil, or ErrInUse when the Read was in flight), the read ends,
// and the File is closed after it (run with -race).
func TestFileCloseDuringRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBuilder(t)
	d := b.gzLayer(file("package.yaml", strings.Repeat("apiVersion: v1\nkind: ConfigMap\n---\n", 1<<14)))
	for range 20 {
		f, err := oci.ReadLayerFile(ctx, b.s, d, "package.yaml")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, f)
			done <- err
		}()
		if err := f.Close(); err != nil && !errors.Is(err, oci.ErrInUse) {
			t.Fatalf("Close: %v, want nil or ErrInUse", err)
		}
		<-done // nil (read to the end first) or the closed File's error
		if _, err := f.Read(make([]byte, 1)); err == nil {
			t.Fatalf("Read after Close: %v, want an error", err)
		}
		if err := f.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	}
}

// gatedFetcher serves blobs of s whose reads block, once the gate is armed,
// until it is released, and records when a blob reader is closed.
type gatedFetcher struct {
	s       oci.Fetcher
	armed   atomic.Bool
	reading chan struct{} // closed when a read has blocked
	release chan struct{} // closed to let it go on
	closed  chan struct{} // closed when the blob reader is closed
}

type gatedReader struct {
	io.ReadCloser
	g *gatedFetcher
}

func (g *gatedFetcher) Fetch(ctx context.Context, d ocispec.Descriptor) (io.ReadCloser, error) {
	rc, err := g.s.Fetch(ctx, d)
	if err != nil {
		return nil, err
	}
	return &gatedReader{rc, g}, nil
}

func (r *gatedReader) Read(p []byte) (int, error) {
	if r.g.armed.CompareAndSwap(true, false) {
		close(r.g.reading)
		<-r.g.release
	}
	return r.ReadCloser.Read(p)
}

func (r *gatedReader) Close() error {
	close(r.g.closed)
	return r.ReadCloser.Close()
}

// TestFileCloseDuringBlockedRead closes a File while a Read of it is
// blocked in the Fetcher's reader: Close returns at once an error of class
// ErrInUse (the File is not closed yet: its blob reader is still open),
// and the File is closed when that Read returns; a later Read fails and a
// later Close reports the release.
func TestFileCloseDuringBlockedRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBuilder(t)
	// Uncompressed, and larger than any read-ahead: reading it to the end
	// reads the blob again after ReadLayerFile has returned.
	d := b.push(ocispec.MediaTypeImageLayer, tarBytes(t, file("package.yaml", strings.Repeat("apiVersion: v1\nkind: ConfigMap\n---\n", 1<<15))))
	g := &gatedFetcher{s: b.s, reading: make(chan struct{}), release: make(chan struct{}), closed: make(chan struct{})}
	f, err := oci.ReadLayerFile(ctx, g, d, "package.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g.armed.Store(true)
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, f)
		done <- err
	}()
	<-g.reading
	err = f.Close()
	var oe *oci.Error
	if !errors.Is(err, oci.ErrInUse) || !errors.As(err, &oe) || oe.Op != "close" || oe.Path != "package.yaml" {
		t.Fatalf("Close during a blocked Read = %v, want an *oci.Error of class ErrInUse", err)
	}
	select {
	case <-g.closed:
		t.Fatal("the blob reader was closed under the Read in flight")
	default:
	}
	close(g.release)
	<-done // the Read in flight returns (what it read, or the closed File's error)
	select {
	case <-g.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the File was not closed when the Read in flight returned")
	}
	if _, err := f.Read(make([]byte, 1)); err == nil {
		t.Error("Read after Close succeeded")
	}
	if err := f.Close(); err != nil {
		t.Errorf("Close after the release = %v, want nil", err)
	}
}
