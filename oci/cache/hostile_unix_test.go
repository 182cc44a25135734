//go:build unix

package cache_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/cache"
)

// cacheWorstCase is a hostile cache directory, or a hostile use of one,
// and the bounded outcome it must get.
type cacheWorstCase struct {
	name string
	run  func(t *testing.T)
}

// within fails t when fn does not return within d: the cases that could
// block (a FIFO) must not.
func within(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still blocked after %v", d)
	}
}

func cacheWorstCases() []cacheWorstCase {
	return []cacheWorstCase{
		{"cache-cost-fifo-blob", func(t *testing.T) {
			// A FIFO named after the digest of the blob being pulled.
			c := open(t)
			d, b := blob("layer bytes")
			os.MkdirAll(filepath.Join(c.Dir(), "blobs", "sha256"), 0o755)
			if err := syscall.Mkfifo(filepath.Join(c.Dir(), "blobs", "sha256", d.Digest.Encoded()), 0o644); err != nil {
				t.Fatal(err)
			}
			within(t, 5*time.Second, func() {
				if _, err := c.Fetch(context.Background(), d); !errors.Is(err, oci.ErrNotFound) || !errors.Is(err, oci.ErrNotRegularFile) {
					t.Errorf("Fetch of a FIFO: err = %v, want ErrNotFound and ErrNotRegularFile", err)
				}
				up := &upstream{blobs: map[digest.Digest][]byte{d.Digest: b}}
				if got, err := readAll(t, c.ReadThrough(up), d); err != nil || !bytes.Equal(got, b) {
					t.Errorf("read through past a FIFO: %q, %v", got, err)
				}
			})
			if !c.Has(d) {
				t.Error("the blob read through did not replace the FIFO")
			}
		}},
		{"cache-cost-index-dev-zero", func(t *testing.T) {
			// index.json and the journal as links to endless files, and
			// outside the cache.
			dir := t.TempDir()
			c0, _ := cache.Open(dir)
			c0.Close()
			for _, name := range []string{"index.json", cache.JournalFile} {
				os.Remove(filepath.Join(dir, name))
				if err := os.Symlink("/dev/zero", filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			c, err := cache.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			within(t, 5*time.Second, func() {
				idx, err := c.Index(context.Background())
				if err != nil || len(idx.Manifests) != 0 {
					t.Errorf("Index: %d entries, %v", len(idx.Manifests), err)
				}
				d, b := manifestBlob(0)
				c.Put(context.Background(), d, bytes.NewReader(b))
				c.Tag(context.Background(), "r.example/o/p:v1", d)
				if _, _, err := c.LookupTag(context.Background(), "r.example/o/p:v1"); err != nil {
					t.Errorf("LookupTag after Tag: %v", err)
				}
			})
		}},
		{"cache-cost-index-fifo", func(t *testing.T) {
			dir := t.TempDir()
			c0, _ := cache.Open(dir)
			c0.Close()
			for _, name := range []string{"index.json", cache.JournalFile} {
				os.Remove(filepath.Join(dir, name))
				if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c, err := cache.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			within(t, 5*time.Second, func() {
				d, b := manifestBlob(0)
				c.Put(context.Background(), d, bytes.NewReader(b))
				c.Tag(context.Background(), "r.example/o/p:v1", d)
				if _, _, err := c.LookupTag(context.Background(), "r.example/o/p:v1"); err != nil {
					t.Errorf("LookupTag after Tag: %v", err)
				}
			})
		}},
		{"cache-cost-index-huge", func(t *testing.T) {
			// index.json over MaxIndexBytes: not read, forgotten.
			dir := t.TempDir()
			c0, _ := cache.Open(dir)
			c0.Close()
			f, _ := os.Create(filepath.Join(dir, "index.json"))
			f.Truncate(cache.MaxIndexBytes + 1)
			f.Close()
			c, _ := cache.Open(dir)
			idx, err := c.Index(context.Background())
			if err != nil || len(idx.Manifests) != 0 {
				t.Errorf("Index: %d entries, %v", len(idx.Manifests), err)
			}
		}},
		{"cache-cost-many-tags", func(t *testing.T) {
			// 2,000 packages resolved and pulled into one cache: the
			// bookkeeping is linear (it was quadratic: every blob listed
			// the blob directory, every tag rewrote index.json).
			const n = 2_000
			c := open(t)
			ctx := context.Background()
			for i := range n {
				d, b := manifestBlob(i)
				if err := c.Put(ctx, d, bytes.NewReader(b)); err != nil {
					t.Fatal(err)
				}
				ref := fmt.Sprintf("r.example/o/p%d:v1", i)
				if err := c.Tag(ctx, ref, d); err != nil {
					t.Fatal(err)
				}
				if _, fresh, err := c.LookupTag(ctx, ref); err != nil || !fresh {
					t.Fatalf("LookupTag %d: %v %v", i, fresh, err)
				}
			}
			// Tag the same references again: dedup, not growth.
			for i := range n {
				d, _ := manifestBlob(i)
				c.Tag(ctx, fmt.Sprintf("r.example/o/p%d:v1", i), d)
			}
			if err := c.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			scans, written := c.Work()
			if scans > 1 {
				t.Errorf("%d scans of the blob directory for %d blobs under the bound, want 1", scans, n)
			}
			if written > 20*n {
				t.Errorf("%d index.json entries written for %d tags, want linear (at most %d)", written, 2*n, 20*n)
			}
			idx, _ := c.Index(ctx)
			if len(idx.Manifests) != n {
				t.Errorf("index has %d entries, want %d (one per reference)", len(idx.Manifests), n)
			}
			t.Logf("%d tags: %d scans, %d index entries written", 2*n, scans, written)
		}},
		{"cache-cost-index-entries-bounded", func(t *testing.T) {
			// More references than MaxIndexEntries: the newest are kept.
			c := open(t)
			ctx := context.Background()
			d, b := manifestBlob(0)
			c.Put(ctx, d, bytes.NewReader(b))
			for i := range cache.MaxIndexEntries + 500 {
				c.Tag(ctx, fmt.Sprintf("r.example/o/p%d:v1", i), d)
			}
			c.Flush(ctx)
			raw, _ := os.ReadFile(filepath.Join(c.Dir(), "index.json"))
			if n := strings.Count(string(raw), `"mediaType"`) - 1; n > cache.MaxIndexEntries {
				t.Errorf("index.json holds %d entries, over %d", n, cache.MaxIndexEntries)
			}
			if _, _, err := c.LookupTag(ctx, fmt.Sprintf("r.example/o/p%d:v1", cache.MaxIndexEntries+499)); err != nil {
				t.Errorf("the newest entry: %v", err)
			}
		}},
		{"cache-cost-interrupted-temps", func(t *testing.T) {
			// Temporary files of interrupted pulls (no process holds
			// their lock), and one being written by a live reader.
			dir := t.TempDir()
			c0, _ := cache.Open(dir)
			c0.Close()
			blobs := filepath.Join(dir, "blobs", "sha256")
			for i := range 14 {
				os.WriteFile(filepath.Join(blobs, fmt.Sprintf(".tmp-interrupted%d", i)), make([]byte, 100_000), 0o644)
			}
			os.WriteFile(filepath.Join(dir, ".tmp-index"), []byte("{"), 0o644)
			c, _ := cache.Open(dir, cache.WithMaxBytes(1<<20))
			if left, _ := filepath.Glob(filepath.Join(blobs, ".tmp-*")); len(left) != 0 {
				t.Errorf("temporary files of interrupted pulls after Open: %q", left)
			}
			live, lb := blob(strings.Repeat("l", 300_000))
			up := &upstream{blobs: map[digest.Digest][]byte{live.Digest: lb}}
			rc, err := c.ReadThrough(up).Fetch(context.Background(), live)
			if err != nil {
				t.Fatal(err)
			}
			rc.Read(make([]byte, 1000)) // being written
			n, err := c.Size()
			if err != nil {
				t.Fatal(err)
			}
			left, _ := filepath.Glob(filepath.Join(blobs, ".tmp-*"))
			rootLeft, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
			if len(left) != 1 || len(rootLeft) != 0 {
				t.Errorf("temporary files after a scan: %q %q, want only the live one", left, rootLeft)
			}
			if n < 1000 {
				t.Errorf("Size %d does not count the file being written", n)
			}
			rc.Close() // an interrupted pull of this process
			left, _ = filepath.Glob(filepath.Join(blobs, ".tmp-*"))
			if len(left) != 0 {
				t.Errorf("temporary files after Close: %q", left)
			}
		}},
		{"cache-cost-failing-upstream", func(t *testing.T) {
			// A read that fails mid-blob leaves no temporary file.
			c := open(t)
			d, b := blob(strings.Repeat("x", 100_000))
			rc, err := c.ReadThrough(failing{b[:50_000]}).Fetch(context.Background(), d)
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(io.Discard, rc)
			if err == nil {
				t.Fatal("read of a failing upstream succeeded")
			}
			left, _ := filepath.Glob(filepath.Join(c.Dir(), "blobs", "sha256", ".tmp-*"))
			if len(left) != 0 {
				t.Errorf("temporary files after a failed read (before Close): %q", left)
			}
			rc.Close()
		}},
	}
}

// failing is an upstream whose blob fails after some bytes.
type failing struct{ head []byte }

func (f failing) Fetch(context.Context, ocispec.Descriptor) (io.ReadCloser, error) {
	return io.NopCloser(io.MultiReader(bytes.NewReader(f.head), errReader{})), nil
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestCacheWorstCases(t *testing.T) {
	t.Parallel()
	for _, w := range cacheWorstCases() {
		if !strings.HasPrefix(w.name, "cache-cost-") {
			t.Errorf("%s: worst-case names start with cache-cost-", w.name)
		}
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			w.run(t)
		})
	}
}
