package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/internal/signtest"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// TestUpload: an upload signed with the registry's key is accepted with
// its digest; an unsigned one, and one outside every policy, are refused
// with their class; the key file is read once, at start-up.
func TestUpload(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	ctx := context.Background()
	client := func() (*remote.Client, error) { return remote.New(remote.WithAnonymous()) }
	c, _ := client()
	push := func(name string) *oci.Image {
		img := xpkgtest.NewProvider("provider-a").WithAnnotation("n", name).MustImage(t)
		src, err := oci.Open(ctx, img.LayoutDir(t))
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		res, err := oci.Resolve(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		repo, _ := c.Repository(reg.Host + "/" + name)
		if err := repo.PushImage(ctx, src, res.Descriptor, []string{"v1"}); err != nil {
			t.Fatal(err)
		}
		return res
	}
	signed := push("acme/signed")
	push("acme/unsigned")
	push("other/provider")
	k, pub := signtest.NewKey(t)
	repo, _ := c.Repository(reg.Host + "/acme/signed")
	signtest.AttachKeyedBundle(t, repo, signed.Descriptor, k)

	dir := t.TempDir()
	keyFile, icFile := filepath.Join(dir, "cosign.pub"), filepath.Join(dir, "ic.yaml")
	if err := os.WriteFile(keyFile, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(icFile, fmt.Appendf(nil, `apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata: {name: acme}
spec:
  matchImages: [{prefix: %s/acme/}]
  verification:
    provider: Cosign
    cosign:
      authorities:
      - name: release
        key: {secretRef: {name: cosign, key: cosign.pub}, hashAlgorithm: sha256}
`, reg.Host), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := newHandler([]string{icFile}, []string{"cosign/cosign.pub=" + keyFile}, "", client)
	if err != nil {
		t.Fatal(err)
	}
	// The key was read at start-up: a request reads no file.
	if err := os.Remove(keyFile); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		ref   string
		code  int
		class string
	}{
		{reg.Host + "/acme/signed:v1", http.StatusOK, ""},
		{reg.Host + "/acme/unsigned:v1", http.StatusForbidden, "no-signature"},
		{reg.Host + "/other/provider:v1", http.StatusForbidden, "no-policy"},
	} {
		resp, err := http.Post(srv.URL+"/verify?ref="+url.QueryEscape(tc.ref), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code || (tc.class != "" && body["class"] != tc.class) {
			t.Errorf("%s: %d %v, want %d %s", tc.ref, resp.StatusCode, body, tc.code, tc.class)
		}
		if tc.code == http.StatusOK && body["digest"] != signed.Descriptor.Digest.String() {
			t.Errorf("digest %v, want %s", body["digest"], signed.Descriptor.Digest)
		}
	}
}
