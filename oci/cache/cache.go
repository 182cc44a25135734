// Package cache is a verified, content-addressed local cache of OCI blobs
// and resolved tags, shared by every tool that uses xpkgkit.
//
// The cache is an OCI image layout directory: blobs/<algorithm>/<hex> holds
// each cached blob (manifests, configs, the layers that were read), and
// index.json lists the cached references, each annotated
// org.opencontainers.image.ref.name with the full reference
// ("host/repository:tag" or "host/repository@sha256:...") and
// AnnotationResolved with the time it was resolved. So package oci's layout
// reader, skopeo and oras can read it (only the blobs that were read are
// there: a tool that copies a whole image needs every layer).
//
// Blobs are written to a temporary file in the cache, verified against
// their digest and size, and renamed into place, so several processes can
// fill one cache at once; a reader never sees a partial blob. Every read is
// verified again (a blob that no longer matches its digest is removed), a
// tag entry older than the TTL is not answered (a tag can move; a digest
// cannot), and the cache is kept under a size bound by removing the least
// recently used blobs.
package cache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	_ "crypto/sha256" // digest verification
	_ "crypto/sha512"

	digest "github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
)

// AnnotationResolved is the annotation of an index.json entry holding the
// time (RFC 3339) its reference was resolved.
const AnnotationResolved = "io.xpkgkit.cache.resolved"

// Defaults.
const (
	// DefaultMaxSize is the default size bound: 2 GiB.
	DefaultMaxSize = 2 << 30
	// DefaultTagTTL is how long a resolved tag is trusted by default.
	DefaultTagTTL = 5 * time.Minute
)

// Cache is a cache directory. It is safe for concurrent use, by several
// goroutines and by several processes sharing the directory.
type Cache struct {
	dir     string
	maxSize int64
	ttl     time.Duration
	now     func() time.Time

	mu sync.Mutex // serialises this process's index.json updates and evictions
}

// Option configures Open.
type Option func(*Cache)

// WithMaxSize bounds the bytes of the cached blobs (default DefaultMaxSize).
// When a new blob takes the cache over it, the least recently used blobs
// are removed until it is under it again. A blob larger than the bound is
// not cached.
func WithMaxSize(n int64) Option { return func(c *Cache) { c.maxSize = n } }

// WithTagTTL sets how long a resolved tag is answered from the cache
// (default DefaultTagTTL). Zero or less means never: every tag is resolved
// again, and only digests are answered from the cache.
func WithTagTTL(d time.Duration) Option { return func(c *Cache) { c.ttl = d } }

// DefaultDir returns the default cache directory, shared by every tool:
// os.UserCacheDir()/xpkgkit.
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	return filepath.Join(d, "xpkgkit"), nil
}

// Open opens the cache at dir, creating the directory and its oci-layout
// and index.json files when they are missing. Options: WithMaxSize,
// WithTagTTL.
func Open(dir string, opts ...Option) (*Cache, error) {
	c := &Cache{dir: dir, maxSize: DefaultMaxSize, ttl: DefaultTagTTL, now: time.Now}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if c.maxSize <= 0 {
		c.maxSize = DefaultMaxSize
	}
	if err := os.MkdirAll(filepath.Join(dir, ocispec.ImageBlobsDir), 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	layout, _ := json.Marshal(ocispec.ImageLayout{Version: ocispec.ImageLayoutVersion})
	if err := createIfMissing(filepath.Join(dir, ocispec.ImageLayoutFile), layout); err != nil {
		return nil, err
	}
	idx, _ := json.Marshal(emptyIndex())
	if err := createIfMissing(filepath.Join(dir, ocispec.ImageIndexFile), idx); err != nil {
		return nil, err
	}
	return c, nil
}

// Dir returns the cache directory.
func (c *Cache) Dir() string { return c.dir }

func emptyIndex() ocispec.Index {
	return ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{}}
}

