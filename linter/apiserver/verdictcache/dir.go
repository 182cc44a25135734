// Package verdictcache holds two implementations of apiserver.Cache, the
// store of the API server's verdicts (linter/apiserver.WithCache):
// Dir, a directory that several processes can share, and Registry, a
// repository of an OCI registry that every worker of a fleet can share.
//
// Both treat what they read as untrusted. Dir reads its directory as
// package oci reads a layout it did not write: through os.Root, regular
// files only (a FIFO or device named like an entry is a miss, without
// blocking), every entry bounded. Registry reads an entry through a tag's
// manifest, both bounded and verified against their digests. Whatever an
// entry holds, package apiserver checks it again (its key, its checksum,
// its bounds): a bad entry is a miss, never a verdict.
package verdictcache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/safefile"
)

// Defaults and bounds of a Dir.
const (
	// DefaultMaxSize is Dir's default size bound: 256 MiB.
	DefaultMaxSize = 256 << 20
	// MaxEntrySize bounds an entry: a larger one is neither stored nor
	// read.
	MaxEntrySize = 256 << 10
	// entryOverhead is what each entry is charged beyond its bytes (its
	// inode and directory entry), so that many tiny entries count too.
	entryOverhead = 512
	// staleTemp is the age past which a temporary file is taken as left
	// by an interrupted process.
	staleTemp = time.Hour
	// tempPrefix starts the name of every temporary file.
	tempPrefix = ".tmp-"
)

// ErrInvalidKey is returned by Put for a key that is not 1 to 128
// lower-case letters, digits, '-' or '_' (the keys of package apiserver
// are hex digests).
var ErrInvalidKey = errors.New("verdictcache: invalid key")

// errClosed is the error of a Put on a closed Dir.
var errClosed = errors.New("verdictcache: closed")

// validKey reports whether key is usable as a file name and a tag.
func validKey(key string) bool {
	if len(key) == 0 || len(key) > 128 {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return key[0] != '-' && key[0] != '_'
}

// Dir is a directory of entries: each in a file named by its key, in a
// subdirectory named by the key's first two characters. It is safe for
// concurrent use by several goroutines and by several processes sharing
// the directory: an entry is written to a new temporary file (created
// exclusively) beside it and renamed into place, so a reader sees a whole
// entry or none. The directory is kept under a size bound by removing the
// entries least recently used first (a hit renews an entry's time).
type Dir struct {
	dir     string
	root    *os.Root
	maxSize int64
	now     func() time.Time

	mu      sync.Mutex // guards what follows
	sized   bool       // size counts the directory's entries as of a scan, plus this process's writes since
	size    int64
	written int64 // bytes this process wrote since the last scan
	closed  bool
	// shards holds the root of each subdirectory of entries (their
	// keys' first two characters) opened so far: an entry's operations
	// name it relative to its shard, without looking up the shard's
	// path each time (an entry written cost about 17 system calls
	// through the top root, 10 through its shard's).
	shards map[string]*os.Root

	scans int // for the tests of linear cost
}

// DirOption configures OpenDir.
type DirOption func(*Dir)

// WithMaxSize bounds the bytes of the directory's entries and temporary
// files, each charged 512 bytes more (default DefaultMaxSize). When a new
// entry takes the directory over it, the least recently used entries are
// removed until it is at seven eighths of the bound. Several processes
// writing at once may each go over it by what they wrote since they last
// counted (at most an eighth of the bound) until one of them evicts.
func WithMaxSize(n int64) DirOption { return func(d *Dir) { d.maxSize = n } }

// OpenDir opens the directory dir, creating it when it is missing. Options:
// WithMaxSize. Nothing is read until the first Get or Put: the size is
// counted by one scan at the first Put (a run that only hits writes
// nothing and scans nothing). The Dir holds the directory open until
// Close.
func OpenDir(dir string, opts ...DirOption) (*Dir, error) {
	d := &Dir{dir: dir, maxSize: DefaultMaxSize, now: time.Now}
	for _, o := range opts {
		if o != nil {
			o(d)
		}
	}
	if d.maxSize <= 0 {
		d.maxSize = DefaultMaxSize
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("verdictcache: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("verdictcache: %w", err)
	}
	d.root = root
	return d, nil
}

// Close releases the directory. The Dir must not be used after Close.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	for _, r := range d.shards {
		r.Close()
	}
	d.shards = nil
	if err := d.root.Close(); err != nil {
		return fmt.Errorf("verdictcache: %w", err)
	}
	return nil
}

// Dir returns the directory.
func (d *Dir) Dir() string { return d.dir }

// Get returns the entry stored under key when it is a regular file of at
// most MaxEntrySize bytes, and renews its time (for eviction). Anything
// else (no entry, a link out of the directory, a FIFO, a directory, an
// entry too large, a read error) is a miss.
func (d *Dir) Get(ctx context.Context, key string) ([]byte, bool) {
	if !validKey(key) || len(key) < 2 || ctx.Err() != nil {
		return nil, false
	}
	shard, err := d.shard(key[:2], false)
	if err != nil {
		return nil, false
	}
	fi, err := shard.Lstat(key)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxEntrySize {
		return nil, false
	}
	f, err := shard.OpenFile(key, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxEntrySize {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxEntrySize+1))
	if err != nil || len(b) > MaxEntrySize {
		return nil, false
	}
	// Renew its time, so eviction removes the least recently used
	// entries; failing to is no miss.
	now := d.now()
	_ = shard.Chtimes(key, now, now)
	return b, true
}

