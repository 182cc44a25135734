// Package cache is a verified, content-addressed local cache of OCI blobs
// and resolved tags, shared by every tool that uses xpkgkit.
//
// The cache is an OCI image layout directory: blobs/<algorithm>/<hex> holds
// each cached blob (manifests, configs, the layers that were read), and
// index.json lists the cached references, each annotated
// org.opencontainers.image.ref.name with the full reference
// ("host/repository:tag" or "host/repository@sha256:...") and
// io.xpkgkit.cache.resolved with the time it was resolved. So package oci's layout
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
//
// The directory is shared between tools and processes, so it is read as
// package oci reads a layout it did not write: through os.Root (nothing
// outside the directory is reached, a symbolic link only inside it),
// regular files only (a FIFO or device named like a blob is refused
// without blocking), and every file read whole (index.json, the tag
// journal) is bounded: 16 MiB (the bound is named MaxIndexBytes); a
// larger file is not read, and its tags are forgotten. The bookkeeping is
// linear: the cache's size is counted by one scan (when the cache is
// opened, and again only when it goes over its bound, after which eviction
// takes it well under it), and a resolved tag is appended to a journal (index.journal) that is
// merged into index.json once it holds more than an eighth as many entries
// as the index (so index.json may lag the newest tags of a large cache;
// Flush merges them at once).
// index.json keeps at most 10 000 entries, one per reference, the
// newest. Temporary files are locked while they are written; a scan
// removes those no process is writing (an interrupted pull's) and counts
// the others against the size bound.
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
	"path"
	"path/filepath"
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

// annotationResolved is the annotation of an index.json entry holding the
// time (RFC 3339) its reference was resolved.
const annotationResolved = "io.xpkgkit.cache.resolved"

// Defaults and bounds.
const (
	// defaultMaxBytes is the default size bound: 2 GiB.
	defaultMaxBytes = 2 << 30
	// defaultTagTTL is how long a resolved tag is trusted by default.
	defaultTagTTL = 5 * time.Minute
	// maxIndexEntries is how many references index.json keeps: the most
	// recently resolved.
	maxIndexEntries = 10_000
	// maxIndexBytes bounds what is read of index.json and of the tag
	// journal: a larger file is not read (its tags are forgotten, which
	// only costs new resolutions).
	maxIndexBytes = 16 << 20
	// journalFile is the file of the cache directory that resolved tags
	// are appended to, one JSON descriptor a line, until they are merged
	// into index.json.
	journalFile = "index.journal"
)

// staleTemp is the age past which a temporary file is taken as left by an
// interrupted process where file locks cannot tell.
const staleTemp = time.Hour

// Cache is a cache directory. It is safe for concurrent use, by several
// goroutines and by several processes sharing the directory.
type Cache struct {
	dir     string
	root    *os.Root
	maxSize int64
	ttl     time.Duration
	now     func() time.Time

	mu            sync.Mutex // guards what follows, and this process's index.json writes
	sized         bool       // size holds the bytes of the directory's blobs and temporary files
	size          int64
	tags          tagIndex
	closed        bool
	compactFailed bool // a merge into index.json failed: Tag does not try again

	// work done, for the tests of linear cost
	scans, indexEntriesWritten int
}

// Option configures Open.
type Option func(*config)

type config struct {
	maxBytes int64
	ttl      time.Duration
}

// WithMaxBytes bounds the bytes of the cached blobs and of the temporary
// files being written (default 2 GiB; zero or less means the default). When a new blob takes the
// cache over it, the least recently used blobs are removed until it is
// well under it (seven eighths of the bound). A blob larger than the
// bound is not cached.
func WithMaxBytes(n int64) Option { return func(c *config) { c.maxBytes = n } }

