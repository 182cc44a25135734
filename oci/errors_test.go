package oci_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
)

// layerWithBytes returns a store, a layer descriptor and the layer's bytes.
func layerWithBytes(t *testing.T) (*builder, ocispec.Descriptor, []byte) {
	b := newBuilder(t)
	raw := gzipBytes(t, tarBytes(t, file("package.yaml", strings.Repeat("apiVersion: v1\n", 1000))))
	return b, b.push(ocispec.MediaTypeImageLayerGzip, raw), raw
}

// readLayerFileErr reads package.yaml from d through f to the end.
func readLayerFileErr(f oci.Fetcher, d ocispec.Descriptor) error {
	file, err := oci.ReadLayerFile(context.Background(), f, d, "package.yaml")
	if err != nil {
		return err
	}
	defer file.Close()
	_, err = io.Copy(io.Discard, file)
	return err
}

func TestCorruptedBlob(t *testing.T) {
	t.Parallel()
	b, d, raw := layerWithBytes(t)
	for _, at := range []int{20, len(raw) / 2, len(raw) - 1} {
		bad := bytes.Clone(raw)
		bad[at] ^= 0x55
		err := readLayerFileErr(corruptFetcher{b.s, map[digest.Digest][]byte{d.Digest: bad}}, d)
		wantErr(t, err, oci.ErrDigestMismatch)
		var e *oci.Error
		if !errors.As(err, &e) || e.Descriptor.Digest != d.Digest {
			t.Errorf("byte %d: error %v does not name the layer", at, err)
		}
	}
}

func TestTruncatedBlob(t *testing.T) {
	t.Parallel()
	b, d, raw := layerWithBytes(t)
	for _, n := range []int{0, 10, len(raw) / 2, len(raw) - 1} {
		err := readLayerFileErr(corruptFetcher{b.s, map[digest.Digest][]byte{d.Digest: raw[:n]}}, d)
		wantErr(t, err, oci.ErrSizeMismatch)
	}
}

func TestWrongSize(t *testing.T) {
	t.Parallel()
	b, d, _ := layerWithBytes(t)
	for _, delta := range []int64{-1, 1, 1000} {
		wrong := d
		wrong.Size += delta
		wantErr(t, readLayerFileErr(b.s, wrong), oci.ErrSizeMismatch)
	}
	neg := d
	neg.Size = -1
	wantErr(t, readLayerFileErr(b.s, neg), oci.ErrInvalidDescriptor)
	big := d
	big.Size = 1 << 40
	wantErr(t, readLayerFileErr(b.s, big), limit.ErrExceeded)
}

func TestMissingBlob(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyDir(t, corpusPath(t, "function-go-templating.oci"), dir)
	src, err := oci.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	img, err := oci.Resolve(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	base := baseLayer(t, img)
	if err := os.Remove(filepath.Join(dir, "blobs", "sha256", base.Digest.Encoded())); err != nil {
		t.Fatal(err)
	}
	wantErr(t, readLayerFileErr(src, base), oci.ErrNotFound)
	if err := os.Remove(filepath.Join(dir, "blobs", "sha256", img.Descriptor.Digest.Encoded())); err != nil {
		t.Fatal(err)
	}
	_, err = oci.Resolve(context.Background(), src)
	wantErr(t, err, oci.ErrNotFound)
}

func TestEmptyIndexLayout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "oci-layout"), `{"imageLayoutVersion":"1.0.0"}`)
	writeFile(t, filepath.Join(dir, "index.json"), `{"schemaVersion":2,"manifests":[]}`)
	src, err := oci.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = oci.Resolve(context.Background(), src)
	wantErr(t, err, oci.ErrEmptyIndex)
}

// bomb returns a layer of a few KB of compressed data that inflates to n
// bytes.
func bomb(t *testing.T, compress func(testing.TB, []byte) []byte, mt string, n int) (*builder, ocispec.Descriptor) {
	t.Helper()
	b := newBuilder(t)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "package.yaml", Size: int64(n), Mode: 0o644, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	tw.Close()
	raw := compress(t, buf.Bytes())
	if len(raw) > 64<<10 {
		t.Fatalf("bomb is %d bytes", len(raw))
	}
	return b, b.push(mt, raw)
}