// Put stores value under key: written to a temporary file beside the
// entry, created exclusively, then renamed over it. A value larger than
// MaxEntrySize is not stored (no error). When the directory goes over its
// bound, the least recently used entries are removed first.
func (d *Dir) Put(ctx context.Context, key string, value []byte) error {
	if !validKey(key) || len(key) < 2 {
		return fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(value) > MaxEntrySize {
		return nil
	}
	n := int64(len(value)) + entryOverhead
	if err := d.reserve(ctx, n); err != nil {
		return err
	}
	shard, err := d.shard(key[:2], true)
	if err != nil {
		return fmt.Errorf("verdictcache: %w", err)
	}
	f, tmp, err := safefile.CreateTempIn(shard, ".", tempPrefix)
	if err != nil {
		// The shard may have been removed since it was opened (the
		// cache emptied by hand, another process): open it again, once.
		d.forget(key[:2], shard)
		if shard, err = d.shard(key[:2], true); err == nil {
			f, tmp, err = safefile.CreateTempIn(shard, ".", tempPrefix)
		}
	}
	if err != nil {
		return fmt.Errorf("verdictcache: %w", err)
	}
	_, err = f.Write(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = shard.Rename(tmp, key)
	}
	if err != nil {
		shard.Remove(tmp)
		return fmt.Errorf("verdictcache: %w", err)
	}
	return nil
}

// forget closes the shard r of the subdirectory name, so that the next
// use opens it again.
func (d *Dir) forget(name string, r *os.Root) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shards[name] == r {
		delete(d.shards, name)
		r.Close()
	}
}

// shard returns the root of the subdirectory name of the directory,
// opened once for the life of d; create makes the subdirectory when it is
// not there. A subdirectory that is not one, or that leads out of the
// directory, is an error, as it is to the top root.
func (d *Dir) shard(name string, create bool) (*os.Root, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, errClosed
	}
	if r := d.shards[name]; r != nil {
		return r, nil
	}
	// Opening a FIFO in a directory's place would wait for a writer: only
	// a directory is opened.
	fi, err := d.root.Lstat(name)
	switch {
	case err == nil && !fi.IsDir():
		return nil, fmt.Errorf("%s: not a directory", name)
	case create && errors.Is(err, fs.ErrNotExist):
		if err := d.root.Mkdir(name, 0o755); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	}
	r, err := d.root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	if d.shards == nil {
		d.shards = make(map[string]*os.Root)
	}
	d.shards[name] = r
	return r, nil
}

// reserve charges n bytes against the bound: the directory is counted at
// the first write, again when this process has written an eighth of the
// bound since it last counted (other processes write too), and entries
// are evicted when the count goes over the bound.
func (d *Dir) reserve(ctx context.Context, n int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	if !d.sized || d.written > d.maxSize/8 {
		entries, size, err := d.scan(ctx)
		if err != nil {
			return err
		}
		d.sized, d.size, d.written = true, size, 0
		if d.size+n > d.maxSize {
			return d.evictLocked(ctx, entries, n)
		}
	}
	if d.size+n > d.maxSize {
		entries, size, err := d.scan(ctx)
		if err != nil {
			return err
		}
		d.size, d.written = size, 0
		if d.size+n > d.maxSize {
			return d.evictLocked(ctx, entries, n)
		}
	}
	d.size += n
	d.written += n
	return nil
}

// entry is one file found by a scan.
type entry struct {
	name  string
	size  int64
	mtime time.Time
}

// scan lists the directory's entries and counts their size (each charged
// entryOverhead more); temporary files count too, and those older than
// staleTemp are removed. Anything that is not a regular file is left
// alone and not counted. Its cost is linear in the entries.
func (d *Dir) scan(ctx context.Context) ([]entry, int64, error) {
	d.scans++
	top, err := d.readDir(".")
	if err != nil {
		return nil, 0, fmt.Errorf("verdictcache: %w", err)
	}
	var (
		out  []entry
		size int64
	)
	now := d.now()
	for _, s := range top {
		if !s.IsDir() || len(s.Name()) != 2 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		ents, err := d.readDir(s.Name())
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
			name := s.Name() + "/" + e.Name()
			if strings.HasPrefix(e.Name(), tempPrefix) {
				if now.Sub(fi.ModTime()) > staleTemp {
					d.root.Remove(name)
					continue
				}
				size += fi.Size() + entryOverhead
				continue
			}
			size += fi.Size() + entryOverhead
			out = append(out, entry{name: name, size: fi.Size() + entryOverhead, mtime: fi.ModTime()})
		}
	}
	return out, size, nil
}

// readDir lists a directory under the root, when it is one.
func (d *Dir) readDir(name string) ([]fs.DirEntry, error) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", name)
	}
	f, err := d.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// evictLocked removes the least recently used entries until the directory
// with incoming bytes more is at seven eighths of the bound (d.size as
// counted holds entries).
func (d *Dir) evictLocked(ctx context.Context, entries []entry, incoming int64) error {
	slices.SortFunc(entries, func(a, b entry) int {
		if c := a.mtime.Compare(b.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	goal := d.maxSize - d.maxSize/8
	for _, e := range entries {
		if d.size+incoming <= goal {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := d.root.Remove(e.name); err == nil || errors.Is(err, fs.ErrNotExist) {
			d.size -= e.size
		}
	}
	if d.size+incoming > d.maxSize {
		return fmt.Errorf("verdictcache: %s: cannot make room for %d bytes under %d", d.dir, incoming, d.maxSize)
	}
	d.size += incoming
	d.written += incoming
	return nil
}
