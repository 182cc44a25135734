package remote_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/oci"
)

// TestPushIdempotent: pushing an image the registry holds uploads no blob;
// a second tag costs no upload either.
func TestPushIdempotent(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	proxy := newCounter(t, reg.Host)
	c := anonClient(t)
	repo := proxy.Host() + "/org/idem"
	pushBuilt(t, c, repo, "v1", simpleImage(t))
	first := proxy.uploadCount()
	if first != 2 { // config and layer
		t.Errorf("first push started %d uploads, want 2", first)
	}
	pushBuilt(t, c, repo, "v1", simpleImage(t))
	pushBuilt(t, c, repo, "v2", simpleImage(t))
	if n := proxy.uploadCount() - first; n != 0 {
		t.Errorf("pushing again started %d uploads, want 0", n)
	}
	tags, err := c.Tags(context.Background(), repo)
	if err != nil || !slices.Equal(tags, []string{"v1", "v2"}) {
		t.Errorf("tags = %q, %v", tags, err)
	}
	r, _ := c.Repository(repo)
	if err := r.PushImage(context.Background(), oci.NewMemoryStore(), ocispec.Descriptor{}, nil); !errors.Is(err, oci.ErrInvalidReference) {
		t.Errorf("push without a tag: err = %v", err)
	}
}

// TestRetryConnectionReset: a registry that resets the first connection is
// retried.
func TestRetryConnectionReset(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	var calls atomic.Int32
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.Path, "/manifests/") || calls.Add(1) != 1 {
			return false
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return true
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // close with RST
		}
		conn.Close()
		return true
	}
	img, _, err := anonClient(t).Pull(context.Background(), f.host()+"/test/pkg:v1")
	if err != nil {
		t.Fatalf("pull after a reset: %v", err)
	}
	if img.Descriptor.Digest != f.built.ManifestDescriptor().Digest || calls.Load() < 2 {
		t.Errorf("digest %s after %d manifest requests", img.Descriptor.Digest, calls.Load())
	}
}
