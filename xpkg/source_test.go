package xpkg_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// writeTemp writes data to a file named name in a new temporary directory.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// tarOf returns a tar stream of files (name, content pairs).
func tarOf(t *testing.T, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		if err := tw.WriteHeader(&tar.Header{Name: files[i], Mode: 0o644, Size: int64(len(files[i+1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(files[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gzipOf compresses data.
func gzipOf(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestOpenDirectoryHoldingPackageYAML: a directory holding only
// package.yaml is a package root, as crossplane xpkg build --package-root
// reads it (it used to be "not a package source").
func TestOpenDirectoryHoldingPackageYAML(t *testing.T) {
	t.Parallel()
	p, err := xpkg.Open(t.Context(), "testdata/open/stream-only")
	if err != nil {
		t.Fatal(err)
	}
	if p.SourceKind != xpkg.SourceDirectory || len(p.Package.Meta) != 1 {
		t.Errorf("kind %v, %d meta objects; want a package directory with its meta object", p.SourceKind, len(p.Package.Meta))
	}
}

// TestOpenDetectionFailures checks that a source no kind fits is an
// ErrUnknownSource that says what was tried.
func TestOpenDetectionFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		source func(t *testing.T) string
		want   error
		tried  []string // substrings of the error message
	}{
		{
			name:   "missing path",
			source: func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope") },
			want:   fs.ErrNotExist,
		},
		{
			name:   "directory that is not a package",
			source: func(*testing.T) string { return "testdata/open/not-a-package" },
			want:   xpkg.ErrUnknownSource,
			tried:  []string{"no oci-layout file", "no crossplane.yaml at its root or in package/"},
		},
		{
			name:   "binary file",
			source: func(*testing.T) string { return "testdata/open/binary.bin" },
			want:   xpkg.ErrUnknownSource,
			tried:  []string{"not a tar or gzip stream", "binary content"},
		},
		{
			name:   "tar that is not an image",
			source: func(t *testing.T) string { return writeTemp(t, "files.tar", tarOf(t, "README.md", "hello")) },
			want:   xpkg.ErrUnknownSource,
			tried:  []string{"image:", "tar has neither"},
		},
		{
			name:   "gzip that is not a tar",
			source: func(t *testing.T) string { return writeTemp(t, "text.gz", gzipOf(t, []byte("hello\n"))) },
			want:   xpkg.ErrUnknownSource,
			tried:  []string{"not a tar archive"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := tc.source(t)
			p, err := xpkg.Open(t.Context(), src)
			if p != nil || !errors.Is(err, tc.want) {
				t.Fatalf("Open = %v, %v; want error %v", p, err, tc.want)
			}
			var se *xpkg.SourceError
			if !errors.As(err, &se) || se.Source != src {
				t.Fatalf("error %v is not a *SourceError for %s", err, src)
			}
			if errors.Is(err, xpkg.ErrUnknownSource) && (se.SourceKind != 0 || len(se.Tried) == 0) {
				t.Errorf("detection failure with Kind %v and Tried %v", se.SourceKind, se.Tried)
			}
			for _, s := range tc.tried {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
}

// TestOpenTextWithNUL checks that a text file with a NUL byte past its
// first lines, or with bytes that are not UTF-8, is read as the broken YAML
// stream it is, and reported.
func TestOpenTextWithNUL(t *testing.T) {
	t.Parallel()
	yaml := append(xpkgtest.NewProvider("provider-example").WithCRD("example.org", "Widget").YAML(), "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n\x00ul\n"...)
	p, err := xpkg.Open(t.Context(), writeTemp(t, "package.yaml", yaml))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if p.SourceKind != xpkg.SourcePackageYAML || len(p.Errors) != 1 {
		t.Errorf("Kind %v with %d document errors, want a package.yaml with 1", p.SourceKind, len(p.Errors))
	}
	latin1 := append(xpkgtest.NewProvider("provider-example").YAML(), "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n"...)
	p, err = xpkg.Open(t.Context(), writeTemp(t, "latin1.yaml", latin1))
	if err != nil || len(p.Meta) != 1 || len(p.Errors) != 1 {
		t.Errorf("Open of a stream with a Latin-1 document = %v, %v: want the meta object and one document error", p, err)
	}
}

// TestOpenReader reads packages from readers: YAML streams, images, and
// input that is neither.
func TestOpenReader(t *testing.T) {
	t.Parallel()
	pkg := xpkgtest.NewProvider("provider-example").WithCRD("example.org", "Widget")
	img := pkg.MustImage(t)
	xpkgBytes, err := os.ReadFile(img.XpkgFile(t))
	if err != nil {
		t.Fatal(err)
	}
	layoutTar, err := os.ReadFile(img.LayoutTarFile(t))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		input    []byte
		opts     []xpkg.Option
		image    bool
		wantFile string
		wantErr  error
	}{
		{name: "yaml", input: pkg.YAML(), wantFile: "<stdin>"},
		{name: "named yaml", input: pkg.YAML(), opts: []xpkg.Option{xpkg.WithSourceName("upload.yaml")}, wantFile: "upload.yaml"},
		{name: "xpkg", input: xpkgBytes, image: true, wantFile: xpkg.PackageFile},
		{name: "gzip xpkg", input: gzipOf(t, xpkgBytes), image: true, wantFile: xpkg.PackageFile},
		{name: "layout tar", input: layoutTar, image: true, wantFile: xpkg.PackageFile},
		{name: "binary", input: []byte{0x7f, 'E', 'L', 'F', 0, 0, 1}, wantErr: xpkg.ErrUnknownSource},
		{name: "tar of files", input: tarOf(t, "package.yaml", string(pkg.YAML())), wantErr: xpkg.ErrUnknownSource},
		{
			name: "image over MaxReaderBytes", input: xpkgBytes,
			opts:    []xpkg.Option{xpkg.WithLimits(xpkg.Limits{MaxReaderBytes: 1024})},
			wantErr: limit.ErrExceeded,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := xpkg.OpenReader(t.Context(), bytes.NewReader(tc.input), tc.opts...)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("OpenReader error = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("OpenReader: %v", err)
			}
			if p.SourceKind != xpkg.SourceReader || (p.Image != nil) != tc.image || len(p.Objects) != 1 {
				t.Errorf("Kind %v, image %v, %d objects", p.SourceKind, p.Image != nil, len(p.Objects))
			}
			if f := p.Objects[0].Pos.File; f != tc.wantFile {
				t.Errorf("file in positions = %q, want %q", f, tc.wantFile)
			}
		})
	}
}

// TestOpenLimits checks that one Limits value reaches the image readers,
// the parser and the spooling.
func TestOpenLimits(t *testing.T) {
	t.Parallel()
	pkg := xpkgtest.NewProvider("provider-example").WithCRD("example.org", "Widget").WithCRD("example.org", "Gadget")
	img := pkg.MustImage(t)
	xpkgFile, yamlFile := img.XpkgFile(t), pkg.PackageYAMLFile(t)
	cases := []struct {
		name   string
		source string
		limits xpkg.Limits
		want   error
	}{
		{"oci layer size", xpkgFile, xpkg.Limits{OCI: oci.Limits{MaxLayerBytes: 100}}, limit.ErrExceeded},
		{"oci manifest size", img.LayoutDir(t), xpkg.Limits{OCI: oci.Limits{MaxManifestBytes: 10}}, limit.ErrExceeded},
		{"parser documents in an image", xpkgFile, xpkg.Limits{Parser: parser.Limits{MaxDocuments: 2}}, limit.ErrExceeded},
		{"parser documents in a stream", yamlFile, xpkg.Limits{Parser: parser.Limits{MaxDocuments: 2}}, limit.ErrExceeded},
		{"parser bytes in a directory", pkg.Dir(t), xpkg.Limits{Parser: parser.Limits{MaxTotalBytes: 100}}, limit.ErrExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := xpkg.Open(t.Context(), tc.source, xpkg.WithLimits(tc.limits))
			if !errors.Is(err, tc.want) {
				t.Errorf("Open error = %v, want %v", err, tc.want)
			}
		})
	}
	// Setting one limit keeps the defaults of the others.
	if _, err := xpkg.Open(t.Context(), xpkgFile, xpkg.WithLimits(xpkg.Limits{OCI: oci.Limits{MaxLayers: 5}})); err != nil {
		t.Errorf("Open with one limit set: %v", err)
	}
}

// TestDefaultLimits checks that the defaults are those of the packages
// the limits reach.
func TestDefaultLimits(t *testing.T) {
	t.Parallel()
	l := xpkg.DefaultLimits()
	if l.OCI != oci.DefaultLimits() || l.Parser != parser.DefaultLimits() || l.MaxReaderBytes <= 0 {
		t.Errorf("DefaultLimits() = %+v", l)
	}
}

// TestSourceKindString checks the names the CLI prints.
func TestSourceKindString(t *testing.T) {
	t.Parallel()
	want := map[xpkg.SourceKind]string{
		xpkg.SourceXpkg: "xpkg", xpkg.SourceOCILayout: "oci-layout", xpkg.SourceOCILayoutTar: "oci-layout-tar",
		xpkg.SourceDirectory: "directory", xpkg.SourcePackageYAML: "package.yaml", xpkg.SourceReader: "reader",
		xpkg.SourceImage: "image", xpkg.SourceKind(99): "SourceKind(99)",
	}
	for k, w := range want {
		if k.String() != w {
			t.Errorf("%d.String() = %q, want %q", int(k), k.String(), w)
		}
	}
}

// TestOpenMetaInSubdirectory: crossplane xpkg build reads the whole tree
// of a package directory and finds the meta object in a subdirectory's
// YAML file too, so Open reads such a directory as a package.
func TestOpenMetaInSubdirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "apis", "meta"), 0o755); err != nil {
		t.Fatal(err)
	}
	meta := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: in-a-subdirectory\n"
	if err := os.WriteFile(filepath.Join(dir, "apis", "meta", "crossplane.yaml"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := xpkg.Open(t.Context(), dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if p.SourceKind != xpkg.SourceDirectory || len(p.Meta) != 1 || p.Meta[0].ObjectMeta.Name != "in-a-subdirectory" || p.Meta[0].Pos.File != "apis/meta/crossplane.yaml" {
		t.Errorf("Open = kind %v, meta %v", p.SourceKind, p.Meta)
	}
}