// createIfMissing writes data to name atomically unless name exists.
func createIfMissing(name string, data []byte) error {
	if _, err := os.Stat(name); err == nil {
		return nil
	}
	if err := writeAtomic(name, data); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// writeAtomic writes data to a temporary file beside name and renames it.
func writeAtomic(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// blobPath is where desc's blob is kept; desc's digest must be valid.
func (c *Cache) blobPath(d digest.Digest) string {
	return filepath.Join(c.dir, ocispec.ImageBlobsDir, d.Algorithm().String(), d.Encoded())
}

// Has reports whether the cache holds a blob of desc's digest and size.
func (c *Cache) Has(desc ocispec.Descriptor) bool {
	if desc.Digest.Validate() != nil {
		return false
	}
	fi, err := os.Stat(c.blobPath(desc.Digest))
	return err == nil && fi.Mode().IsRegular() && fi.Size() == desc.Size
}

// Fetch implements oci.Fetcher for the cached blobs: it opens desc's blob,
// or fails with an error wrapping oci.ErrNotFound when the cache does not
// hold it (or holds a file of another size, which it removes). The reader
// verifies the blob as it is read: at its end, bytes that do not match the
// digest fail with oci.ErrDigestMismatch and the file is removed. A hit
// marks the blob as recently used.
func (c *Cache) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := desc.Digest.Validate(); err != nil {
		return nil, fmt.Errorf("cache: %w: %v", oci.ErrInvalidDescriptor, err)
	}
	name := c.blobPath(desc.Digest)
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("cache: %s: %w", desc.Digest, oci.ErrNotFound)
		}
		return nil, fmt.Errorf("cache: %w", err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != desc.Size {
		f.Close()
		if err == nil {
			os.Remove(name)
		}
		return nil, fmt.Errorf("cache: %s: %w (cached file has another size)", desc.Digest, oci.ErrNotFound)
	}
	now := c.now()
	_ = os.Chtimes(name, now, now) // least recently used: the mtime is the last use
	return &hitReader{f: f, name: name, desc: desc, h: desc.Digest.Algorithm().Hash()}, nil
}

// hitReader verifies a cached blob as it is read and removes it when it no
// longer matches its digest.
type hitReader struct {
	f    *os.File
	name string
	desc ocispec.Descriptor
	h    hash.Hash
	n    int64
}

func (r *hitReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	r.h.Write(p[:n])
	r.n += int64(n)
	if err == io.EOF {
		if r.n != r.desc.Size || digest.NewDigest(r.desc.Digest.Algorithm(), r.h) != r.desc.Digest {
			os.Remove(r.name)
			return n, fmt.Errorf("cache: %s: %w (the cached file was altered; removed)", r.desc.Digest, oci.ErrDigestMismatch)
		}
	}
	return n, err
}

func (r *hitReader) Close() error { return r.f.Close() }

// Put stores the blob read from r under desc, verified: the bytes are
// written to a temporary file, checked against desc's digest and size, and
// renamed into place. A blob already cached is not written again.
func (c *Cache) Put(ctx context.Context, desc ocispec.Descriptor, r io.Reader) error {
	if c.Has(desc) || desc.Size > c.maxSize {
		return nil
	}
	v, err := oci.FetchVerified(ctx, readerFetcher{r}, desc, oci.WithLimits(oci.Limits{MaxBlobSize: c.maxSize}))
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	w, err := c.newWriter(desc)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, v); err != nil {
		w.abort()
		return fmt.Errorf("cache: %w", err)
	}
	return w.commit()
}

type readerFetcher struct{ r io.Reader }

func (f readerFetcher) Fetch(context.Context, ocispec.Descriptor) (io.ReadCloser, error) {
	return io.NopCloser(f.r), nil
}

// blobWriter writes a blob to a temporary file and hashes it.
type blobWriter struct {
	c    *Cache
	desc ocispec.Descriptor
	f    *os.File
	h    hash.Hash
	n    int64
}

func (c *Cache) newWriter(desc ocispec.Descriptor) (*blobWriter, error) {
	dir := filepath.Dir(c.blobPath(desc.Digest))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return &blobWriter{c: c, desc: desc, f: f, h: desc.Digest.Algorithm().Hash()}, nil
}

func (w *blobWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.n > w.desc.Size {
		return 0, fmt.Errorf("%w: blob is longer than %d bytes", oci.ErrSizeMismatch, w.desc.Size)
	}
	w.h.Write(p)
	return w.f.Write(p)
}

func (w *blobWriter) abort() {
	w.f.Close()
	os.Remove(w.f.Name())
}

