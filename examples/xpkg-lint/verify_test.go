package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/internal/signtest"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// TestVerifyCLI: xpkg-lint --verify lints a package signed with a key (a
// cosign v3 bundle referrer in Debian's docker-registry), and refuses
// (exit 2) one whose tag moved to an unsigned image, and one no ImageConfig
// states a verification for.
func TestVerifyCLI(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	bin := buildCLI(t)
	ctx := context.Background()
	name := reg.Host + "/crossplane-contrib/provider-signed"
	pushImage(t, name, "v1", xpkgtest.NewProvider("provider-signed").MustImage(t))
	c, _ := remote.New(remote.WithAnonymous())
	repo, _ := c.Repository(name)
	desc, err := repo.Resolve(ctx, "v1")
	if err != nil {
		t.Fatal(err)
	}
	k, pub := signtest.NewKey(t)
	signtest.AttachKeyedBundle(t, repo, desc, k)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "cosign.pub")
	icFile := filepath.Join(dir, "imageconfig.yaml")
	writeFile(t, keyFile, string(pub))
	writeFile(t, icFile, fmt.Sprintf(`apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata:
  name: signed
spec:
  matchImages:
  - prefix: %s/crossplane-contrib/provider-signed
  verification:
    provider: Cosign
    cosign:
      authorities:
      - name: release-key
        key:
          secretRef: {name: cosign, key: cosign.pub}
          hashAlgorithm: sha256
`, reg.Host))
	run := func(ref string) (int, string) {
		cmd := exec.CommandContext(t.Context(), bin, "--image-config", icFile, "--verify", "--verify-key", "cosign/cosign.pub="+keyFile,
			"--cache-dir", t.TempDir(), "--crossplane-version", "v2.0.0", ref)
		cmd.Env = append(os.Environ(), "DOCKER_CONFIG="+t.TempDir())
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String()
	}
	if code, out := run(name + ":v1"); code == 2 || strings.Contains(out, "signature verification failed") {
		t.Errorf("signed package: exit %d\n%s", code, out)
	}
	pushImage(t, name, "v1", xpkgtest.NewProvider("provider-unsigned").MustImage(t))
	if code, out := run(name + ":v1"); code != 2 || !strings.Contains(out, "no signature") {
		t.Errorf("re-tagged package: exit %d, want 2 and \"no signature\"\n%s", code, out)
	}
	other := reg.Host + "/other/provider:v1"
	pushImage(t, other, "v1", xpkgtest.NewProvider("provider-other").MustImage(t))
	if code, out := run(other); code != 2 || !strings.Contains(out, "no ImageConfig") {
		t.Errorf("no policy: exit %d, want 2\n%s", code, out)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
