package hostile

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	ggcrlayout "github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/klauspost/compress/zstd"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/tartest"
)

func TestHeaderReadsWithArchiveTar(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		e    tarEntry
		want tar.Header
	}{
		{"file", file("a/b.yaml", []byte("x: 1\n")), tar.Header{Name: "a/b.yaml", Typeflag: tar.TypeReg, Size: 5, Mode: 0o644}},
		{"dir", special("d/", typeDir, ""), tar.Header{Name: "d/", Typeflag: tar.TypeDir, Mode: 0o755}},
		{"symlink", special("l", typeSymlink, "/etc/passwd"), tar.Header{Name: "l", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd", Mode: 0o644}},
		{"hardlink", special("h", typeLink, "a"), tar.Header{Name: "h", Typeflag: tar.TypeLink, Linkname: "a", Mode: 0o644}},
		{"char device", tarEntry{name: "c", typeflag: typeChar, size: -1, devMajor: 1, devMinor: 5}, tar.Header{Name: "c", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 5, Mode: 0o644}},
		{"fifo", special("f", typeFifo, ""), tar.Header{Name: "f", Typeflag: tar.TypeFifo, Mode: 0o644}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := tarOf(tt.e)(&buf); err != nil {
				t.Fatal(err)
			}
			tr := tar.NewReader(&buf)
			h, err := tr.Next()
			if err != nil {
				t.Fatal(err)
			}
			if h.Name != tt.want.Name || h.Typeflag != tt.want.Typeflag || h.Size != tt.want.Size ||
				h.Linkname != tt.want.Linkname || h.Mode != tt.want.Mode ||
				h.Devmajor != tt.want.Devmajor || h.Devminor != tt.want.Devminor || h.Format != tar.FormatUSTAR {
				t.Errorf("read %+v, want %+v", *h, tt.want)
			}
			if _, err := tr.Next(); err != io.EOF {
				t.Errorf("after the entry: %v, want io.EOF", err)
			}
		})
	}
	if _, err := header(strings.Repeat("n", 101), typeReg, "", 0, 0, 0); err == nil {
		t.Error("a 101-byte name was accepted")
	}
	if _, err := header("n", typeReg, "", 1<<33, 0, 0); err == nil {
		t.Error("a size of 8 GiB was accepted")
	}
}

// Bombs are tested at a small scale, decompressed in full: the trailer
// (CRC, size) and the framing must be exactly right.
func TestBombsDecompressExactly(t *testing.T) {
	t.Parallel()
	prefix, suffix := []byte("head:"), []byte(":tail")
	const n = 3*bombChunk + 12345
	want := append(append(append([]byte{}, prefix...), bytes.Repeat([]byte{'z'}, n)...), suffix...)
	t.Run("gzip", func(t *testing.T) {
		t.Parallel()
		var buf bytes.Buffer
		if err := gzipBomb(prefix, []byte("z"), n, suffix)(&buf); err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false) // one member, as a strict reader expects
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("gunzip: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("decompressed %d bytes, want %d equal bytes", len(got), len(want))
		}
		if buf.Len() != 0 {
			t.Errorf("%d bytes after the gzip member", buf.Len())
		}
	})
	t.Run("gzip-unit", func(t *testing.T) {
		t.Parallel()
		unit := []byte("---\nkind: A\n")
		const count = 3*bombChunk/13 + 7
		var buf bytes.Buffer
		if err := gzipBomb(prefix, unit, count, suffix)(&buf); err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("gunzip: %v", err)
		}
		want := append(append(append([]byte{}, prefix...), bytes.Repeat(unit, count)...), suffix...)
		if !bytes.Equal(got, want) {
			t.Errorf("decompressed %d bytes, want %d equal bytes", len(got), len(want))
		}
	})
	t.Run("zstd", func(t *testing.T) {
		t.Parallel()
		var buf bytes.Buffer
		if err := zstdBomb(prefix, 'z', 2*zstdChunk+777, suffix)(&buf); err != nil {
			t.Fatal(err)
		}
		zr, err := zstd.NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("unzstd: %v", err)
		}
		if w := len(prefix) + 2*zstdChunk + 777 + len(suffix); len(got) != w || !bytes.HasPrefix(got, prefix) || !bytes.HasSuffix(got, suffix) {
			t.Errorf("decompressed %d bytes, want %d framed by prefix and suffix", len(got), w)
		}
	})
}