// commit verifies what was written and renames it into place.
func (w *blobWriter) commit() error {
	if w.n != w.desc.Size || digest.NewDigest(w.desc.Digest.Algorithm(), w.h) != w.desc.Digest {
		w.abort()
		return fmt.Errorf("cache: %s: %w", w.desc.Digest, oci.ErrDigestMismatch)
	}
	if err := w.f.Close(); err != nil {
		os.Remove(w.f.Name())
		return fmt.Errorf("cache: %w", err)
	}
	if err := os.Rename(w.f.Name(), w.c.blobPath(w.desc.Digest)); err != nil {
		os.Remove(w.f.Name())
		return fmt.Errorf("cache: %w", err)
	}
	return w.c.evict(w.desc.Digest)
}

// ReadThrough returns an oci.Fetcher that reads a blob from the cache when
// it holds it (no call to upstream), and otherwise from upstream, storing
// the bytes in the cache as they are read: once the whole blob has been
// read and matches its digest and size it is renamed into place; a blob not
// read to its end, or that does not match, is not kept. The bytes are
// passed on as upstream gave them (the readers of package oci verify them).
func (c *Cache) ReadThrough(upstream oci.Fetcher) oci.Fetcher {
	return readThrough{c: c, up: upstream}
}

type readThrough struct {
	c  *Cache
	up oci.Fetcher
}

func (t readThrough) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	rc, err := t.c.Fetch(ctx, desc)
	if err == nil {
		return rc, nil
	}
	if !errors.Is(err, oci.ErrNotFound) {
		return nil, err
	}
	rc, err = t.up.Fetch(ctx, desc)
	if err != nil {
		return nil, err
	}
	if desc.Size > t.c.maxSize {
		return rc, nil
	}
	w, err := t.c.newWriter(desc)
	if err != nil {
		return rc, nil // the cache is an optimisation
	}
	return &teeReader{rc: rc, w: w}, nil
}

// teeReader copies what it reads into a blobWriter and commits it at EOF.
type teeReader struct {
	rc   io.ReadCloser
	w    *blobWriter
	done bool
}

func (t *teeReader) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if !t.done && n > 0 {
		if _, werr := t.w.Write(p[:n]); werr != nil {
			t.w.abort()
			t.done = true
		}
	}
	if err == io.EOF && !t.done {
		t.done = true
		_ = t.w.commit() // a mismatch is the reader's to report
	}
	return n, err
}

func (t *teeReader) Close() error {
	if !t.done {
		t.done = true
		t.w.abort()
	}
	return t.rc.Close()
}

// Index implements oci.Store: it returns index.json, the cached
// references. With it the cache is a Store for oci.Resolve
// (oci.WithReference chooses a reference).
func (c *Cache) Index(ctx context.Context) (ocispec.Index, error) {
	if err := ctx.Err(); err != nil {
		return ocispec.Index{}, err
	}
	return c.readIndex()
}

func (c *Cache) readIndex() (ocispec.Index, error) {
	b, err := os.ReadFile(filepath.Join(c.dir, ocispec.ImageIndexFile))
	if errors.Is(err, fs.ErrNotExist) {
		return emptyIndex(), nil
	}
	if err != nil {
		return ocispec.Index{}, fmt.Errorf("cache: %w", err)
	}
	var idx ocispec.Index
	if err := json.Unmarshal(b, &idx); err != nil {
		// A damaged index is forgotten, not fatal: it only names tags.
		return emptyIndex(), nil
	}
	return idx, nil
}

// Tag records that ref (a full reference, "host/repository:tag" or
// "host/repository@sha256:...") resolved to desc now. The entry replaces
// any other for ref. Several processes updating index.json at once never
// damage it (each writes it whole and renames it), but one's entry can be
// lost to another's write; a lost entry only costs a new resolution.
func (c *Cache) Tag(ctx context.Context, ref string, desc ocispec.Descriptor) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	idx, err := c.readIndex()
	if err != nil {
		return err
	}
	entry := ocispec.Descriptor{MediaType: desc.MediaType, Digest: desc.Digest, Size: desc.Size, Platform: desc.Platform,
		Annotations: map[string]string{
			ocispec.AnnotationRefName: ref,
			AnnotationResolved:        c.now().UTC().Format(time.RFC3339Nano),
		}}
	idx.Manifests = slices.DeleteFunc(idx.Manifests, func(d ocispec.Descriptor) bool {
		return d.Annotations[ocispec.AnnotationRefName] == ref
	})
	idx.Manifests = append(idx.Manifests, entry)
	return c.writeIndex(idx)
}