// WithTagTTL sets how long a resolved tag is answered from the cache
// (default 5 minutes). Zero or less means never: every tag is resolved
// again, and only digests are answered from the cache.
func WithTagTTL(d time.Duration) Option { return func(c *config) { c.ttl = d } }

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
// and index.json files when they are missing, and scans it once: the
// temporary files that interrupted writes left are removed, and the size
// is counted. Options: WithMaxBytes, WithTagTTL. The Cache holds the
// directory open until Close.
func Open(dir string, opts ...Option) (*Cache, error) {
	cfg := config{maxBytes: defaultMaxBytes, ttl: defaultTagTTL}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.maxBytes <= 0 {
		cfg.maxBytes = defaultMaxBytes
	}
	c := &Cache{dir: dir, maxSize: cfg.maxBytes, ttl: cfg.ttl, now: time.Now}
	if err := os.MkdirAll(filepath.Join(dir, ocispec.ImageBlobsDir), 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	c.root = root
	layout, _ := json.Marshal(ocispec.ImageLayout{Version: ocispec.ImageLayoutVersion})
	if err := c.createIfMissing(ocispec.ImageLayoutFile, layout); err != nil {
		root.Close()
		return nil, err
	}
	idx, _ := json.Marshal(emptyIndex())
	if err := c.createIfMissing(ocispec.ImageIndexFile, idx); err != nil {
		root.Close()
		return nil, err
	}
	// One scan: the temporary files of interrupted writes are removed, and
	// the size is known. Its failure (an unreadable blob directory) is the
	// first write's to report.
	c.mu.Lock()
	_ = c.sizeLocked()
	c.mu.Unlock()
	return c, nil
}

// Close merges the tag journal into index.json (as Flush does) and
// releases the directory. The Cache must not be used after Close.
func (c *Cache) Close() error {
	err := c.Flush(context.Background())
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if cerr := c.root.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("cache: %w", cerr)
	}
	return err
}

// Dir returns the cache directory.
func (c *Cache) Dir() string { return c.dir }

func emptyIndex() ocispec.Index {
	return ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{}}
}

// createIfMissing writes data to name atomically unless name exists.
func (c *Cache) createIfMissing(name string, data []byte) error {
	if _, err := c.root.Lstat(name); err == nil {
		return nil
	}
	if err := c.writeAtomic(name, data); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// blobPath is where desc's blob is kept, relative to the root; desc's
// digest must be valid.
func blobPath(d digest.Digest) string {
	return path.Join(ocispec.ImageBlobsDir, d.Algorithm().String(), d.Encoded())
}

// has reports whether the cache holds a blob of desc's digest and size.
func (c *Cache) has(desc ocispec.Descriptor) bool {
	if desc.Digest.Validate() != nil {
		return false
	}
	fi, err := c.root.Stat(blobPath(desc.Digest))
	return err == nil && fi.Mode().IsRegular() && fi.Size() == desc.Size
}

// Fetch implements oci.Fetcher for the cached blobs: it opens desc's blob,
// or fails with an error wrapping oci.ErrNotFound when the cache does not
// hold it (or holds a file of another size, which it removes, or a file
// that is not a regular one, such as a FIFO, which it does not open). The
// reader verifies the blob as it is read: at its end, bytes that do not
// match the digest fail with oci.ErrDigestMismatch and the file is
// removed. A hit marks the blob as recently used.
func (c *Cache) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := desc.Digest.Validate(); err != nil {
		return nil, fmt.Errorf("cache: %w: %v", oci.ErrInvalidDescriptor, err)
	}
	name := blobPath(desc.Digest)
	f, fi, err := c.openRegular(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("cache: %s: %w", desc.Digest, oci.ErrNotFound)
		}
		if errors.Is(err, oci.ErrNotRegularFile) {
			return nil, fmt.Errorf("cache: %s: %w (%w)", desc.Digest, oci.ErrNotFound, err)
		}
		return nil, fmt.Errorf("cache: %s: %w (%v)", desc.Digest, oci.ErrNotFound, err)
	}
	if fi.Size() != desc.Size {
		f.Close()
		c.root.Remove(name)
		return nil, fmt.Errorf("cache: %s: %w (cached file has another size)", desc.Digest, oci.ErrNotFound)
	}
	now := c.now()
	_ = c.root.Chtimes(name, now, now) // least recently used: the mtime is the last use
	return &hitReader{c: c, f: f, name: name, desc: desc, h: desc.Digest.Algorithm().Hash()}, nil
}

