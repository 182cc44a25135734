package lintcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// TestLintReference lints a package by reference, then again offline from
// the cache, and fails offline with an empty cache.
func TestLintReference(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	ctx := context.Background()
	res, err := xpkg.Build(ctx, os.DirFS("../xpkg/testdata/build/lint-error"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := remote.New(remote.WithAnonymous())
	ref := reg.Host + "/acme/lint-error:v1"
	if _, err := res.Push(ctx, pushTo(t, c, reg.Host+"/acme/lint-error"), "v1"); err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"auths":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}

	online := runCLI(t, nil, "--cache-dir", cacheDir, "--registry-config", cfg, "-o", "json", ref)
	if online.code != ExitFindings || !strings.Contains(online.stdout, "XP401") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", online.code, online.stdout, online.stderr)
	}
	offline := runCLI(t, nil, "--cache-dir", cacheDir, "--offline", "-o", "json", ref)
	if offline.code != online.code || offline.stdout != online.stdout {
		t.Errorf("offline from the cache: exit %d\n%s\nwant exit %d\n%s", offline.code, offline.stdout, online.code, online.stdout)
	}
	empty := runCLI(t, nil, "--cache-dir", t.TempDir(), "--offline", ref)
	if empty.code != ExitError || !strings.Contains(empty.stderr, "offline") {
		t.Errorf("offline with an empty cache: exit %d, stderr %q", empty.code, empty.stderr)
	}
	missing := runCLI(t, nil, "--registry-config", filepath.Join(t.TempDir(), "nope.json"), ref)
	if missing.code != ExitError || !strings.Contains(missing.stderr, "--registry-config") {
		t.Errorf("missing --registry-config: exit %d, stderr %q", missing.code, missing.stderr)
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
