// Package verdictcache holds two implementations of apiserver.Cache, the
// store of the API server's verdicts (linter/apiserver.WithCache):
// Dir, a directory that several processes can share, and Registry, a
// repository of an OCI registry that every worker of a fleet can share.
//
// Dir keeps its entries in packs: a run's entries are held in memory and
// written together, a few MiB at a time and at Close, as one file each,
// so that a run creates a few files, not one per entry. An entry is
// visible to other processes once the pack holding it is written (at
// Close, or when the entries held pass a few MiB), not at Put.
//
// Both treat what they read as untrusted. Dir reads its directory as
// package oci reads a layout it did not write: through os.Root, regular
// files only (a FIFO or device named like a pack is no pack, without
// blocking), every read bounded, every pack and entry checked against its
// checksum. Registry reads an entry through a tag's manifest, both
// bounded and verified against their digests. Whatever an entry holds,
// package apiserver checks it again (its key, its checksum, its bounds):
// a bad entry is a miss, never a verdict.
package verdictcache

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math/rand/v2"
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
	// maxEntrySize bounds an entry: a larger one is neither stored nor
	// read.
	maxEntrySize = 256 << 10
	// maxKeyLen bounds a key.
	maxKeyLen = 128
	// packOverhead is what each pack is charged beyond its bytes (its
	// inode, directory entry and last block).
	packOverhead = 4 << 10
	// flushBytes is how many bytes of entries a Dir holds in memory
	// before it writes them as a pack (at most an eighth of its bound).
	flushBytes = 4 << 20
	// maxPacksRead bounds the packs a Dir reads the tables of (the most
	// recently used first), and maxKeysRead the keys it reads in them:
	// entries past them are misses.
	maxPacksRead = 64
	maxKeysRead  = 1 << 18
	// compactAt is the count of packs at which writing a pack first
	// merges the smallest ones into one, leaving compactTo.
	compactAt = 16
	compactTo = 8
	// mergeReadAll is the size of records up to which a merge reads a
	// pack's records in one call.
	mergeReadAll = 8 << 20
	// maxListed bounds the names of the directory a listing looks at.
	maxListed = 1 << 17
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

// errClosed is returned by Put after Close.
var errClosed = errors.New("verdictcache: closed")