// hitReader verifies a cached blob as it is read and removes it when it no
// longer matches its digest.
type hitReader struct {
	c    *Cache
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
	if r.n > r.desc.Size || err == io.EOF && (r.n != r.desc.Size || digest.NewDigest(r.desc.Digest.Algorithm(), r.h) != r.desc.Digest) {
		r.c.root.Remove(r.name)
		return n, fmt.Errorf("cache: %s: %w (the cached file was altered; removed)", r.desc.Digest, oci.ErrDigestMismatch)
	}
	return n, err
}

func (r *hitReader) Close() error { return r.f.Close() }

// Put stores the blob read from r under desc, verified: the bytes are
// written to a temporary file, checked against desc's digest and size, and
// renamed into place. A blob already cached is not written again.
func (c *Cache) Put(ctx context.Context, desc ocispec.Descriptor, r io.Reader) error {
	if c.has(desc) || desc.Size > c.maxSize {
		return nil
	}
	v, err := oci.FetchVerified(ctx, readerFetcher{r}, desc, oci.WithLimits(oci.Limits{MaxBlobBytes: c.maxSize}))
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
	name string
	h    hash.Hash
	n    int64
	done bool
}

func (c *Cache) newWriter(desc ocispec.Descriptor) (*blobWriter, error) {
	dir := path.Dir(blobPath(desc.Digest))
	if err := c.root.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	// The blob counts against the bound from now: an interrupted write
	// leaves a temporary file that the next scan counts until it removes
	// it.
	if err := c.reserve(desc.Size); err != nil {
		return nil, err
	}
	f, name, err := c.createTemp(dir)
	if err != nil {
		c.release(desc.Size)
		return nil, fmt.Errorf("cache: %w", err)
	}
	return &blobWriter{c: c, desc: desc, f: f, name: name, h: desc.Digest.Algorithm().Hash()}, nil
}

func (w *blobWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.n > w.desc.Size {
		return 0, fmt.Errorf("%w: blob is longer than %d bytes", oci.ErrSizeMismatch, w.desc.Size)
	}
	w.h.Write(p)
	return w.f.Write(p)
}

// abort removes the temporary file; it may be called more than once.
func (w *blobWriter) abort() {
	if w.done {
		return
	}
	w.done = true
	w.f.Close()
	w.c.root.Remove(w.name)
	w.c.release(w.desc.Size)
}