func TestEntryBombIsAValidTar(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := entryBomb(1234, file("package.yaml", []byte(validPackage)))(&buf); err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(&buf)
	names := map[string]bool{}
	var last string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d entries: %v", len(names), err)
		}
		if names[h.Name] {
			t.Errorf("duplicate entry %s", h.Name)
		}
		names[h.Name] = true
		last = h.Name
	}
	if len(names) != 1+1234+1 || last != "package.yaml" || !names["bomb/00009999"] || !names["bomb/00099981"] {
		t.Errorf("read %d entries ending with %s", len(names), last)
	}
}

func TestGzipEntryBombMatchesEntryBomb(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			last := []tarEntry{file("package.yaml", []byte(validPackage))}
			var plain, zipped bytes.Buffer
			if err := entryBomb(n, last...)(&plain); err != nil {
				t.Fatal(err)
			}
			if err := gzipEntryBomb(n, last...)(&zipped); err != nil {
				t.Fatal(err)
			}
			zr, err := gzip.NewReader(&zipped)
			if err != nil {
				t.Fatal(err)
			}
			zr.Multistream(false)
			got, err := io.ReadAll(zr) // checks the CRC and size trailer
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, plain.Bytes()) {
				t.Errorf("gunzipped %d bytes, differ from the %d of the plain bomb", len(got), plain.Len())
			}
		})
	}
}

func TestNextDigitsEnumeratesInOrder(t *testing.T) {
	t.Parallel()
	var want []string
	for v := 0; v < 1000; v++ {
		s := fmt.Sprintf("%03d", v)
		if int(s[0]-'0')+int(s[1]-'0')+int(s[2]-'0') == 5 {
			want = append(want, s)
		}
	}
	d := []byte{0, 0, 5}
	var got []string
	for ok := true; ok; ok = nextDigits(d) {
		got = append(got, fmt.Sprintf("%d%d%d", d[0], d[1], d[2]))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("enumerated %v\nwant %v", got, want)
	}
}

// TestControlsReadWithGoContainerRegistry reads the controls with an
// independent implementation: the writers produce real images.
func TestControlsReadWithGoContainerRegistry(t *testing.T) {
	t.Parallel()
	for _, c := range Controls() {
		if c.Kind != KindXpkg && c.Kind != KindOCILayoutDir && c.Kind != KindOCILayoutTar {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			img := openImage(t, c)
			layers, err := img.Layers()
			if err != nil {
				t.Fatal(err)
			}
			if len(layers) != 1 {
				t.Fatalf("%d layers, want 1", len(layers))
			}
			rc, err := layers[0].Uncompressed()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			got := readEntry(t, tar.NewReader(rc), "package.yaml")
			if string(got) != validPackage {
				t.Errorf("package.yaml = %q", got)
			}
			if c.Kind == KindXpkg {
				cfg, err := img.ConfigFile()
				if err != nil {
					t.Fatal(err)
				}
				d, err := layers[0].Digest()
				if err != nil {
					t.Fatal(err)
				}
				if v := cfg.Config.Labels[labelPrefix+d.String()]; v != baseValue {
					t.Errorf("base label = %q, labels %v", v, cfg.Config.Labels)
				}
			}
		})
	}
}

