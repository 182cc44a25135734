package deps_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

func imageConfigs(t *testing.T, yaml string) *imageconfig.Set {
	t.Helper()
	s, err := imageconfig.ParseAll(context.Background(), []imageconfig.Input{{Name: "imageconfig.yaml", Reader: strings.NewReader(yaml)}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mirrorConfig(to string) string {
	return fmt.Sprintf(`apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata:
  name: mirror
spec:
  matchImages:
  - prefix: xpkg.crossplane.io/
  rewriteImage:
    prefix: %s
`, to)
}

// hostTransport counts requests per host and refuses every host but the
// one allowed, so that a request to the upstream registry is counted and
// never leaves the machine.
type hostTransport struct {
	next  http.RoundTripper
	allow string
	mu    sync.Mutex
	hosts map[string]int
}

func (h *hostTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.hosts[r.URL.Host]++
	h.mu.Unlock()
	if r.URL.Host != h.allow {
		return nil, errors.New("test: request to a host other than the mirror")
	}
	return h.next.RoundTrip(r)
}

func (h *hostTransport) count(host string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hosts[host]
}

// TestImageConfigMirror: a graph declared against xpkg.crossplane.io,
// resolved with an ImageConfig that rewrites it to a loopback mirror,
// reads only from the mirror and locks both references.
func TestImageConfigMirror(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	tr := &hostTransport{next: reg.HTTPClient().Transport, allow: reg.Host, hosts: map[string]int{}}
	if tr.next == nil {
		tr.next = http.DefaultTransport
	}
	c, err := remote.New(remote.WithHTTPClient(&http.Client{Transport: tr}), remote.WithAnonymous())
	if err != nil {
		t.Fatal(err)
	}
	const up = "xpkg.crossplane.io/acme/"
	mirror := reg.Host + "/mirror/"
	prov := xpkgtest.NewProvider("provider-a").WithCRD("a.example.org", "Widget", "v1")
	push(t, c, mirror+"acme/provider-a", "v1.0.0", prov)
	push(t, c, mirror+"acme/provider-a", "v1.1.0", prov.WithAnnotation("x", "y"))
	dfn := push(t, c, mirror+"acme/function-p", "v0.3.0", xpkgtest.NewFunction("function-p"))
	push(t, c, mirror+"acme/configuration-x", "v0.1.0", xpkgtest.NewConfiguration("x").
		WithDependency(meta.KindProvider, up+"provider-a", "<v1.1.0").
		WithDependency(meta.KindFunction, up+"function-p", dfn))
	root := xpkgtest.NewConfiguration("root").
		WithDependency(meta.KindProvider, up+"provider-a", ">=v1.0.0").
		WithDependency(meta.KindConfiguration, up+"configuration-x", "v0")

	r := deps.NewResolver(deps.RewriteSource(deps.NewRegistrySource(c), imageConfigs(t, mirrorConfig(mirror))))
	g, err := r.Resolve(context.Background(), rootSummary(t, root))
	if err != nil {
		t.Fatal(err)
	}
	wantV := up + "configuration-x:v0.1.0 " + up + "function-p@" + dfn + " " + up + "provider-a:v1.0.0"
	if got := versions(g); got != wantV {
		t.Errorf("got %s\nwant %s", got, wantV)
	}
	if n := tr.count("xpkg.crossplane.io"); n != 0 {
		t.Errorf("%d requests to the upstream registry, want 0", n)
	}
	if tr.count(reg.Host) == 0 {
		t.Error("no request to the mirror")
	}
	lock := g.Lock()
	got := map[string]deps.LockedPackage{}
	for _, p := range lock.Packages {
		got[p.Package] = p
	}
	for _, w := range []struct{ pkg, version, resolved string }{
		{up + "configuration-x", "v0.1.0", mirror + "acme/configuration-x:v0.1.0"},
		{up + "function-p", "", mirror + "acme/function-p@" + dfn},
		{up + "provider-a", "v1.0.0", mirror + "acme/provider-a:v1.0.0"},
	} {
		p, ok := got[w.pkg]
		if !ok || p.Version != w.version && !(w.version == "" && p.Version == dfn) || p.Resolved != w.resolved || p.ImageConfig != "mirror" || p.Problem != "" {
			t.Errorf("lock entry %s = %+v; want version %s, resolved %s by mirror", w.pkg, p, w.version, w.resolved)
		}
	}
	// The lock's JSON carries both references.
	var back deps.Lock
	if err := json.Unmarshal(lock.JSON(), &back); err != nil || back.Packages[2].Resolved != mirror+"acme/provider-a:v1.0.0" {
		t.Errorf("lock JSON round trip: %v %+v", err, back.Packages)
	}
}

// TestImageConfigMemory: the rewrite through any Source, and what a
// rewrite that loses the tag gives.
func TestImageConfigMemory(t *testing.T) {
	t.Parallel()
	src := deps.NewMemorySource()
	prov := xpkgtest.NewProvider("provider-a")
	if _, err := src.Add("mirror.example/acme/provider-a", "v1.0.0", prov.YAML()); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Add("xpkg.crossplane.io/acme/provider-a", "v1.0.0", prov.YAML()); err != nil {
		t.Fatal(err)
	}
	root := xpkgtest.NewConfiguration("root").WithDependency(meta.KindProvider, "xpkg.crossplane.io/acme/provider-a", "v1")
	set := imageConfigs(t, mirrorConfig("mirror.example/"))
	g, err := deps.NewResolver(deps.RewriteSource(src, set)).Resolve(context.Background(), rootSummary(t, root))
	if err != nil {
		t.Fatal(err)
	}
	lp := g.Lock().Packages[0]
	if lp.Package != "xpkg.crossplane.io/acme/provider-a" || lp.Version != "v1.0.0" || lp.Resolved != "mirror.example/acme/provider-a:v1.0.0" || lp.ImageConfig != "mirror" {
		t.Errorf("lock entry = %+v", lp)
	}
	if n := deps.Fetches(src, "xpkg.crossplane.io/acme/provider-a", "v1.0.0"); n != 0 {
		t.Errorf("upstream fetched %d times", n)
	}
	if n := deps.Fetches(src, "mirror.example/acme/provider-a", "v1.0.0"); n != 1 {
		t.Errorf("mirror fetched %d times, want 1", n)
	}
	// Without ImageConfigs: the declared reference, nothing recorded.
	g, err = deps.NewResolver(src).Resolve(context.Background(), rootSummary(t, root))
	if err != nil {
		t.Fatal(err)
	}
	if lp := g.Lock().Packages[0]; lp.Resolved != "" || lp.ImageConfig != "" || strings.Contains(string(g.Lock().JSON()), "resolved") {
		t.Errorf("lock entry without ImageConfig = %+v", lp)
	}
	// A rewrite that swallows the tag cannot be pulled.
	bad := imageConfigs(t, `apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata:
  name: broken
spec:
  matchImages:
  - prefix: "xpkg.crossplane.io/acme/provider-a:"
  rewriteImage:
    prefix: mirror.example/acme/provider-a-
`)
	_, err = deps.RewriteSource(src, bad).Fetch(context.Background(), "xpkg.crossplane.io/acme/provider-a", "v1.0.0")
	if !errors.Is(err, deps.ErrRewrite) || !strings.Contains(err.Error(), `"broken"`) {
		t.Errorf("error = %v, want ErrRewrite naming the ImageConfig", err)
	}
}
