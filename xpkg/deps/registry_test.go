package deps_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/xpkgkit/xpkgkit/meta"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// countingTransport counts the blob requests per path.
type countingTransport struct {
	next  http.RoundTripper
	mu    sync.Mutex
	blobs map[string]int
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.Contains(r.URL.Path, "/blobs/") && r.Method == http.MethodGet {
		c.mu.Lock()
		c.blobs[r.URL.Path]++
		c.mu.Unlock()
	}
	return c.next.RoundTrip(r)
}

// push pushes p to the registry as name:tag and returns its digest.
func push(t *testing.T, c *remote.Client, name, tag string, p *xpkgtest.Package) string {
	t.Helper()
	ctx := context.Background()
	img := p.MustImage(t)
	src, err := oci.Open(ctx, img.LayoutDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	resolved, err := oci.Resolve(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := c.Repository(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.PushImage(ctx, src, resolved.Descriptor, []string{tag}); err != nil {
		t.Fatalf("push %s:%s: %v", name, tag, err)
	}
	return img.Digest().String()
}

func TestRegistrySource(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	counter := &countingTransport{next: reg.HTTPClient().Transport, blobs: map[string]int{}}
	if counter.next == nil {
		counter.next = http.DefaultTransport
	}
	c, err := remote.New(remote.WithHTTPClient(&http.Client{Transport: counter}), remote.WithAnonymous())
	if err != nil {
		t.Fatal(err)
	}
	host := reg.Host + "/acme/"
	prov := xpkgtest.NewProvider("provider-a").WithCRD("a.example.org", "Widget", "v1").WithExample([]byte("apiVersion: a.example.org/v1\nkind: Widget\nmetadata:\n  name: w\n"))
	push(t, c, host+"provider-a", "v1.0.0", prov)
	push(t, c, host+"provider-a", "v1.1.0", prov.WithAnnotation("x", "y"))
	push(t, c, host+"provider-a", "v2.0.0-rc.1", prov)
	dfn := push(t, c, host+"function-p", "v0.3.0", xpkgtest.NewFunction("function-p"))
	push(t, c, host+"configuration-x", "v0.1.0", xpkgtest.NewConfiguration("x").
		WithDependency(meta.KindProvider, host+"provider-a", "<v1.1.0").
		WithDependency(meta.KindFunction, host+"function-p", dfn))

	root := xpkgtest.NewConfiguration("root").
		WithDependency(meta.KindProvider, host+"provider-a", ">=v1.0.0").
		WithDependency(meta.KindConfiguration, host+"configuration-x", "v0").
		WithDependency(meta.KindProvider, host+"provider-missing", "v1")
	for k := range counter.blobs {
		delete(counter.blobs, k)
	}
	g, ds := resolve(t, deps.NewRegistrySource(c), root)
	wantV := host + "configuration-x:v0.1.0 " + host + "function-p@" + dfn + " " + host + "provider-a:v1.0.0 " + host + "provider-missing"
	if got := versions(g); got != wantV {
		t.Errorf("got %s\nwant %s", got, wantV)
	}
	checkDiags(t, ds, []want{{"XP601", "root.yaml:23", "no such package"}})
	// Each image read: its config and its base layer, once; never the
	// examples layer, never an image twice. provider-a is read at two
	// versions: v1.1.0, chosen when the root's constraint alone was known,
	// then v1.0.0 once configuration-x's "<v1.1.0" was.
	if n := len(counter.blobs); n != 8 {
		t.Errorf("%d blobs fetched, want 8 (config and base layer of 4 images): %v", n, counter.blobs)
	}
	for p, n := range counter.blobs {
		if n != 1 {
			t.Errorf("%s fetched %d times", p, n)
		}
	}
}