// validKey reports whether key (a key, or a key's bytes in a pack) is
// usable as a file name and a tag.
func validKey[K string | []byte](key K) bool {
	if len(key) == 0 || len(key) > maxKeyLen {
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

// Dir is a directory of packs, each a file of many entries. It is safe
// for concurrent use by several goroutines and by several processes
// sharing the directory.
//
// Put holds the entries of this process in memory, where Get finds them
// at once. They are written as one pack when they pass a few MiB, and at
// Close: to a new temporary file (created exclusively) that is renamed
// into place, so a reader sees a whole pack or none. Only then are they
// visible to other processes; the entries of a process that never
// closes its Dir are lost, never half written.
//
// Get reads the tables of the packs in the directory once, at its first
// call (at most 64 packs, the most recently used first, and 2^18 keys:
// the rest is a miss), and then an entry with one read, checked against
// its checksum. A pack written by another process after that is not
// read. A hit renews its pack's time, once per process.
//
// Writing a pack keeps the directory under its size bound by removing
// the least recently used packs first, and, when 16 packs or more pile
// up (many small runs), merges the smallest into one, so that the packs
// a Get reads stay few.
type Dir struct {
	dir     string
	root    *os.Root
	maxSize int64
	flushAt int
	now     func() time.Time
	seed    maphash.Seed

	mu      sync.Mutex // guards what follows
	closed  bool
	buf     []byte          // the pending entries' records, after the pack's magic
	pending map[string]span // where each pending entry is in buf
	loaded  bool            // the packs' tables were read
	packs   []*openPack     // the packs read or written, by index
	index   map[uint64]loc  // a key's hash to its entry
	keys    int             // keys read

	scans int // for the tests of linear cost
}

// span is a pending entry's place in Dir.buf.
type span struct{ off, n int }

// openPack is a pack this process reads.
type openPack struct {
	name    string
	f       *os.File  // nil once this process evicted it
	renewed bool      // its time was renewed by this process
	used    time.Time // when this process last read it (zero: never)
}

// loc is an entry in a pack.
type loc struct {
	pack int32
	n    uint32
	off  int64
	sum  uint32
}

// Option configures OpenDir.
type Option func(*config)

// config is what the options set.
type config struct {
	maxSize int64
}

// WithMaxSize bounds the bytes of the directory's packs and temporary
// files, each charged 4 KiB more (default DefaultMaxSize). When writing a
// pack would take the directory over it, the least recently used packs
// are removed until it is at seven eighths of the bound. A pack holds at
// most an eighth of the bound (and 4 MiB) of entries, so several
// processes writing at once may each go over it by one pack until one of
// them evicts.
func WithMaxSize(n int64) Option { return func(c *config) { c.maxSize = n } }

// OpenDir opens the directory dir, creating it when it is missing. Options:
// WithMaxSize. Nothing is read until the first Get, and nothing written
// until a pack is (see Dir). The Dir holds the directory open until
// Close, which writes the entries it holds.
func OpenDir(dir string, opts ...Option) (*Dir, error) {
	c := config{maxSize: DefaultMaxSize}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.maxSize <= 0 {
		c.maxSize = DefaultMaxSize
	}
	d := &Dir{dir: dir, maxSize: c.maxSize, flushAt: int(min(flushBytes, c.maxSize/8)), now: time.Now, seed: maphash.MakeSeed()}
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

// Close writes the entries the Dir holds as a pack, which makes them
// visible to other processes, and releases the directory. The Dir must
// not be used after Close. The error is that of writing the pack (the
// entries are then lost) or of releasing the directory.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	err := d.flushLocked(context.Background())
	for _, p := range d.packs {
		if p.f != nil {
			p.f.Close()
			p.f = nil
		}
	}
	if cerr := d.root.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("verdictcache: %w", cerr)
	}
	return err
}

// Dir returns the directory.
func (d *Dir) Dir() string { return d.dir }

// Get returns the entry stored under key: one this process put, or one
// of a pack in the directory whose checksum holds (see Dir for which
// packs are read). Anything else (no entry, a pack that is not a regular
// file or does not hold, an entry whose checksum does not, a read error)
// is a miss.
func (d *Dir) Get(ctx context.Context, key string) ([]byte, bool) {
	if !validKey(key) || ctx.Err() != nil {
		return nil, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, false
	}
	if s, ok := d.pending[key]; ok {
		return slices.Clone(d.buf[s.off : s.off+s.n : s.off+s.n]), true
	}
	if !d.loaded {
		d.loadLocked(ctx)
	}
	l, ok := d.index[maphash.String(d.seed, key)]
	if !ok {
		return nil, false
	}
	p := d.packs[l.pack]
	if p.f == nil {
		return nil, false
	}
	b := make([]byte, l.n)
	if n, err := p.f.ReadAt(b, l.off); n != len(b) || (err != nil && err != io.EOF) {
		return nil, false
	}
	if recordSum([]byte(key), b) != l.sum {
		return nil, false
	}
	// Renew the pack's time, so eviction removes the least recently used
	// packs; failing to is no miss.
	now := d.now()
	p.used = now
	if !p.renewed {
		p.renewed = true
		_ = d.root.Chtimes(p.name, now, now)
	}
	return b, true
}

// Put stores value under key: held in memory (where Get finds it), and
// written in a pack when the entries held pass a few MiB, or at Close
// (see Dir). A value larger than 256 KiB is not stored (no error). The
// error is that of writing a pack, when Put writes one.
func (d *Dir) Put(ctx context.Context, key string, value []byte) error {
	if !validKey(key) {
		return fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(value) > maxEntrySize {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	if d.pending == nil {
		d.pending = map[string]span{}
		d.buf = append(make([]byte, 0, min(64<<10, d.flushAt+len(packMagic))), packMagic...)
	}
	d.pending[key] = span{len(d.buf), len(value)}
	d.buf = append(d.buf, value...)
	if len(d.buf) >= d.flushAt {
		return d.flushLocked(ctx)
	}
	return nil
}

// flushLocked writes the pending entries as a pack, after making room
// for it.
func (d *Dir) flushLocked(ctx context.Context) error {
	if len(d.pending) == 0 {
		return nil
	}
	buf, pending := d.buf, d.pending
	d.buf, d.pending = nil, nil
	keys := make([]string, 0, len(pending))
	for k := range pending {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	tableOff := int64(len(buf))
	var table []byte
	ents := make([]tableEntry, 0, len(keys))
	for _, k := range keys {
		s := pending[k]
		e := tableEntry{key: []byte(k), off: int64(s.off), n: uint32(s.n), sum: recordSum([]byte(k), buf[s.off:s.off+s.n])}
		ents = append(ents, e)
		table = appendTableEntry(table, e)
	}
	buf = append(buf, table...)
	buf = appendFooter(buf, tableOff, table, len(keys))
	if err := d.makeRoom(ctx, int64(len(buf))+packOverhead); err != nil {
		return err
	}
	name, f, err := d.writePack(buf)
	if err != nil {
		return err
	}
	if !d.loaded {
		// The first Get lists the directory, this pack included.
		f.Close()
		return nil
	}
	d.addPack(name, f, ents)
	return nil
}

// addPack adds the pack name, open as f, with the table ents, to the
// index; its entries replace those of the same keys.
func (d *Dir) addPack(name string, f *os.File, ents []tableEntry) {
	i := int32(len(d.packs))
	d.packs = append(d.packs, &openPack{name: name, f: f})
	for _, e := range ents {
		h := maphash.Bytes(d.seed, e.key)
		if _, ok := d.index[h]; !ok {
			if d.keys >= maxKeysRead {
				continue
			}
			d.keys++
		}
		d.index[h] = loc{pack: i, n: e.n, off: e.off, sum: e.sum}
	}
}

// writePack writes b as a new pack: to a temporary file created
// exclusively, renamed into place. It returns the pack's name and the
// file, open.
func (d *Dir) writePack(b []byte) (string, *os.File, error) {
	f, tmp, err := safefile.CreateTempIn(d.root, ".", tempPrefix)
	if err != nil {
		return "", nil, fmt.Errorf("verdictcache: %w", err)
	}
	name := packName(d.now().UnixNano(), rand.Uint64())
	_, err = f.Write(b)
	if err == nil {
		err = d.root.Rename(tmp, name)
	}
	if err != nil {
		f.Close()
		d.root.Remove(tmp)
		return "", nil, fmt.Errorf("verdictcache: %w", err)
	}
	return name, f, nil
}

// loadLocked reads the tables of the packs in the directory, the most
// recently used first, within maxPacksRead and maxKeysRead. What cannot
// be read is left out.
func (d *Dir) loadLocked(ctx context.Context) {
	d.loaded = true
	d.index = map[uint64]loc{}
	packs, _, err := d.list(ctx, false)
	if err != nil {
		return
	}
	slices.SortFunc(packs, func(a, b packInfo) int { return -a.compare(b) })
	for _, pi := range packs[:min(len(packs), maxPacksRead)] {
		if d.keys >= maxKeysRead || ctx.Err() != nil {
			return
		}
		f, size, err := d.openPack(pi.name)
		if err != nil {
			continue
		}
		ents, err := readTable(f, size, maxKeysRead-d.keys)
		if err != nil {
			f.Close()
			continue
		}
		i := int32(len(d.packs))
		d.packs = append(d.packs, &openPack{name: pi.name, f: f})
		// The most recently used first: an entry of a newer pack is
		// kept over the same key's in an older one.
		for _, e := range ents {
			h := maphash.Bytes(d.seed, e.key)
			if _, ok := d.index[h]; ok {
				continue
			}
			d.index[h] = loc{pack: i, n: e.n, off: e.off, sum: e.sum}
			d.keys++
		}
	}
}

// packInfo is a pack found by a listing.
type packInfo struct {
	name  string
	size  int64 // with packOverhead
	mtime time.Time
}

// compare orders packs from the least recently used (by their time, then
// their names, which begin with their creation time).
func (a packInfo) compare(b packInfo) int {
	if c := a.mtime.Compare(b.mtime); c != 0 {
		return c
	}
	return strings.Compare(a.name, b.name)
}

// list lists the packs of the directory (regular files named as packs),
// and counts their size and that of the temporary files, each charged
// packOverhead more. With clean, temporary files older than staleTemp
// are removed. Anything else is left alone and not counted. At most
// maxListed names are looked at.
func (d *Dir) list(ctx context.Context, clean bool) ([]packInfo, int64, error) {
	d.scans++
	dir, err := d.root.Open(".")
	if err != nil {
		return nil, 0, fmt.Errorf("verdictcache: %w", err)
	}
	defer dir.Close()
	var (
		out  []packInfo
		size int64
		seen int
	)
	now := d.now()
	for seen < maxListed {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		ents, err := dir.ReadDir(1024)
		for _, e := range ents {
			seen++
			name := e.Name()
			isTemp := strings.HasPrefix(name, tempPrefix)
			if !e.Type().IsRegular() || !isTemp && !isPackName(name) {
				continue
			}
			fi, err := e.Info()
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if isTemp && clean && now.Sub(fi.ModTime()) > staleTemp {
				d.root.Remove(name)
				continue
			}
			size += fi.Size() + packOverhead
			if !isTemp {
				out = append(out, packInfo{name: name, size: fi.Size() + packOverhead, mtime: fi.ModTime()})
			}
		}
		if err == io.EOF || len(ents) == 0 {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("verdictcache: %w", err)
		}
	}
	return out, size, nil
}

// makeRoom readies the directory for a pack of incoming bytes: it lists
// it, merges the smallest packs when compactAt or more pile up, and
// removes the least recently used packs (this process's reads count) when
// the pack would take it over its bound, until it is at seven eighths of
// it.
func (d *Dir) makeRoom(ctx context.Context, incoming int64) error {
	packs, size, err := d.list(ctx, true)
	if err != nil {
		return err
	}
	if len(packs)+1 >= compactAt {
		packs, size = d.compact(ctx, packs, size)
	}
	if size+incoming <= d.maxSize {
		return nil
	}
	used := map[string]*openPack{}
	for _, p := range d.packs {
		used[p.name] = p
	}
	lastUse := func(pi packInfo) packInfo {
		if p := used[pi.name]; p != nil && p.used.After(pi.mtime) {
			pi.mtime = p.used
		}
		return pi
	}
	slices.SortFunc(packs, func(a, b packInfo) int { return lastUse(a).compare(lastUse(b)) })
	goal := d.maxSize - d.maxSize/8
	for _, pi := range packs {
		if size+incoming <= goal {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := d.root.Remove(pi.name); err == nil || errors.Is(err, os.ErrNotExist) {
			size -= pi.size
			if p := used[pi.name]; p != nil && p.f != nil {
				p.f.Close()
				p.f = nil
			}
		}
	}
	if size+incoming > d.maxSize {
		return fmt.Errorf("verdictcache: %s: cannot make room for %d bytes under %d", d.dir, incoming, d.maxSize)
	}
	return nil
}

// compact merges the smallest packs into one, leaving compactTo, and
// returns the packs and size after. The merged pack keeps the newest
// entry of each key whose record's checksum holds (at most maxKeysRead,
// with a table of at most maxTableBytes), and the time of the most
// recently used pack merged. A merged pack that does not hold is removed
// with the others. When the merge fails, nothing is removed.
func (d *Dir) compact(ctx context.Context, packs []packInfo, size int64) ([]packInfo, int64) {
	slices.SortFunc(packs, func(a, b packInfo) int {
		return cmp.Or(cmp.Compare(a.size, b.size), a.compare(b))
	})
	n := len(packs) - compactTo + 1
	merge, keep := slices.Clone(packs[:n]), packs[n:]
	// The most recently used first, so that its entry of a key is kept.
	slices.SortFunc(merge, func(a, b packInfo) int { return -a.compare(b) })
	f, tmp, err := safefile.CreateTempIn(d.root, ".", tempPrefix)
	if err != nil {
		return packs, size
	}
	var (
		w       = newPackWriter(f)
		seen    = map[uint64]bool{}
		record  []byte // a record read alone
		whole   []byte // the records of a pack read at once
		removed []packInfo
	)
	for _, pi := range merge {
		if ctx.Err() != nil {
			break
		}
		src, srcSize, err := d.openPack(pi.name)
		if err != nil {
			continue // gone, or not a regular file: not ours to remove
		}
		ents, err := readTable(src, srcSize, maxKeysRead)
		if err == nil {
			// The records of a pack of at most mergeReadAll bytes are
			// read in one call, the others one by one.
			var all []byte
			if end := recordsEnd(ents); end <= mergeReadAll {
				all = slices.Grow(whole[:0], int(end))[:end]
				whole = all
				if n, rerr := src.ReadAt(all, 0); int64(n) != end || (rerr != nil && rerr != io.EOF) {
					all = nil
				}
			}
			for _, e := range ents {
				h := maphash.Bytes(d.seed, e.key)
				if seen[h] || !w.fits(e) {
					continue
				}
				if all != nil {
					record = all[e.off : e.off+int64(e.n)]
				} else {
					record = slices.Grow(record[:0], int(e.n))[:e.n]
					if n, rerr := src.ReadAt(record, e.off); n != len(record) || (rerr != nil && rerr != io.EOF) {
						continue
					}
				}
				if recordSum(e.key, record) != e.sum {
					continue
				}
				seen[h] = true
				w.add(e.key, record)
			}
		}
		src.Close()
		removed = append(removed, pi)
	}
	name := packName(d.now().UnixNano(), rand.Uint64())
	err = w.finish()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && ctx.Err() == nil {
		err = d.root.Rename(tmp, name)
	} else if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		d.root.Remove(tmp)
		return packs, size
	}
	var newest time.Time
	for _, pi := range removed {
		if pi.mtime.After(newest) {
			newest = pi.mtime
		}
		if err := d.root.Remove(pi.name); err == nil || errors.Is(err, os.ErrNotExist) {
			size -= pi.size
		}
	}
	if !newest.IsZero() {
		_ = d.root.Chtimes(name, newest, newest)
	}
	size += w.size + packOverhead
	if w.count == 0 {
		// Nothing held: no pack.
		if err := d.root.Remove(name); err == nil {
			size -= w.size + packOverhead
		}
		return keep, size
	}
	return append(keep, packInfo{name: name, size: w.size + packOverhead, mtime: newest}), size
}

// recordsEnd is where the last of ents' records ends.
func recordsEnd(ents []tableEntry) int64 {
	var end int64
	for _, e := range ents {
		end = max(end, e.off+int64(e.n))
	}
	return end
}
