package xpkg_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/oci/cache"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// diagKeys returns what a lint finding says, without the source's name.
func diagKeys(t *testing.T, p *xpkg.Package) []string {
	t.Helper()
	res, err := rules.LintPackage(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range res.Diagnostics {
		out = append(out, d.RuleID+" "+d.Severity.String()+" "+d.Pos.String()+" "+d.Message)
	}
	return out
}

// TestOpenReference: Build, push, Open by reference, lint: the same
// diagnostics as the local .xpkg; pushing again uploads no blob.
func TestOpenReference(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	for _, name := range []string{"provider-example", "lint-error"} {
		t.Run(name, func(t *testing.T) { testOpenReference(t, reg, name) })
	}
}

func testOpenReference(t *testing.T, reg *registrytest.Registry, name string) {
	ctx := context.Background()
	res, err := xpkg.Build(ctx, os.DirFS("testdata/build/"+name))
	if err != nil {
		t.Fatal(err)
	}
	cc, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := remote.New(remote.WithAnonymous(), remote.WithCache(cc))
	if err != nil {
		t.Fatal(err)
	}
	repo := reg.Host + "/acme/" + name
	desc, err := res.Push(ctx, pushTo(t, c, repo), "v1.0.0", "latest")
	if err != nil {
		t.Fatal(err)
	}
	if desc.Digest != res.Digest() {
		t.Errorf("pushed %s, built %s", desc.Digest, res.Digest())
	}
	if _, err := res.Push(ctx, pushTo(t, c, repo), "v1.0.0"); err != nil {
		t.Fatalf("second push: %v", err)
	}
	tags, err := c.Tags(ctx, repo)
	if err != nil || !slices.Equal(tags, []string{"latest", "v1.0.0"}) {
		t.Errorf("tags = %q, %v", tags, err)
	}

	local := filepath.Join(t.TempDir(), "provider-example.xpkg")
	var buf bytes.Buffer
	if err := res.WriteXpkg(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(local, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lp, err := xpkg.Open(ctx, local)
	if err != nil {
		t.Fatal(err)
	}
	want := diagKeys(t, lp)

	for _, ref := range []string{repo + ":v1.0.0", repo + "@" + res.Digest().String()} {
		p, err := xpkg.Open(ctx, ref, xpkg.WithRemote(c))
		if err != nil {
			t.Fatalf("Open(%s): %v", ref, err)
		}
		if p.SourceKind != xpkg.SourceRegistry || p.Source != ref {
			t.Errorf("Kind %v Source %q", p.SourceKind, p.Source)
		}
		if p.Image == nil || p.Image.ManifestDigest != res.Digest() || p.Image.BaseLayer == nil {
			t.Fatalf("image %+v", p.Image)
		}
		if (p.Examples == nil) != (lp.Examples == nil) {
			t.Errorf("examples read: %v, locally %v", p.Examples != nil, lp.Examples != nil)
		}
		if got := diagKeys(t, p); !slices.Equal(got, want) {
			t.Errorf("Open(%s) lint:\n%q\nlocal .xpkg:\n%q", ref, got, want)
		}
	}
	if name == "lint-error" && !slices.ContainsFunc(want, func(s string) bool { return len(s) > 5 && s[:5] == "XP401" }) {
		t.Errorf("lint-error lints without XP401: %q", want)
	}
}

// TestOpenLocalPathWins: a file whose path parses as a reference is read
// as a file.
func TestOpenLocalPathWins(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	name := filepath.Join("127.0.0.1:1", "org", "pkg:v1")
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := xpkg.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	if p.SourceKind != xpkg.SourcePackageYAML {
		t.Errorf("Kind = %v, want package.yaml", p.SourceKind)
	}
}

// TestOpenMissingPathNotPulled: a missing path that parses as a reference
// without tag or digest is not pulled: it fails as a missing file.
func TestOpenMissingPathNotPulled(t *testing.T) {
	t.Parallel()
	c, err := remote.New(remote.WithAnonymous(), remote.WithOffline(true))
	if err != nil {
		t.Fatal(err)
	}
	for _, source := range []string{"out.d/package.yaml", "build.example/provider"} {
		_, err := xpkg.Open(context.Background(), source, xpkg.WithRemote(c))
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q): err = %v, want fs.ErrNotExist", source, err)
		}
	}
	// With a tag it is a reference (offline here: no request is sent).
	_, err = xpkg.Open(context.Background(), "build.example/provider:v1", xpkg.WithRemote(c))
	if !errors.Is(err, remote.ErrOffline) {
		t.Errorf("a reference offline: err = %v, want remote.ErrOffline", err)
	}
}

// pushTo returns the repository named name of c, to push a built image to.
func pushTo(t testing.TB, c *remote.Client, name string) *remote.Repository {
	t.Helper()
	repo, err := c.Repository(name)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// The registry client of package oci/remote is what WithRemote and Push take.
var (
	_ xpkg.Puller = (*remote.Client)(nil)
	_ xpkg.Pusher = (*remote.Repository)(nil)
)
