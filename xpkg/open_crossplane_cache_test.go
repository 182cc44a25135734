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
	"github.com/xpkgkit/xpkgkit/limit"
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
	l.OCI.MaxFileBytes = 64 << 10
	_, err := xpkg.Open(context.Background(), filepath.Join(dir, "big.gz"), xpkg.WithLimits(l))
	if !errors.Is(err, limit.ErrExceeded) {
		t.Errorf("err = %v, want limit.ErrExceeded", err)
	}
}

// TestOpenCrossplaneCacheLayouts reads the cache as each release writes
// it: up to v2.1, entries named after the PackageRevision and, for
// packagePullPolicy: Never, after the source, nested by registry and
// repository; from v2.2, flat entries keyed by source plus digest, found
// from a reference under the cache directory.
func TestOpenCrossplaneCacheLayouts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stream, err := os.ReadFile(filepath.Join(testcorpus.Path(t, "provider-helm"), "package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const (
		src     = "xpkg.crossplane.io/crossplane-contrib/provider-helm"
		digestA = "sha256:3f2ac1b0e8d9aa00000000000000000000000000000000000000000000000000"
		digestB = "sha256:9a1cc1b0e8d9aa00000000000000000000000000000000000000000000000000"
		// The source is 51 bytes long: the key keeps its first 50.
		keyA = "xpkg-crossplane-io-crossplane-contrib-provider-hel-sha256-3f2ac.gz"
		keyB = "xpkg-crossplane-io-crossplane-contrib-provider-hel-sha256-9a1cc.gz"
	)
	open := func(t *testing.T, source, wantEntry string) {
		t.Helper()
		p, err := xpkg.Open(ctx, source)
		if err != nil {
			t.Fatalf("Open(%s): %v", source, err)
		}
		if p.SourceKind != xpkg.SourceCrossplaneCache || len(p.Meta) != 1 ||
			filepath.Join(p.Root, p.Meta[0].Pos.File) != wantEntry {
			t.Errorf("Open(%s): kind %v, %d meta, entry %s; want %s", source, p.SourceKind, len(p.Meta), filepath.Join(p.Root, p.Meta[0].Pos.File), wantEntry)
		}
	}

	t.Run("v2.1", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		nested := filepath.Join(dir, "xpkg.crossplane.io", "crossplane-contrib")
		if err := os.MkdirAll(nested, 0o755); err != nil {
			t.Fatal(err)
		}
		gzipFile(t, filepath.Join(nested, "provider-helm.gz"), stream)
		open(t, dir, filepath.Join(nested, "provider-helm.gz"))
		open(t, filepath.Join(dir, src), filepath.Join(nested, "provider-helm.gz"))
		gzipFile(t, filepath.Join(dir, "crossplane-contrib-provider-helm-3f2ac1b0e8d9.gz"), stream)
		_, err := xpkg.Open(ctx, dir)
		if !errors.Is(err, xpkg.ErrUnknownSource) ||
			!strings.Contains(err.Error(), "crossplane-contrib-provider-helm-3f2ac1b0e8d9.gz, "+filepath.Join("xpkg.crossplane.io", "crossplane-contrib", "provider-helm.gz")) {
			t.Errorf("a cache of a revision's entry and a source's: err = %v, want ErrUnknownSource naming both", err)
		}
	})

	t.Run("v2.2", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		gzipFile(t, filepath.Join(dir, keyA), stream)
		open(t, dir, filepath.Join(dir, keyA))
		open(t, filepath.Join(dir, src+"@"+digestA), filepath.Join(dir, keyA))
		open(t, filepath.Join(dir, src+":v0.19.0"), filepath.Join(dir, keyA))
		open(t, filepath.Join(dir, src), filepath.Join(dir, keyA))
		gzipFile(t, filepath.Join(dir, keyB), stream)
		open(t, filepath.Join(dir, src+":v0.20.0@"+digestB), filepath.Join(dir, keyB))
		_, err := xpkg.Open(ctx, filepath.Join(dir, src+":v0.19.0"))
		if !errors.Is(err, xpkg.ErrUnknownSource) || !strings.Contains(err.Error(), "2 digests") || !strings.Contains(err.Error(), keyA+", "+keyB) {
			t.Errorf("two digests of one source, none given: err = %v, want ErrUnknownSource naming both", err)
		}
		if _, err := xpkg.Open(ctx, filepath.Join(dir, "xpkg.crossplane.io/crossplane-contrib/provider-nop@"+digestA)); err == nil {
			t.Error("a digest of a source not in the cache: no error")
		}
	})

	t.Run("not a cache", func(t *testing.T) {
		t.Parallel()
		// A directory holding compressed files that are not YAML streams
		// in a subdirectory is not a cache.
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "dist"), 0o755); err != nil {
			t.Fatal(err)
		}
		gzipFile(t, filepath.Join(dir, "dist", "site.tar.gz"), bytes.Repeat([]byte{0, 1, 2, 3}, 512))
		p, err := xpkg.Open(ctx, dir)
		if err == nil && p.SourceKind == xpkg.SourceCrossplaneCache {
			t.Errorf("a directory with dist/site.tar.gz was read as a Crossplane cache")
		}
	})
}