func (c *Cache) writeIndex(idx ocispec.Index) error {
	b, err := json.Marshal(idx)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := writeAtomic(filepath.Join(c.dir, ocispec.ImageIndexFile), b); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// LookupTag returns the descriptor ref was last resolved to, and whether
// the entry is fresh: younger than the tag TTL, or for a digest reference
// ("...@sha256:..."), always. It fails with an error wrapping
// oci.ErrNotFound when there is no entry, or when the manifest it names is
// no longer cached.
func (c *Cache) LookupTag(ctx context.Context, ref string) (ocispec.Descriptor, bool, error) {
	if err := ctx.Err(); err != nil {
		return ocispec.Descriptor{}, false, err
	}
	idx, err := c.readIndex()
	if err != nil {
		return ocispec.Descriptor{}, false, err
	}
	for i := len(idx.Manifests) - 1; i >= 0; i-- {
		d := idx.Manifests[i]
		if d.Annotations[ocispec.AnnotationRefName] != ref {
			continue
		}
		if !c.Has(d) {
			break
		}
		fresh := isDigestRef(ref)
		if t, err := time.Parse(time.RFC3339Nano, d.Annotations[AnnotationResolved]); err == nil && c.ttl > 0 {
			fresh = fresh || c.now().Sub(t) < c.ttl
		}
		desc := ocispec.Descriptor{MediaType: d.MediaType, Digest: d.Digest, Size: d.Size, Platform: d.Platform}
		return desc, fresh, nil
	}
	return ocispec.Descriptor{}, false, fmt.Errorf("cache: %q: %w", ref, oci.ErrNotFound)
}

func isDigestRef(ref string) bool {
	for i := len(ref) - 1; i >= 0; i-- {
		switch ref[i] {
		case '@':
			return true
		case '/':
			return false
		}
	}
	return false
}

// Size returns the bytes of the cached blobs.
func (c *Cache) Size() (int64, error) {
	blobs, err := c.list()
	if err != nil {
		return 0, err
	}
	var n int64
	for _, b := range blobs {
		n += b.size
	}
	return n, nil
}

type cachedBlob struct {
	path  string
	d     digest.Digest
	size  int64
	mtime time.Time
}

// list returns the cached blobs.
func (c *Cache) list() ([]cachedBlob, error) {
	root := filepath.Join(c.dir, ocispec.ImageBlobsDir)
	algs, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	var out []cachedBlob
	for _, a := range algs {
		if !a.IsDir() {
			continue
		}
		ents, err := os.ReadDir(filepath.Join(root, a.Name()))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.Type().IsRegular() || len(e.Name()) > 0 && e.Name()[0] == '.' {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue
			}
			out = append(out, cachedBlob{
				path:  filepath.Join(root, a.Name(), e.Name()),
				d:     digest.NewDigestFromEncoded(digest.Algorithm(a.Name()), e.Name()),
				size:  fi.Size(),
				mtime: fi.ModTime(),
			})
		}
	}
	return out, nil
}

// evict removes the least recently used blobs (keep excepted) while the
// cache is over its size bound, and the index entries whose manifest was
// removed.
func (c *Cache) evict(keep digest.Digest) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	blobs, err := c.list()
	if err != nil {
		return err
	}
	var total int64
	for _, b := range blobs {
		total += b.size
	}
	if total <= c.maxSize {
		return nil
	}
	sort.Slice(blobs, func(i, j int) bool { return blobs[i].mtime.Before(blobs[j].mtime) })
	removed := map[digest.Digest]bool{}
	for _, b := range blobs {
		if total <= c.maxSize {
			break
		}
		if b.d == keep {
			continue
		}
		if err := os.Remove(b.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= b.size
			removed[b.d] = true
		}
	}
	idx, err := c.readIndex()
	if err != nil {
		return err
	}
	n := len(idx.Manifests)
	idx.Manifests = slices.DeleteFunc(idx.Manifests, func(d ocispec.Descriptor) bool { return removed[d.Digest] })
	if len(idx.Manifests) != n {
		return c.writeIndex(idx)
	}
	return nil
}
