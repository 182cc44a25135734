package xpkg

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// TestCrossplaneFriendlyID: the cache key of Crossplane v2.2 and later,
// on the cases of crossplane-runtime's own TestFriendlyID and
// TestToDNSLabel (pkg/xpkg/name_test.go at v2.4.0) and on real sources.
func TestCrossplaneFriendlyID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ source, digest, want string }{
		{"provider-aws", "1234567", "provider-aws-1234567"},
		{"provider-aws-plusabunchofothernonsensethatisgoingtogetslicedoff", "1234567", "provider-aws-plusabunchofothernonsensethatisgoingt-1234567"},
		{"provider-aws", "1234567891234567", "provider-aws-123456789123"},
		{"-hi/my.name/is-", "", "hi-my-name-is"},
		{"xpkg.crossplane.io/crossplane-contrib/provider-nop", "sha256:3f2ac1b0e8d9aa", "xpkg-crossplane-io-crossplane-contrib-provider-nop-sha256-3f2ac"},
		{"xpkg.upbound.io/upbound/provider-family-aws", "sha256:abcdef", "xpkg-upbound-io-upbound-provider-family-aws-sha256-abcde"},
		// Upper-case letters are dropped, not lowered, as Crossplane does.
		{"registry.example.com/Team/Pkg", "sha256:00000", "registry-example-com-eam-kg-sha256-00000"},
		// The source's first 50 bytes only: a trailing '/' there is kept as '-'.
		{"registry.example.com/a-rather-long-organisation/x/provider-y", "sha256:12345", "registry-example-com-a-rather-long-organisation-x--sha256-12345"},
	} {
		if got := crossplaneFriendlyID(c.source, c.digest); got != c.want {
			t.Errorf("crossplaneFriendlyID(%q, %q) = %q, want %q", c.source, c.digest, got, c.want)
		}
	}
}

// TestSplitCacheReference: a reference's source is the reference without
// its tag or digest; a registry port is not a tag.
func TestSplitCacheReference(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ ref, source, digest string }{
		{"xpkg.crossplane.io/org/p:v1.2.3", "xpkg.crossplane.io/org/p", ""},
		{"xpkg.crossplane.io/org/p@sha256:abc", "xpkg.crossplane.io/org/p", "sha256:abc"},
		{"xpkg.crossplane.io/org/p:v1@sha256:abc", "xpkg.crossplane.io/org/p", "sha256:abc"},
		{"localhost:5000/org/p", "localhost:5000/org/p", ""},
		{"p", "p", ""},
	} {
		if s, d := splitCacheReference(c.ref); s != c.source || d != c.digest {
			t.Errorf("splitCacheReference(%q) = %q, %q; want %q, %q", c.ref, s, d, c.source, c.digest)
		}
	}
}

// TestCrossplaneCacheEntriesBound: the walk over a cache directory stops
// at maxCacheDepth, skips hidden directories and stops when its context
// is done.
func TestCrossplaneCacheEntriesBound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stream := []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: p\n")
	write := func(rel string) {
		t.Helper()
		name := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(stream)
		zw.Close()
		if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	deep := strings.Repeat("d/", maxCacheDepth+1)
	write("top.gz")
	write("xpkg.example.org/org/pkg.gz")
	write(deep + "too-deep.gz")
	write(".hidden/pkg.gz")
	got := crossplaneCacheEntries(context.Background(), dir)
	want := []string{"top.gz", filepath.Join("xpkg.example.org", "org", "pkg.gz")}
	if !slices.Equal(got, want) {
		t.Errorf("entries = %v, want %v", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := crossplaneCacheEntries(ctx, dir); len(got) != 0 {
		t.Errorf("a cancelled walk listed %v", got)
	}
}