// commit verifies what was written and renames it into place.
func (w *blobWriter) commit() error {
	if w.n != w.desc.Size || digest.NewDigest(w.desc.Digest.Algorithm(), w.h) != w.desc.Digest {
		w.abort()
		return fmt.Errorf("cache: %s: %w", w.desc.Digest, oci.ErrDigestMismatch)
	}
	w.done = true
	if err := w.f.Close(); err != nil {
		w.c.root.Remove(w.name)
		w.c.release(w.desc.Size)
		return fmt.Errorf("cache: %w", err)
	}
	if err := w.c.root.Rename(w.name, blobPath(w.desc.Digest)); err != nil {
		w.c.root.Remove(w.name)
		w.c.release(w.desc.Size)
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// ReadThrough returns an oci.Fetcher that reads a blob from the cache when
// it holds it (no call to upstream), and otherwise from upstream, storing
// the bytes in the cache as they are read: once the whole blob has been
// read and matches its digest and size it is renamed into place; a blob not
// read to its end, or that does not match, is not kept (its temporary file
// is removed when the reader is closed or fails). The bytes are passed on
// as upstream gave them (the readers of package oci verify them).
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

// teeReader copies what it reads into a blobWriter and commits it at EOF;
// any other end (an error, a Close before EOF) removes the temporary file.
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
	if !t.done && err != nil {
		t.done = true
		if err == io.EOF {
			_ = t.w.commit() // a mismatch is the reader's to report
		} else {
			t.w.abort()
		}
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

// Size returns the bytes of the cached blobs and of the temporary files
// being written, from a scan of the directory.
func (c *Cache) Size() (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	blobs, temps, err := c.scan()
	if err != nil {
		return 0, err
	}
	var n int64
	for _, b := range blobs {
		n += b.size
	}
	return n + temps, nil
}

type cachedBlob struct {
	name  string // relative to the root
	d     digest.Digest
	size  int64
	mtime time.Time
}

// scan lists the cached blobs, removes the temporary files no process is
// writing, and returns the bytes of the others. It is the only walk of the
// blob directory; it runs when the cache is opened and when it goes
// over its bound.
func (c *Cache) scan() ([]cachedBlob, int64, error) {
	c.scans++
	algs, err := c.readDir(ocispec.ImageBlobsDir)
	if err != nil {
		return nil, 0, fmt.Errorf("cache: %w", err)
	}
	var out []cachedBlob
	var temps int64
	for _, a := range algs {
		if !a.IsDir() {
			continue
		}
		dir := path.Join(ocispec.ImageBlobsDir, a.Name())
		ents, err := c.readDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.Type().IsRegular() {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue
			}
			name := path.Join(dir, e.Name())
			if isTemp(e.Name()) {
				if c.orphaned(name, fi.ModTime()) {
					c.root.Remove(name)
				} else {
					temps += fi.Size()
				}
				continue
			}
			if e.Name()[0] == '.' {
				continue
			}
			out = append(out, cachedBlob{name: name, d: digest.NewDigestFromEncoded(digest.Algorithm(a.Name()), e.Name()), size: fi.Size(), mtime: fi.ModTime()})
		}
	}
	// index.json's temporary files, in the root.
	if ents, err := c.readDir("."); err == nil {
		for _, e := range ents {
			if e.Type().IsRegular() && isTemp(e.Name()) {
				if fi, err := e.Info(); err == nil && c.orphaned(e.Name(), fi.ModTime()) {
					c.root.Remove(e.Name())
				}
			}
		}
	}
	return out, temps, nil
}

// readDir lists a directory under the root.
func (c *Cache) readDir(name string) ([]fs.DirEntry, error) {
	f, err := c.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// reserve counts n bytes about to be written against the size bound,
// evicting the least recently used blobs when they take the cache over
// it. The size is known from one scan and kept up to date by this
// process's writes; another process's writes are seen at the next scan.
func (c *Cache) reserve(n int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.sizeLocked(); err != nil {
		return err
	}
	c.size += n
	if c.size <= c.maxSize {
		return nil
	}
	return c.evictLocked(n)
}

// sizeLocked counts the cache's bytes with a scan (which removes the
// temporary files of interrupted writes), once. c.mu is held.
func (c *Cache) sizeLocked() error {
	if c.sized {
		return nil
	}
	blobs, temps, err := c.scan()
	if err != nil {
		return err
	}
	c.size = temps
	for _, b := range blobs {
		c.size += b.size
	}
	c.sized = true
	return nil
}

// release uncounts n bytes of a write that was not kept.
func (c *Cache) release(n int64) {
	c.mu.Lock()
	c.size -= n
	c.mu.Unlock()
}

// evictLocked removes the least recently used blobs until the cache
// (with the incoming bytes) is under seven eighths of its bound, and the
// index entries whose manifest was removed. c.mu is held.
func (c *Cache) evictLocked(incoming int64) error {
	blobs, temps, err := c.scan()
	if err != nil {
		return err
	}
	total := temps + incoming
	for _, b := range blobs {
		total += b.size
	}
	target := c.maxSize - c.maxSize/8
	sort.Slice(blobs, func(i, j int) bool { return blobs[i].mtime.Before(blobs[j].mtime) })
	removed := map[digest.Digest]bool{}
	for _, b := range blobs {
		if total <= target {
			break
		}
		if err := c.root.Remove(b.name); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= b.size
			removed[b.d] = true
		}
	}
	c.size = total
	if len(removed) > 0 {
		c.refreshLocked()
		if c.tags.dropDigests(removed) {
			return c.compactLocked()
		}
	}
	return nil
}
