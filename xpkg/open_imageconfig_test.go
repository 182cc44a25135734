package xpkg_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

// onlyHost refuses (and counts) requests to any host but one.
type onlyHost struct {
	next    http.RoundTripper
	allow   string
	mu      sync.Mutex
	refused int
}

func (o *onlyHost) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != o.allow {
		o.mu.Lock()
		o.refused++
		o.mu.Unlock()
		return nil, errors.New("test: not the mirror")
	}
	return o.next.RoundTrip(r)
}

// TestOpenImageConfig: Open by an upstream reference pulls from the
// mirror an ImageConfig rewrites it to, and says so.
func TestOpenImageConfig(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.Start(t, registrytest.Plain)
	tr := &onlyHost{next: reg.HTTPClient().Transport, allow: reg.Host}
	if tr.next == nil {
		tr.next = http.DefaultTransport
	}
	c, err := remote.New(remote.WithAnonymous(), remote.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := xpkg.Build(ctx, os.DirFS("testdata/build/provider-example"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.Push(ctx, pushTo(t, c, reg.Host+"/mirror/acme/provider-example"), "v1.0.0"); err != nil {
		t.Fatal(err)
	}
	set, err := imageconfig.ParseAll(ctx, []imageconfig.Input{{Reader: strings.NewReader(`apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata:
  name: mirror
spec:
  matchImages:
  - prefix: xpkg.crossplane.io/
  rewriteImage:
    prefix: ` + reg.Host + `/mirror/
`)}})
	if err != nil {
		t.Fatal(err)
	}
	const ref = "xpkg.crossplane.io/acme/provider-example:v1.0.0"
	p, err := xpkg.Open(ctx, ref, xpkg.WithRemote(c), xpkg.WithImageConfig(set))
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != ref || p.Resolved != reg.Host+"/mirror/acme/provider-example:v1.0.0" || p.ImageConfig != "mirror" || p.Image == nil || p.Image.ManifestDigest != res.Digest() {
		t.Errorf("Open = source %q resolved %q by %q", p.Source, p.Resolved, p.ImageConfig)
	}
	if tr.refused != 0 {
		t.Errorf("%d requests to the upstream registry", tr.refused)
	}
	// Without the ImageConfig the upstream is asked (and refused here).
	if _, err := xpkg.Open(ctx, ref, xpkg.WithRemote(c)); err == nil || tr.refused == 0 {
		t.Errorf("Open without ImageConfig: %v, %d refused", err, tr.refused)
	}
}
