package cache_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/cache"
)

func blob(s string) (ocispec.Descriptor, []byte) {
	b := []byte(s)
	return ocispec.Descriptor{MediaType: "application/octet-stream", Digest: digest.FromBytes(b), Size: int64(len(b))}, b
}

func open(t *testing.T, opts ...cache.Option) *cache.Cache {
	t.Helper()
	c, err := cache.Open(t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func readAll(t *testing.T, f oci.Fetcher, desc ocispec.Descriptor) ([]byte, error) {
	t.Helper()
	rc, err := f.Fetch(context.Background(), desc)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// upstream is a Fetcher over a map that counts its fetches.
type upstream struct {
	blobs map[digest.Digest][]byte
	n     atomic.Int32
}

func (u *upstream) Fetch(_ context.Context, d ocispec.Descriptor) (io.ReadCloser, error) {
	u.n.Add(1)
	b, ok := u.blobs[d.Digest]
	if !ok {
		return nil, oci.ErrNotFound
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func TestPutFetch(t *testing.T) {
	t.Parallel()
	c := open(t)
	d, b := blob("hello")
	if _, err := readAll(t, c, d); !errors.Is(err, oci.ErrNotFound) {
		t.Fatalf("miss: err = %v, want oci.ErrNotFound", err)
	}
	if err := c.Put(context.Background(), d, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, c, d)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("hit: %q, %v", got, err)
	}
	// Bytes that do not match the descriptor are refused.
	d2, _ := blob("other")
	if err := c.Put(context.Background(), d2, strings.NewReader("wrong")); !errors.Is(err, oci.ErrDigestMismatch) {
		t.Errorf("Put of wrong bytes: err = %v, want oci.ErrDigestMismatch", err)
	}
	if c.Has(d2) {
		t.Error("wrong bytes were cached")
	}
}

// TestVerifiedOnRead: a cached file altered on disk fails its read with
// ErrDigestMismatch and is removed; one of the wrong size is a miss.
func TestVerifiedOnRead(t *testing.T) {
	t.Parallel()
	c := open(t)
	d, b := blob("hello world")
	if err := c.Put(context.Background(), d, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(c.Dir(), "blobs", "sha256", d.Digest.Encoded())
	if err := os.WriteFile(name, []byte("HELLO WORLD"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(t, c, d); !errors.Is(err, oci.ErrDigestMismatch) {
		t.Errorf("altered: err = %v, want oci.ErrDigestMismatch", err)
	}
	if c.Has(d) {
		t.Error("the altered blob is still cached")
	}
	if err := os.WriteFile(name, []byte("short"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(t, c, d); !errors.Is(err, oci.ErrNotFound) {
		t.Errorf("wrong size: err = %v, want oci.ErrNotFound", err)
	}
}

func TestReadThrough(t *testing.T) {
	t.Parallel()
	c := open(t)
	d, b := blob("layer bytes")
	bad, _ := blob("expected")
	up := &upstream{blobs: map[digest.Digest][]byte{d.Digest: b, bad.Digest: []byte("tampered")}}
	rt := c.ReadThrough(up)
	for i := range 3 {
		got, err := readAll(t, rt, d)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("read %d: %q, %v", i, got, err)
		}
	}
	if n := up.n.Load(); n != 1 {
		t.Errorf("upstream fetched %d times, want 1", n)
	}
	// A blob read partly is not cached.
	d3, b3 := blob("partly read")
	up.blobs[d3.Digest] = b3
	rc, err := rt.Fetch(context.Background(), d3)
	if err != nil {
		t.Fatal(err)
	}
	rc.Read(make([]byte, 3))
	rc.Close()
	if c.Has(d3) {
		t.Error("a blob read partly was cached")
	}
	// Bytes that do not match are passed on (the reader's verifier says so)
	// but not cached.
	readAll(t, rt, bad)
	if c.Has(bad) {
		t.Error("bytes that do not match their digest were cached")
	}
	tmps, _ := filepath.Glob(filepath.Join(c.Dir(), "blobs", "sha256", ".tmp-*"))
	if len(tmps) != 0 {
		t.Errorf("temporary files left: %q", tmps)
	}
}

// TestConcurrentFill: several caches on one directory (as several
// processes) and several goroutines each fill it with the same blobs.
func TestConcurrentFill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	up := &upstream{blobs: map[digest.Digest][]byte{}}
	var descs []ocispec.Descriptor
	for i := range 8 {
		d, b := blob(strings.Repeat(fmt.Sprint(i), 100_000))
		up.blobs[d.Digest] = b
		descs = append(descs, d)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 4 {
		c, err := cache.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rt := c.ReadThrough(up)
				for _, d := range descs {
					rc, err := rt.Fetch(context.Background(), d)
					if err != nil {
						errs <- err
						return
					}
					v, _ := oci.FetchVerified(context.Background(), oneReader{rc}, d)
					if _, err := io.Copy(io.Discard, v); err != nil {
						errs <- err
					}
					rc.Close()
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c, _ := cache.Open(dir)
	for _, d := range descs {
		if got, err := readAll(t, c, d); err != nil || !bytes.Equal(got, up.blobs[d.Digest]) {
			t.Errorf("%s: %v", d.Digest, err)
		}
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, "blobs", "sha256", ".tmp-*"))
	if len(tmps) != 0 {
		t.Errorf("temporary files left: %q", tmps)
	}
}

type oneReader struct{ rc io.ReadCloser }

func (o oneReader) Fetch(context.Context, ocispec.Descriptor) (io.ReadCloser, error) {
	return o.rc, nil
}

func TestTagTTL(t *testing.T) {
	t.Parallel()
	c := open(t, cache.WithTagTTL(time.Hour))
	ctx := context.Background()
	d, b := blob(`{"schemaVersion":2}`)
	d.MediaType = ocispec.MediaTypeImageManifest
	if err := c.Put(ctx, d, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.LookupTag(ctx, "r.example/o/p:v1"); !errors.Is(err, oci.ErrNotFound) {
		t.Errorf("no entry: err = %v", err)
	}
	if err := c.Tag(ctx, "r.example/o/p:v1", d); err != nil {
		t.Fatal(err)
	}
	got, fresh, err := c.LookupTag(ctx, "r.example/o/p:v1")
	if err != nil || !fresh || got.Digest != d.Digest || got.MediaType != d.MediaType {
		t.Errorf("fresh lookup: %v %v %v", got, fresh, err)
	}
	stale := open(t, cache.WithTagTTL(0))
	if err := stale.Put(ctx, d, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	stale.Tag(ctx, "r.example/o/p:v1", d)
	stale.Tag(ctx, "r.example/o/p@"+d.Digest.String(), d)
	if _, fresh, err := stale.LookupTag(ctx, "r.example/o/p:v1"); err != nil || fresh {
		t.Errorf("expired tag: fresh %v, %v", fresh, err)
	}
	if _, fresh, err := stale.LookupTag(ctx, "r.example/o/p@"+d.Digest.String()); err != nil || !fresh {
		t.Errorf("digest reference: fresh %v, %v", fresh, err)
	}
	// An entry whose manifest is gone is a miss.
	os.Remove(filepath.Join(stale.Dir(), "blobs", "sha256", d.Digest.Encoded()))
	if _, _, err := stale.LookupTag(ctx, "r.example/o/p:v1"); !errors.Is(err, oci.ErrNotFound) {
		t.Errorf("manifest gone: err = %v", err)
	}
}

func TestEvictLRU(t *testing.T) {
	t.Parallel()
	c := open(t, cache.WithMaxBytes(250))
	ctx := context.Background()
	var ds []ocispec.Descriptor
	for i := range 3 {
		d, b := blob(strings.Repeat(string(rune('a'+i)), 100))
		if err := c.Put(ctx, d, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(time.Duration(i-10) * time.Minute)
		os.Chtimes(filepath.Join(c.Dir(), "blobs", "sha256", d.Digest.Encoded()), old, old)
		ds = append(ds, d)
		if i == 1 {
			// Use the first blob: the second is now the least recently used.
			readAll(t, c, ds[0])
		}
	}
	// Third put took the cache to 300 > 250: one blob went.
	if !c.Has(ds[0]) || c.Has(ds[1]) || !c.Has(ds[2]) {
		t.Errorf("after eviction: has %v %v %v, want true false true", c.Has(ds[0]), c.Has(ds[1]), c.Has(ds[2]))
	}
	if n, _ := c.Size(); n > 250 {
		t.Errorf("size %d over the bound", n)
	}
}

// TestLayoutReadable: the cache is an OCI layout that package oci reads,
// and skopeo when it is installed.
func TestLayoutReadable(t *testing.T) {
	t.Parallel()
	c := open(t)
	ctx := context.Background()
	cfg, cb := blob(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}`)
	cfg.MediaType = ocispec.MediaTypeImageConfig
	man := fmt.Sprintf(`{"schemaVersion":2,"mediaType":%q,"config":{"mediaType":%q,"digest":%q,"size":%d},"layers":[]}`,
		ocispec.MediaTypeImageManifest, cfg.MediaType, cfg.Digest, cfg.Size)
	md, mb := blob(man)
	md.MediaType = ocispec.MediaTypeImageManifest
	for _, x := range []struct {
		d ocispec.Descriptor
		b []byte
	}{{cfg, cb}, {md, mb}} {
		if err := c.Put(ctx, x.d, bytes.NewReader(x.b)); err != nil {
			t.Fatal(err)
		}
	}
	ref := "127.0.0.1:5000/org/pkg:v1"
	if err := c.Tag(ctx, ref, md); err != nil {
		t.Fatal(err)
	}
	if _, err := oci.Resolve(ctx, c, oci.WithReference(ref)); err != nil {
		t.Errorf("oci.Resolve of the Cache as a Store before Flush: %v", err)
	}
	if err := c.Flush(ctx); err != nil { // the journal into index.json
		t.Fatal(err)
	}
	src, err := oci.Open(ctx, c.Dir())
	if err != nil {
		t.Fatal(err)
	}
	img, err := oci.Resolve(ctx, src, oci.WithReference(ref))
	if err != nil || img.Descriptor.Digest != md.Digest {
		t.Fatalf("oci.Resolve of the cache: %v", err)
	}
	if _, err := oci.Resolve(ctx, c, oci.WithReference(ref)); err != nil {
		t.Errorf("oci.Resolve of the Cache as a Store: %v", err)
	}
	skopeo, err := exec.LookPath("skopeo")
	if err != nil {
		t.Log("skopeo not installed: not checked with skopeo")
		return
	}
	out, err := exec.Command(skopeo, "inspect", "--raw", "oci:"+c.Dir()+":"+ref).CombinedOutput()
	if err != nil || !bytes.Equal(bytes.TrimSpace(out), mb) {
		t.Errorf("skopeo inspect: %v\n%s", err, out)
	}
}
