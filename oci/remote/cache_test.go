package remote_test

import (
	"context"
	"errors"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/cache"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// TestCacheHitsCostNoNetwork: a second pull and read of the same image
// through a cache sends no request; offline reads it too; offline with an
// empty cache fails with ErrOffline.
func TestCacheHitsCostNoNetwork(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	pusher, _ := remote.New(remote.WithAnonymous())
	pushBuilt(t, pusher, reg.Host+"/org/cached", "v1", simpleImage(t))
	proxy := newCounter(t, reg.Host)
	ref := proxy.Host() + "/org/cached:v1"
	dir := t.TempDir()
	cc, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := remote.New(remote.WithAnonymous(), remote.WithCache(cc))
	ctx := context.Background()

	pull := func(c *remote.Client) error {
		img, r, err := c.Pull(ctx, ref)
		if err != nil {
			return err
		}
		if got := readPackageYAML(t, r, img); string(got) != packageYAML {
			t.Errorf("package.yaml = %q", got)
		}
		return nil
	}
	if err := pull(c); err != nil {
		t.Fatal(err)
	}
	first := len(proxy.blobGets()) + proxy.manifests()
	if first == 0 {
		t.Fatal("the first pull sent no request")
	}
	if err := pull(c); err != nil {
		t.Fatal(err)
	}
	if n := len(proxy.blobGets()) + proxy.manifests(); n != first {
		t.Errorf("the second pull sent %d requests, want 0", n-first)
	}
	offline, _ := remote.New(remote.WithCache(cc), remote.WithOffline(true))
	if err := pull(offline); err != nil {
		t.Errorf("offline pull from the cache: %v", err)
	}
	empty, _ := cache.Open(t.TempDir())
	offEmpty, _ := remote.New(remote.WithCache(empty), remote.WithOffline(true))
	if _, _, err := offEmpty.Pull(ctx, ref); !errors.Is(err, remote.ErrOffline) || !errors.Is(err, oci.ErrNotFound) {
		t.Errorf("offline with an empty cache: err = %v, want ErrOffline and oci.ErrNotFound", err)
	}
}
