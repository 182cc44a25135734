package remote_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// openCorpus opens a corpus image (NAME.oci or NAME.xpkg) and resolves it.
func openCorpus(t *testing.T, name string) (*oci.Source, *oci.Image) {
	t.Helper()
	ctx := context.Background()
	src, err := oci.Open(ctx, testcorpus.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	img, err := oci.Resolve(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	return src, img
}

// pushCorpus pushes a corpus image to repo under tag and returns it.
func pushCorpus(t *testing.T, c *remote.Client, repo, tag, name string) *oci.Image {
	t.Helper()
	src, img := openCorpus(t, name)
	r, err := c.Repository(repo)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.PushImage(context.Background(), src, img.Descriptor, []string{tag}); err != nil {
		t.Fatalf("push %s: %v", name, err)
	}
	return img
}

// readPackageYAML reads package.yaml from the base layer of img through f,
// or from the flattened filesystem when no layer is annotated base.
func readPackageYAML(t testing.TB, f oci.Fetcher, img *oci.Image) []byte {
	t.Helper()
	var base *ocispec.Descriptor
	for i, l := range img.Manifest.Layers {
		if l.Annotations["io.crossplane.xpkg"] == "base" {
			base = &img.Manifest.Layers[i]
		}
	}
	var file *oci.File
	var err error
	if base != nil {
		file, err = oci.ReadLayerFile(context.Background(), f, *base, "package.yaml")
	} else {
		file, err = oci.ReadFile(context.Background(), f, img.Manifest.Layers, "package.yaml")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	b, err := io.ReadAll(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// counter is a reverse proxy to a registry that counts requests by kind.
type counter struct {
	mu       sync.Mutex
	blobs    []string // digests of blob GETs
	manifest int
	uploads  int // POSTs starting a blob upload
	bytes    int64
	srv      *httptest.Server
}

func (c *counter) Host() string { return strings.TrimPrefix(c.srv.URL, "http://") }

func (c *counter) uploadCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.uploads
}

func (c *counter) manifests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.manifest
}

func (c *counter) blobGets() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.blobs...)
}

// newCounter proxies plain-HTTP requests to host.
func newCounter(t testing.TB, host string) *counter {
	t.Helper()
	target, _ := url.Parse("http://" + host)
	rp := httputil.NewSingleHostReverseProxy(target)
	c := &counter{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		switch {
		case r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/"):
			c.blobs = append(c.blobs, r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:])
		case strings.Contains(r.URL.Path, "/manifests/"):
			c.manifest++
		case r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/blobs/uploads/"):
			c.uploads++
		}
		c.mu.Unlock()
		rp.ServeHTTP(&countingWriter{ResponseWriter: w, c: c}, r)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

type countingWriter struct {
	http.ResponseWriter
	c *counter
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.c.mu.Lock()
	w.c.bytes += int64(len(p))
	w.c.mu.Unlock()
	return w.ResponseWriter.Write(p)
}
