package remote_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// fake is a minimal registry over httptest serving one image as
// "test/pkg:v1", with hooks for faults.
type fake struct {
	built     *ociwrite.Built
	blobs     map[digest.Digest][]byte
	srv       *httptest.Server
	mu        sync.Mutex
	manifests int // manifest requests (HEAD and GET)
	// hook, when set, may answer a request itself (returning true).
	hook func(w http.ResponseWriter, r *http.Request) bool
}

func newFake(t *testing.T, layers ...ociwrite.Layer) *fake {
	t.Helper()
	if len(layers) == 0 {
		layers = []ociwrite.Layer{fileLayer(t, "package.yaml", packageYAML, map[string]string{"io.crossplane.xpkg": "base"})}
	}
	b, err := ociwrite.Build(context.Background(), ociwrite.Image{Layers: layers, LabelAnnotations: []string{"io.crossplane.xpkg"}})
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{built: b, blobs: map[digest.Digest][]byte{b.ConfigDescriptor().Digest: b.ConfigBytes()}}
	for i, l := range b.Layers() {
		f.blobs[l.Digest] = b.LayerBlob(i)
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) host() string { return strings.TrimPrefix(f.srv.URL, "http://") }

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	if f.hook != nil && f.hook(w, r) {
		return
	}
	switch p := r.URL.Path; {
	case p == "/v2/":
		w.WriteHeader(http.StatusOK)
	case strings.HasPrefix(p, "/v2/test/pkg/manifests/"):
		f.mu.Lock()
		f.manifests++
		f.mu.Unlock()
		ref := p[strings.LastIndex(p, "/")+1:]
		md := f.built.ManifestDescriptor()
		if ref != "v1" && ref != md.Digest.String() {
			http.Error(w, `{"errors":[{"code":"MANIFEST_UNKNOWN"}]}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", md.MediaType)
		w.Header().Set("Docker-Content-Digest", md.Digest.String())
		w.Header().Set("Content-Length", fmt.Sprint(md.Size))
		if r.Method == http.MethodGet {
			w.Write(f.built.ManifestBytes())
		}
	case strings.HasPrefix(p, "/v2/test/pkg/blobs/"):
		d := digest.Digest(p[strings.LastIndex(p, "/")+1:])
		b, ok := f.blobs[d]
		if !ok {
			http.Error(w, `{"errors":[{"code":"BLOB_UNKNOWN"}]}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.Write(b)
	default:
		http.NotFound(w, r)
	}
}

func anonClient(t *testing.T) *remote.Client {
	t.Helper()
	c, err := remote.New(remote.WithAnonymous())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDigestMismatch: a registry serving a base layer with one byte
// flipped.
func TestDigestMismatch(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	base := f.built.Layers()[0]
	flipped := append([]byte(nil), f.blobs[base.Digest]...)
	flipped[4] ^= 0x01 // the gzip header's mtime: the layer still decompresses
	f.blobs[base.Digest] = flipped

	ctx := context.Background()
	img, r, err := anonClient(t).Pull(ctx, f.host()+"/test/pkg:v1")
	if err != nil {
		t.Fatal(err)
	}
	file, err := oci.ReadLayerFile(ctx, r, img.Manifest.Layers[0], "package.yaml")
	if err == nil {
		_, err = io.ReadAll(file)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if !errors.Is(err, oci.ErrDigestMismatch) {
		t.Fatalf("err = %v, want oci.ErrDigestMismatch", err)
	}
}

// TestDigestMismatchConfig: a flipped byte in a blob read whole (the
// config) fails with ErrDigestMismatch exactly.
func TestDigestMismatchConfig(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	cd := f.built.ConfigDescriptor().Digest
	flipped := append([]byte(nil), f.blobs[cd]...)
	flipped[len(flipped)/2] ^= 0x01
	f.blobs[cd] = flipped
	_, _, err := anonClient(t).Pull(context.Background(), f.host()+"/test/pkg:v1")
	if !errors.Is(err, oci.ErrDigestMismatch) {
		t.Fatalf("err = %v, want oci.ErrDigestMismatch", err)
	}
}

// TestDigestMismatchResolve: a registry answering another digest for a
// digest reference fails with oci.ErrDigestMismatch (oras-go checks it,
// and says so in text only).
func TestDigestMismatchResolve(t *testing.T) {
	t.Parallel()
	other := digest.FromString("another manifest")
	host, _ := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/manifests/") {
			w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
			w.Header().Set("Docker-Content-Digest", other.String())
			w.Header().Set("Content-Length", "100")
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	repo, err := anonClient(t).Repository(host + "/test/pkg")
	if err != nil {
		t.Fatal(err)
	}
	_, err = repo.Resolve(context.Background(), digest.FromString("asked for").String())
	if !errors.Is(err, oci.ErrDigestMismatch) {
		t.Fatalf("err = %v, want oci.ErrDigestMismatch", err)
	}
}

// TestManifestTooLarge: a manifest over MaxManifestBytes is refused from
// its size, before its bytes are requested.
func TestManifestTooLarge(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	var gets atomic.Int32
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.Path, "/manifests/") {
			return false
		}
		if r.Method == http.MethodGet {
			gets.Add(1)
		}
		w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
		w.Header().Set("Docker-Content-Digest", digest.FromString("big").String())
		w.Header().Set("Content-Length", fmt.Sprint(5<<20))
		return true
	}
	_, _, err := anonClient(t).Pull(context.Background(), f.host()+"/test/pkg:v1")
	if !errors.Is(err, limit.ErrExceeded) {
		t.Fatalf("err = %v, want limit.ErrExceeded", err)
	}
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != "MaxManifestBytes" {
		t.Errorf("err = %v, want MaxManifestBytes", err)
	}
	if n := gets.Load(); n != 0 {
		t.Errorf("%d GETs of the manifest, want 0", n)
	}
}

// TestRetryAfter429: a registry that answers 429 once, then serves.
func TestRetryAfter429(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	var calls atomic.Int32
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.Contains(r.URL.Path, "/manifests/") && calls.Add(1) == 1 {
			http.Error(w, `{"errors":[{"code":"TOOMANYREQUESTS"}]}`, http.StatusTooManyRequests)
			return true
		}
		return false
	}
	img, _, err := anonClient(t).Pull(context.Background(), f.host()+"/test/pkg:v1")
	if err != nil {
		t.Fatalf("pull after one 429: %v", err)
	}
	if img.Descriptor.Digest != f.built.ManifestDescriptor().Digest {
		t.Errorf("digest %s", img.Descriptor.Digest)
	}
	if n := calls.Load(); n < 3 { // 429, then HEAD and GET
		t.Errorf("%d manifest requests, want the 429 retried", n)
	}
}

// TestRetryGivesUp: a registry that always answers 503 fails after a
// bounded number of tries.
func TestRetryGivesUp(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	var calls atomic.Int32
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.Contains(r.URL.Path, "/manifests/") {
			calls.Add(1)
			http.Error(w, "down", http.StatusServiceUnavailable)
			return true
		}
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, err := anonClient(t).Pull(ctx, f.host()+"/test/pkg:v1")
	if err == nil {
		t.Fatal("pull from a registry answering 503 succeeded")
	}
	if n := calls.Load(); n < 2 || n > 6 {
		t.Errorf("%d tries, want 1 + at most 5 retries", n)
	}
}

// TestStallCancelled: a registry that stops sending in the middle of a
// blob; cancelling the context ends the read at once.
func TestStallCancelled(t *testing.T) {
	t.Parallel()
	f := newFake(t, noise(t, "bin/big", 1<<20), fileLayer(t, "package.yaml", packageYAML, map[string]string{"io.crossplane.xpkg": "base"}))
	big := f.built.Layers()[0]
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, big.Digest.String()) {
			return false
		}
		w.Header().Set("Content-Length", fmt.Sprint(big.Size))
		w.Write(f.blobs[big.Digest][:big.Size/2])
		w.(http.Flusher).Flush()
		<-r.Context().Done() // stall until the client goes away
		return true
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, r, err := anonClient(t).Pull(ctx, f.host()+"/test/pkg:v1")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := oci.FetchVerified(ctx, r, big)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	buf := make([]byte, 32<<10)
	var n int64
	for n < big.Size/2 {
		m, err := rc.Read(buf)
		n += int64(m)
		if err != nil {
			t.Fatalf("read before the stall: %v", err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, rc)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the reader block on the stalled body
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		t.Logf("read ended %v after cancel", time.Since(start))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("read of a stalled blob did not end after cancel")
	}
}

// TestRedirectNoCredentials: blobs redirected to another host are followed,
// and the credentials sent to the registry are not sent there.
func TestRedirectNoCredentials(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	var otherAuth, otherGets atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherGets.Add(1)
		if r.Header.Get("Authorization") != "" {
			otherAuth.Add(1)
		}
		d := digest.Digest(strings.TrimPrefix(r.URL.Path, "/"))
		w.Write(f.blobs[d])
	}))
	t.Cleanup(other.Close)
	var registryAuth atomic.Int32
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		user, pass, ok := r.BasicAuth()
		if !ok || user != "u" || pass != "p" {
			w.Header().Set("WWW-Authenticate", `Basic realm="fake"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
			return true
		}
		registryAuth.Add(1)
		if strings.Contains(r.URL.Path, "/blobs/") {
			http.Redirect(w, r, other.URL+"/"+r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], http.StatusTemporaryRedirect)
			return true
		}
		return false
	}
	c, _ := remote.New(remote.WithCredentials(func(context.Context, string) (remote.Credential, error) {
		return remote.Credential{Username: "u", Password: "p"}, nil
	}))
	ctx := context.Background()
	img, r, err := c.Pull(ctx, f.host()+"/test/pkg:v1")
	if err != nil {
		t.Fatal(err)
	}
	if got := readPackageYAML(t, r, img); string(got) != packageYAML {
		t.Errorf("package.yaml = %q", got)
	}
	if registryAuth.Load() == 0 || otherGets.Load() < 2 {
		t.Fatalf("registry saw %d authorised requests, other host %d GETs", registryAuth.Load(), otherGets.Load())
	}
	if n := otherAuth.Load(); n != 0 {
		t.Errorf("the other host received credentials %d times", n)
	}
}