// TestDecompressionBomb: a few KB inflating past MaxLayerBytes fails fast, with
// bounded memory. It does not run in parallel: the allocation it measures is
// the whole process's, and Go runs parallel tests only after the sequential
// ones, so running alone keeps other tests' allocations out of the figure.
func TestDecompressionBomb(t *testing.T) {
	cases := []struct {
		name     string
		compress func(testing.TB, []byte) []byte
		mt       string
		maxAlloc uint64
	}{
		{"gzip", gzipBytes, ocispec.MediaTypeImageLayerGzip, 4 << 20},
		// A single-segment zstd frame's window is its content size (8 MiB
		// here), which the decoder allocates, up to MaxZstdWindow.
		{"zstd", zstdBytes, ocispec.MediaTypeImageLayerZstd, 16 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, d := bomb(t, tc.compress, tc.mt, 8<<20)
			lim := oci.WithLimits(oci.Limits{MaxLayerBytes: 256 << 10})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			file, err := oci.ReadLayerFile(context.Background(), b.s, d, "package.yaml", lim)
			if err == nil {
				_, err = io.Copy(io.Discard, file)
				file.Close()
			}
			runtime.ReadMemStats(&after)
			wantErr(t, err, limit.ErrExceeded)
			var le *limit.Error
			if !errors.As(err, &le) || le.Limit != "MaxLayerBytes" {
				t.Errorf("error %v does not name MaxLayerBytes", err)
			}
			// Allocation counts the whole process; the bound holds the
			// decoders' buffers.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > tc.maxAlloc {
				t.Errorf("allocated %d bytes reading a bomb", alloc)
			}
		})
	}
}

// TestZstdWindowLimit: a frame needing a larger window than MaxZstdWindow.
func TestZstdWindowLimit(t *testing.T) {
	t.Parallel()
	b, d := bomb(t, zstdBytes, ocispec.MediaTypeImageLayerZstd, 4<<20)
	err := readLayerFileErr(b.s, d)
	wantErr(t, err, nil)
	file, err := oci.ReadLayerFile(context.Background(), b.s, d, "package.yaml", oci.WithLimits(oci.Limits{MaxZstdWindow: 1 << 20}))
	if err == nil {
		_, err = io.Copy(io.Discard, file)
		file.Close()
	}
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != "MaxZstdWindow" {
		t.Errorf("error %v does not name MaxZstdWindow", err)
	}
}

// TestTarDotDot: entries escaping the root never match and are reported;
// archives skip them.
func TestTarDotDot(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	evil := b.gzLayer(file("../package.yaml", "evil"), file("/package.yaml", "evil"), file("a/../../package.yaml", "evil"))
	wantErr(t, readLayerFileErr(b.s, evil), oci.ErrNotFound)

	mixed := b.gzLayer(file("../../etc/passwd", "evil"), file("package.yaml", "good"))
	f, err := oci.ReadLayerFile(context.Background(), b.s, mixed, "package.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := readAllString(t, f); got != "good" {
		t.Errorf("got %q", got)
	}
	w := f.Warnings()
	if len(w) != 1 || !errors.Is(w[0], oci.ErrUnsafePath) || w[0].Path != "../../etc/passwd" || w[0].Descriptor.Digest != mixed.Digest {
		t.Errorf("warnings %v, want one ErrUnsafePath for ../../etc/passwd", w)
	}

	// A layout tar whose index.json is only reachable through "..".
	layoutTar := tarBytes(t, file("oci-layout", `{"imageLayoutVersion":"1.0.0"}`), file("../index.json", `{"schemaVersion":2,"manifests":[]}`))
	_, err = oci.OpenReaderAt(context.Background(), bytes.NewReader(layoutTar), int64(len(layoutTar)))
	wantErr(t, err, oci.ErrUnknownFormat)
}

// TestIndexSelfReference: an index that lists itself cannot exist (its digest
// would depend on itself); a hostile fetcher serving one is caught by
// verification before the visited set is needed.
func TestIndexSelfReference(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	idx := b.index(b.image(nil, b.gzLayer(file("package.yaml", "x"))))
	raw, err := io.ReadAll(mustFetch(t, b.s, idx))
	if err != nil {
		t.Fatal(err)
	}
	// Serve, for idx, an index whose only entry is idx itself: verification
	// fails first, which is what protects against cycles by construction.
	self := strings.Replace(string(raw), `"manifests":[`, `"manifests":[`+mustJSON(t, idx)+`,`, 1)
	_, err = oci.ResolveDescriptor(context.Background(), corruptFetcher{b.s, map[digest.Digest][]byte{idx.Digest: []byte(self)}}, idx)
	wantErr(t, err, oci.ErrSizeMismatch)
}

func TestManifestTooLarge(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	d := b.image(nil, b.gzLayer(file("package.yaml", "x")))
	b.tag(d, "")
	_, err := oci.Resolve(context.Background(), b.s, oci.WithLimits(oci.Limits{MaxManifestBytes: d.Size - 1}))
	wantErr(t, err, limit.ErrExceeded)
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip, Digest: "sha256:abc"}
	err := &oci.Error{Op: "read file", Descriptor: d, Path: "package.yaml", Err: &limit.Error{Limit: "MaxFileBytes", Max: 10}}
	want := `oci: read file sha256:abc (application/vnd.oci.image.layer.v1.tar+gzip) "package.yaml": MaxFileBytes 10 exceeded`
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	if !errors.Is(err, limit.ErrExceeded) {
		t.Error("not limit.ErrExceeded")
	}
}
