package remote_test

import (
	"context"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// baseOnlyFixture pushes an image of a small base layer and a large
// random non-base layer of size bytes, and returns a proxy that counts the
// bytes served and the pull's reference.
func baseOnlyFixture(t testing.TB, size int) (proxy *counter, ref string, imageSize int64) {
	reg := registrytest.Start(t, registrytest.Plain)
	pusher, _ := remote.New(remote.WithAnonymous())
	spec := ociwrite.Image{
		Layers: []ociwrite.Layer{
			fileLayer(t, "package.yaml", packageYAML, map[string]string{"io.crossplane.xpkg": "base"}),
			noise(t, "bin/provider", size),
		},
		LabelAnnotations: []string{"io.crossplane.xpkg"},
	}
	img := pushBuilt(t, pusher, reg.Host+"/org/big", "v1", spec)
	imageSize = img.Descriptor.Size + img.Manifest.Config.Size
	for _, l := range img.Manifest.Layers {
		imageSize += l.Size
	}
	proxy = newCounter(t, reg.Host)
	return proxy, proxy.Host() + "/org/big:v1", imageSize
}

func pullPackageYAML(t testing.TB, c *remote.Client, ref string) {
	img, r, err := c.Pull(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if got := readPackageYAML(t, r, img); string(got) != packageYAML {
		t.Fatalf("package.yaml = %q", got)
	}
}

// TestBaseLayerBytes: reading package.yaml from an image with a 16 MB
// non-base layer fetches under 1% of the image's bytes.
func TestBaseLayerBytes(t *testing.T) {
	t.Parallel()
	proxy, ref, size := baseOnlyFixture(t, 16<<20)
	pullPackageYAML(t, anonClient(t), ref)
	proxy.mu.Lock()
	got := proxy.bytes
	proxy.mu.Unlock()
	if got*100 >= size {
		t.Errorf("fetched %d bytes of a %d-byte image (%.2f%%), want under 1%%", got, size, float64(got)*100/float64(size))
	}
	t.Logf("fetched %d bytes of a %d-byte image (%.4f%%)", got, size, float64(got)*100/float64(size))
}

// BenchmarkBaseLayerOnly pulls package.yaml from an image with a 100 MB
// non-base layer and reports the share of the image fetched.
func BenchmarkBaseLayerOnly(b *testing.B) {
	proxy, ref, size := baseOnlyFixture(b, 100<<20)
	c, _ := remote.New(remote.WithAnonymous())
	b.ResetTimer()
	for b.Loop() {
		pullPackageYAML(b, c, ref)
	}
	b.StopTimer()
	proxy.mu.Lock()
	per := float64(proxy.bytes) / float64(b.N)
	proxy.mu.Unlock()
	b.ReportMetric(per, "bytes-fetched/op")
	b.ReportMetric(per*100/float64(size), "%-of-image/op")
}
