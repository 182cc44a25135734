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

// TestImageConfigFlag: --image-config rewrites a reference on a host that
// cannot resolve (.invalid) to a loopback mirror; a bad file is exit 2
// with its position.
func TestImageConfigFlag(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	ctx := context.Background()
	res, err := xpkg.Build(ctx, os.DirFS("../xpkg/testdata/build/lint-error"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := remote.New(remote.WithAnonymous())
	if _, err := res.Push(ctx, pushTo(t, c, reg.Host+"/mirror/acme/lint-error"), "v1"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "mirror.yaml")
	if err := os.WriteFile(good, []byte("apiVersion: pkg.crossplane.io/v1beta1\nkind: ImageConfig\nmetadata:\n  name: mirror\nspec:\n  matchImages:\n  - prefix: upstream.invalid/\n  rewriteImage:\n    prefix: "+reg.Host+"/mirror/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("# comment\napiVersion: pkg.crossplane.io/v1beta1\nkind: ImageConfig\nmetadata:\n  name: bad\nspec:\n  matchImages: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"auths":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	const ref = "upstream.invalid/acme/lint-error:v1"
	r := runCLI(t, nil, "--cache-dir", t.TempDir(), "--registry-config", cfg, "--image-config", good, "-o", "json", ref)
	if r.code != ExitFindings || !strings.Contains(r.stdout, "XP401") {
		t.Errorf("with --image-config: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, "--image-config", bad, ref)
	if r.code != ExitError || !strings.Contains(r.stderr, "bad.yaml:2: spec.matchImages") {
		t.Errorf("bad --image-config: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, nil, "--image-config", filepath.Join(dir, "nope.yaml"), ref)
	if r.code != ExitError || !strings.Contains(r.stderr, "--image-config") {
		t.Errorf("missing --image-config: exit %d, stderr %q", r.code, r.stderr)
	}
}
