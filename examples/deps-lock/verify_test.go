package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/internal/signtest"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// upstreamProxy is the HTTP and HTTPS proxy of the process: Go's
// transport sends it every request but those to loopback addresses, so
// that a request to an upstream registry is recorded, and refused, here.
// It must be set before the process's first request: net/http reads the
// proxy variables once.
func upstreamProxy(t *testing.T) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		t.Logf("request to %s %s through the proxy", r.Method, r.Host)
		http.Error(w, "test: no upstream", http.StatusForbidden)
	}))
	t.Cleanup(proxy.Close)
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		t.Setenv(k, proxy.URL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	// The proxy is in effect: a request upstream reaches it.
	if resp, err := http.Get("https://xpkg.crossplane.io/v2/"); err == nil {
		resp.Body.Close()
	}
	if n.Load() == 0 {
		t.Fatal("the proxy is not in effect: net/http read the proxy variables before this test")
	}
	n.Store(0)
	return &n
}

// TestVerifyLock: with an ImageConfig that rewrites xpkg.crossplane.io/ to
// a loopback docker-registry and states a key verification, --verify
// records the verified digest of the signed dependency in the lock, with
// the declared and the resolved reference, and fails when its signature
// is missing; no request goes to xpkg.crossplane.io.
func TestVerifyLock(t *testing.T) {
	// Not parallel: the registry client's cache and credentials, and the
	// proxy, follow the environment.
	upstream := upstreamProxy(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	reg := registrytest.Start(t, registrytest.Plain)
	ctx := context.Background()
	const declared = "xpkg.crossplane.io/acme/provider-a"
	mirror := reg.Host + "/acme/provider-a"
	c, _ := remote.New(remote.WithAnonymous())
	repo, _ := c.Repository(mirror)
	img := xpkgtest.NewProvider("provider-a").MustImage(t)
	src, err := oci.Open(ctx, img.LayoutDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	resolved, err := oci.Resolve(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.PushImage(ctx, src, resolved.Descriptor, []string{"v1.0.0"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	k, pub := signtest.NewKey(t)
	keyFile, icFile := filepath.Join(dir, "cosign.pub"), filepath.Join(dir, "ic.yaml")
	if err := os.WriteFile(keyFile, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	ic := fmt.Sprintf(`apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata: {name: mirror}
spec:
  matchImages: [{prefix: xpkg.crossplane.io/}]
  rewriteImage: {prefix: %s/}
---
apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata: {name: signed}
spec:
  matchImages: [{prefix: %s/acme/}]
  verification:
    provider: Cosign
    cosign:
      authorities:
      - name: release-key
        key: {secretRef: {name: cosign, key: cosign.pub}, hashAlgorithm: sha256}
`, reg.Host, reg.Host)
	if err := os.WriteFile(icFile, []byte(ic), 0o600); err != nil {
		t.Fatal(err)
	}
	root := xpkgtest.NewConfiguration("root").WithDependency(meta.KindProvider, declared, ">=v1.0.0").Dir(t)
	args := []string{"--registry", "--image-config", icFile, "--verify", "--verify-key", "cosign/cosign.pub=" + keyFile, root}

	var out, errOut bytes.Buffer
	if code := run(ctx, args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "no signature") {
		t.Fatalf("unsigned: exit %d, want 2 and \"no signature\": %s", code, errOut.String())
	}
	signtest.AttachKeyedBundle(t, repo, resolved.Descriptor, k)
	out.Reset()
	errOut.Reset()
	if code := run(ctx, args, &out, &errOut); code != 0 {
		t.Fatalf("signed: exit %d: %s", code, errOut.String())
	}
	var lock deps.Lock
	if err := json.Unmarshal(out.Bytes(), &lock); err != nil {
		t.Fatal(err)
	}
	if len(lock.Packages) != 1 {
		t.Fatalf("lock: %s", out.String())
	}
	p := lock.Packages[0]
	if p.Package != declared || p.Verified != resolved.Descriptor.Digest.String() || p.Verified != p.Digest || p.VerifiedBy != "signed/release-key" || !strings.HasPrefix(p.Resolved, mirror) {
		t.Errorf("locked %+v, want %s verified at %s, resolved from %s", p, declared, resolved.Descriptor.Digest, mirror)
	}
	if n := upstream.Load(); n != 0 {
		t.Errorf("%d requests to a registry other than the mirror", n)
	}
}
