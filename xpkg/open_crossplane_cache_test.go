package xpkg_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

func gzipFile(t *testing.T, name string, data []byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, dst, src string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOpenCrossplaneCache reads Crossplane's package cache: a directory
// of <name>.gz streams and .xpkg files, an entry, or an entry's name as
// Crossplane looks it up.
func TestOpenCrossplaneCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stream, err := os.ReadFile(filepath.Join(testcorpus.Path(t, "provider-helm"), "package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := xpkg.Open(ctx, filepath.Join(testcorpus.Path(t, "provider-helm"), "package.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	one := t.TempDir()
	gzipFile(t, filepath.Join(one, "mycoolpkg.gz"), stream)
	for _, source := range []string{one, filepath.Join(one, "mycoolpkg.gz"), filepath.Join(one, "mycoolpkg"), filepath.Join(one, "mycoolpkg.xpkg")} {
		p, err := xpkg.Open(ctx, source)
		if err != nil {
			t.Fatalf("Open(%s): %v", source, err)
		}
		if p.SourceKind != xpkg.SourceCrossplaneCache || p.SourceKind.String() != "crossplane-cache" {
			t.Errorf("Open(%s): Kind %v", source, p.SourceKind)
		}
		if len(p.Objects) != len(want.Objects) || len(p.Meta) != 1 {
			t.Errorf("Open(%s): %d objects, %d meta; want %d, 1", source, len(p.Objects), len(p.Meta), len(want.Objects))
		}
		if p.Root != one || p.Meta[0].Pos.File != "mycoolpkg.gz" {
			t.Errorf("Open(%s): Root %q, file %q: want the entry read", source, p.Root, p.Meta[0].Pos.File)
		}
	}

	several := t.TempDir()
	gzipFile(t, filepath.Join(several, "a.gz"), stream)
	copyFile(t, filepath.Join(several, "provider-kubernetes.xpkg"), testcorpus.Path(t, "provider-kubernetes.xpkg"))
	_, err = xpkg.Open(ctx, several)
	if !errors.Is(err, xpkg.ErrUnknownSource) || !strings.Contains(err.Error(), "a.gz, provider-kubernetes.xpkg") {
		t.Errorf("a cache of two packages: err = %v, want ErrUnknownSource naming both", err)
	}
	p, err := xpkg.Open(ctx, filepath.Join(several, "provider-kubernetes"))
	if err != nil {
		t.Fatal(err)
	}
	if p.SourceKind != xpkg.SourceCrossplaneCache || p.Image == nil || p.Image.Facts.Source != filepath.Join(several, "provider-kubernetes.xpkg") {
		t.Errorf("the .xpkg entry: Kind %v, image %v", p.SourceKind, p.Image != nil)
	}
}

// TestOpenCrossplaneCacheBound: a cache entry that decompresses past the
// file size limit is refused.
func TestOpenCrossplaneCacheBound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gzipFile(t, filepath.Join(dir, "big.gz"), append([]byte("apiVersion: v1\nkind: ConfigMap\n"), bytes.Repeat([]byte("# a comment line\n"), 1<<16)...))
	l := xpkg.DefaultLimits()
	l.OCI.MaxFileSize = 64 << 10
	_, err := xpkg.Open(context.Background(), filepath.Join(dir, "big.gz"), xpkg.WithLimits(l))
	if !errors.Is(err, oci.ErrLimit) {
		t.Errorf("err = %v, want oci.ErrLimit", err)
	}
}