// openImage writes c and opens its single image with go-containerregistry.
func openImage(t *testing.T, c Case) v1.Image {
	t.Helper()
	dir := t.TempDir()
	p, err := c.Write(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind == KindXpkg {
		img, err := tarball.ImageFromPath(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	if c.Kind == KindOCILayoutTar {
		p = untar(t, p)
	}
	idx, err := ggcrlayout.ImageIndexFromPath(p)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// untar extracts the regular files and directories of the tar at p into a
// new directory.
func untar(t *testing.T, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := t.TempDir()
	tartest.Extract(t, f, out)
	return out
}

// readEntry returns the content of the entry named name.
func readEntry(t *testing.T, tr *tar.Reader, name string) []byte {
	t.Helper()
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("looking for %s: %v", name, err)
		}
		if h.Name == name {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}

// ociFixture is a written OCI layout case, read without verification.
type ociFixture struct {
	t    *testing.T
	root string
}

func writeOCI(t *testing.T, name string) ociFixture {
	t.Helper()
	c, ok := Lookup(name)
	if !ok {
		t.Fatalf("no case %s", name)
	}
	p, err := c.Write(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind == KindOCILayoutTar {
		p = untar(t, p)
	}
	return ociFixture{t: t, root: p}
}

func (f ociFixture) index() ocispec.Index {
	var x ocispec.Index
	f.decode(filepath.Join(f.root, "index.json"), &x)
	return x
}

func (f ociFixture) blobPath(d ocispec.Descriptor) string {
	return filepath.Join(f.root, "blobs", "sha256", d.Digest.Encoded())
}

func (f ociFixture) manifest() ocispec.Manifest {
	var m ocispec.Manifest
	f.decode(f.blobPath(f.index().Manifests[0]), &m)
	return m
}

func (f ociFixture) decode(p string, v any) {
	f.t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		f.t.Fatal(err)
	}
}

func sha256File(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestCasesHaveTheirShape checks that chosen cases are what their
// descriptions say, with the standard library as the reader.
func TestCasesHaveTheirShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"tar-size-exceeds-data", func(t *testing.T) {
			f := writeOCI(t, "tar-size-exceeds-data")
			b, err := os.ReadFile(f.blobPath(f.manifest().Layers[0]))
			if err != nil {
				t.Fatal(err)
			}
			tr := tar.NewReader(bytes.NewReader(b))
			if _, err := tr.Next(); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadAll(tr); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("reading package.yaml: %v, want unexpected EOF", err)
			}
		}},
		{"tar-size-short", func(t *testing.T) {
			c, _ := Lookup("tar-size-short")
			img := openImage(t, c)
			layers, err := img.Layers()
			if err != nil {
				t.Fatal(err)
			}
			rc, err := layers[0].Uncompressed()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			tr := tar.NewReader(rc)
			if h, err := tr.Next(); err != nil || h.Size != 20 {
				t.Fatalf("first entry: %v, %v", h, err)
			}
			if _, err := tr.Next(); !errors.Is(err, tar.ErrHeader) {
				t.Errorf("second entry: %v, want tar.ErrHeader", err)
			}
		}},
		{"layer-flipped-byte", func(t *testing.T) {
			f := writeOCI(t, "layer-flipped-byte")
			d := f.manifest().Layers[0]
			p := f.blobPath(d)
			if got := sha256File(t, p); got == d.Digest.Encoded() {
				t.Error("the blob still matches its digest")
			}
			fl, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer fl.Close()
			if got := readEntry(t, tar.NewReader(fl), "package.yaml"); string(got) != validPackage {
				t.Error("the flip changed package.yaml")
			}
		}},
		{"layer-truncated", func(t *testing.T) {
			f := writeOCI(t, "layer-truncated")
			d := f.manifest().Layers[0]
			fi, err := os.Stat(f.blobPath(d))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() != d.Size-2*blockSize {
				t.Errorf("blob is %d bytes, descriptor %d", fi.Size(), d.Size)
			}
		}},
		{"index-self-reference", func(t *testing.T) {
			f := writeOCI(t, "index-self-reference")
			d := f.index().Manifests[0]
			var inner ocispec.Index
			f.decode(f.blobPath(d), &inner)
			if inner.Manifests[0].Digest != d.Digest || inner.Manifests[0].Size != d.Size {
				t.Errorf("inner index lists %v, want itself %v", inner.Manifests[0], d)
			}
			fi, err := os.Stat(f.blobPath(d))
			if err != nil || fi.Size() != d.Size {
				t.Errorf("blob size %v (%v), descriptor %d", fi, err, d.Size)
			}
		}},
		{"index-nested-deep", func(t *testing.T) {
			f := writeOCI(t, "index-nested-deep")
			d := f.index().Manifests[0]
			depth := 1
			for d.MediaType == ocispec.MediaTypeImageIndex {
				if got := sha256File(t, f.blobPath(d)); got != d.Digest.Encoded() {
					t.Fatalf("level %d: digest mismatch", depth)
				}
				var x ocispec.Index
				f.decode(f.blobPath(d), &x)
				d = x.Manifests[0]
				depth++
			}
			if depth != nestedIndexDepth {
				t.Errorf("manifest at depth %d, want %d", depth, nestedIndexDepth)
			}
		}},
		{"manifest-many-layers", func(t *testing.T) {
			f := writeOCI(t, "manifest-many-layers")
			d := f.index().Manifests[0]
			if d.Size >= 3<<20 {
				t.Errorf("manifest is %d bytes, want under 3 MiB", d.Size)
			}
			if n := len(f.manifest().Layers); n != manyLayersN {
				t.Errorf("%d layers, want %d", n, manyLayersN)
			}
		}},
		{"gzip-bomb", func(t *testing.T) {
			c, _ := Lookup("gzip-bomb")
			img := openImage(t, c)
			layers, err := img.Layers()
			if err != nil {
				t.Fatal(err)
			}
			rc, err := layers[0].Compressed()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			zr, err := gzip.NewReader(rc)
			if err != nil {
				t.Fatal(err)
			}
			h, err := tar.NewReader(zr).Next()
			if err != nil || h.Name != "padding" || h.Size != bombSize {
				t.Errorf("first entry %v, %v; want padding of %d bytes", h, err, bombSize)
			}
		}},
		{"yaml-repeated-key-flood", func(t *testing.T) {
			c, _ := Lookup("yaml-repeated-key-flood")
			p, err := c.Write(t.Context(), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(b, []byte("\na: b")); n != keyFloodN {
				t.Errorf("%d repeated keys, want %d", n, keyFloodN)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t)
		})
	}
	if len(validPackage)%blockSize == 0 {
		t.Error("layer-flipped-byte needs package.yaml padding: validPackage must not fill whole blocks")
	}
}

func TestWriteSeeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths, err := WriteSeeds(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	total, err := diskSize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if total > 1<<20 {
		t.Errorf("seeds take %d bytes, want under 1 MiB", total)
	}
	if len(paths) < 40 {
		t.Errorf("only %d seeds", len(paths))
	}
	// The committed seeds are those WriteSeeds writes now.
	committed := filepath.Join("..", "..", "xpkg", "testdata", "hostile")
	if _, err := os.Stat(committed); err != nil {
		t.Skipf("no committed seeds: %v", err)
	}
	want, got := snapshot(t, dir), snapshot(t, committed)
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s is stale or missing; run go generate ./internal/hostile", filepath.Join(committed, name))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is not a seed any more; delete it and run go generate ./internal/hostile", filepath.Join(committed, name))
		}
	}
}

func ExampleCases() {
	for _, name := range []string{"gzip-bomb", "symlink-etc-passwd", "yaml-billion-laughs"} {
		c, _ := Lookup(name)
		fmt.Printf("%s (%s): %v, exit %v\n", c.Name, c.Kind, c.Expect, c.ExitCodes())
	}
	// Output:
	// gzip-bomb (xpkg): limit-exceeded(decompressed-size), exit [2]
	// symlink-etc-passwd (xpkg): not-found, exit [2]
	// yaml-billion-laughs (package-yaml): limit-exceeded(aliases), exit [1 2]
}

func ExampleCase_Write() {
	dir, err := os.MkdirTemp("", "hostile")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	c, _ := Lookup("yaml-anchor-self-reference")
	p, err := c.Write(context.Background(), dir)
	if err != nil {
		panic(err)
	}
	fmt.Println(filepath.Base(p), c.Accepts(Outcome{Class: ClassParseError}), c.Accepts(Outcome{Class: ClassOK}))
	// Output: yaml-anchor-self-reference.yaml true false
}
