package remote_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

func TestPullPlain(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	c, err := remote.New(remote.WithAnonymous())
	if err != nil {
		t.Fatal(err)
	}
	want := pushCorpus(t, c, reg.Host+"/crossplane-contrib/provider-kubernetes", "v1", "provider-kubernetes.oci")
	img, repo, err := c.Pull(context.Background(), reg.Host+"/crossplane-contrib/provider-kubernetes:v1")
	if err != nil {
		t.Fatal(err)
	}
	if img.Descriptor.Digest != want.Descriptor.Digest || img.Manifest.Config.Digest != want.Manifest.Config.Digest {
		t.Errorf("pulled %s (config %s), pushed %s (config %s)", img.Descriptor.Digest, img.Manifest.Config.Digest, want.Descriptor.Digest, want.Manifest.Config.Digest)
	}
	got := readPackageYAML(t, repo, img)
	local, err := os.ReadFile(filepath.Join(testcorpus.Path(t, "provider-kubernetes"), "package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || len(local) == 0 {
		t.Fatalf("empty package.yaml: got %d bytes, local %d", len(got), len(local))
	}
	src, wantImg := openCorpus(t, "provider-kubernetes.oci")
	if w := readPackageYAML(t, src, wantImg); !bytes.Equal(got, w) {
		t.Errorf("package.yaml from the registry (%d bytes) differs from the local image's (%d bytes)", len(got), len(w))
	}
	tags, err := c.Tags(context.Background(), reg.Host+"/crossplane-contrib/provider-kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tags, []string{"v1"}) {
		t.Errorf("tags = %q, want [v1]", tags)
	}
}

// TestInvalidReference: what is no reference, or names no registry host, or
// (for Pull) no tag or digest, fails before any request with the one class
// of reference errors, oci.ErrInvalidReference.
func TestInvalidReference(t *testing.T) {
	t.Parallel()
	c, err := remote.New(remote.WithAnonymous(), remote.WithOffline(true))
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"", "provider-nop:v0.4.0", "xpkg.example.org/UPPER:v1", "xpkg.example.org/org/pkg:bad tag", "xpkg.example.org/org/pkg"} {
		if _, _, err := c.Pull(context.Background(), ref); !errors.Is(err, oci.ErrInvalidReference) {
			t.Errorf("Pull(%q): err = %v, want oci.ErrInvalidReference", ref, err)
		}
	}
	for _, name := range []string{"", "provider-nop", "xpkg.example.org/UPPER"} {
		if _, err := c.Repository(name); !errors.Is(err, oci.ErrInvalidReference) {
			t.Errorf("Repository(%q): err = %v, want oci.ErrInvalidReference", name, err)
		}
	}
	r, err := c.Repository("127.0.0.1:5000/org/pkg:v1")
	if err != nil || r.Name() != "127.0.0.1:5000/org/pkg" {
		t.Errorf("Repository: %v, %v", r, err)
	}
}
