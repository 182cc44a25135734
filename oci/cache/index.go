package cache

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
)

// maxTagAge is how long an entry of a tag (not a digest) is kept without
// being resolved again: an offline run can use it until then.
const maxTagAge = 90 * 24 * time.Hour

// tagIndex is this process's view of index.json and the tag journal: one
// entry per reference, in the order they were resolved.
type tagIndex struct {
	loaded  bool
	other   []ocispec.Descriptor // index.json entries that name no reference
	entries []ocispec.Descriptor // a zero Digest marks an entry replaced since
	pos     map[string]int       // reference -> its entry
	live    int

	index      fileStamp // index.json as last read
	journalOff int64     // journal bytes read
	lines      int       // journal lines read since index.json was read
}

type fileStamp struct {
	size  int64
	mtime time.Time
}

func stamp(fi fs.FileInfo) fileStamp {
	if fi == nil {
		return fileStamp{size: -1}
	}
	return fileStamp{size: fi.Size(), mtime: fi.ModTime()}
}

func (a fileStamp) same(b fileStamp) bool {
	return a.size == b.size && a.mtime.Equal(b.mtime)
}

func (t *tagIndex) reset() {
	*t = tagIndex{loaded: true, pos: map[string]int{}}
}

// add records d, replacing any entry of its reference.
func (t *tagIndex) add(d ocispec.Descriptor) {
	ref := d.Annotations[ocispec.AnnotationRefName]
	if ref == "" || d.Digest.Validate() != nil {
		return
	}
	if i, ok := t.pos[ref]; ok {
		t.entries[i] = ocispec.Descriptor{}
		t.live--
	}
	t.entries = append(t.entries, d)
	t.pos[ref] = len(t.entries) - 1
	t.live++
	if len(t.entries) > 2*t.live+64 {
		t.pack()
	}
}

// pack drops the replaced entries.
func (t *tagIndex) pack() {
	t.entries = slices.DeleteFunc(t.entries, func(d ocispec.Descriptor) bool { return d.Digest == "" })
	clear(t.pos)
	for i, d := range t.entries {
		t.pos[d.Annotations[ocispec.AnnotationRefName]] = i
	}
}

// dropDigests removes the entries of the removed manifests, and reports
// whether there were any.
func (t *tagIndex) dropDigests(removed map[digest.Digest]bool) bool {
	any := false
	for i, d := range t.entries {
		if d.Digest != "" && removed[d.Digest] {
			delete(t.pos, d.Annotations[ocispec.AnnotationRefName])
			t.entries[i] = ocispec.Descriptor{}
			t.live--
			any = true
		}
	}
	return any
}

// refreshLocked brings c.tags up to date with the directory: index.json is
// read again when it changed (another process merged the journal), and
// the journal's new lines are read. Every read is bounded (maxIndexBytes);
// a file that is damaged, too large or not a regular file is forgotten.
// c.mu is held.
func (c *Cache) refreshLocked() {
	t := &c.tags
	fi, err := c.root.Lstat(ocispec.ImageIndexFile)
	if err != nil {
		fi = nil
	}
	if !t.loaded || !t.index.same(stamp(fi)) {
		t.reset()
		t.index = stamp(fi)
		if b, _, err := c.readBounded(ocispec.ImageIndexFile, maxIndexBytes, "MaxIndexBytes"); err == nil {
			var idx ocispec.Index
			if json.Unmarshal(b, &idx) == nil {
				for _, d := range idx.Manifests {
					if d.Annotations[ocispec.AnnotationRefName] == "" {
						if len(t.other) < maxIndexEntries {
							t.other = append(t.other, d)
						}
						continue
					}
					t.add(d)
				}
			}
		}
	}
	c.readJournalLocked()
}

// readJournalLocked reads the journal lines written since the last read.
func (c *Cache) readJournalLocked() {
	t := &c.tags
	f, fi, err := c.openRegular(journalFile)
	if err != nil {
		t.journalOff = 0
		return
	}
	defer f.Close()
	if fi.Size() < t.journalOff {
		t.journalOff = 0 // replaced: read it again (entries are replaced by reference)
	}
	if fi.Size() > maxIndexBytes || fi.Size() == t.journalOff {
		return // too large: forgotten at the next merge
	}
	if _, err := f.Seek(t.journalOff, io.SeekStart); err != nil {
		return
	}
	b, err := io.ReadAll(io.LimitReader(f, maxIndexBytes-t.journalOff))
	if err != nil {
		return
	}
	end := bytes.LastIndexByte(b, '\n')
	if end < 0 {
		return // a line being written
	}
	b = b[:end+1]
	t.journalOff += int64(len(b))
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		var d ocispec.Descriptor
		if json.Unmarshal(line, &d) == nil {
			t.add(d)
		}
		t.lines++
	}
}

// Index implements oci.Store: it returns index.json with the journal's
// entries, the cached references. With it the cache is a Store for
// oci.Resolve (oci.WithReference chooses a reference).
func (c *Cache) Index(ctx context.Context) (ocispec.Index, error) {
	if err := ctx.Err(); err != nil {
		return ocispec.Index{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refreshLocked()
	idx := emptyIndex()
	idx.Manifests = append(idx.Manifests, c.tags.other...)
	for _, d := range c.tags.entries {
		if d.Digest != "" {
			idx.Manifests = append(idx.Manifests, d)
		}
	}
	return idx, nil
}

// Tag records that ref (a full reference, "host/repository:tag" or
// "host/repository@sha256:...") resolved to desc now. The entry is
// appended to the journal (constant work), which is merged into index.json
// once it holds more than an eighth as many entries as the index (so the
// merges cost a constant per tag, and a small index is merged at once),
// replacing older entries of the same references. Several processes updating the cache at
// once never damage it, but one's entry can be lost to another's merge; a
// lost entry only costs a new resolution.
func (c *Cache) Tag(ctx context.Context, ref string, desc ocispec.Descriptor) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entry := ocispec.Descriptor{MediaType: desc.MediaType, Digest: desc.Digest, Size: desc.Size, Platform: desc.Platform,
		Annotations: map[string]string{
			ocispec.AnnotationRefName: ref,
			annotationResolved:        c.now().UTC().Format(time.RFC3339Nano),
		}}
	line, err := json.Marshal(entry)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refreshLocked()
	werr := c.appendJournal(append(line, '\n'))
	c.readJournalLocked()
	if werr != nil {
		c.tags.add(entry) // answered by this process at least
	}
	if (c.tags.lines > c.tags.live/8 || werr != nil) && !c.compactFailed {
		if err := c.compactLocked(); err != nil {
			// Not tried again by Tag (it would cost the whole index per
			// tag): the journal and this process's memory keep the tags.
			c.compactFailed = true
			return err
		}
	}
	return nil
}

// appendJournal appends line to the journal with one write (O_APPEND).
func (c *Cache) appendJournal(line []byte) error {
	if fi, err := c.root.Lstat(journalFile); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", journalFile, oci.ErrNotRegularFile)
	}
	f, err := c.root.OpenFile(journalFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE|openNonBlock, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", journalFile, oci.ErrNotRegularFile)
	}
	_, err = f.Write(line)
	return err
}

// Flush merges the tag journal into index.json, so that other tools that
// read the directory as an OCI layout see every resolved tag.
func (c *Cache) Flush(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.refreshLocked()
	if c.tags.lines == 0 {
		if _, err := c.root.Lstat(journalFile); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	return c.compactLocked()
}

// compactLocked writes index.json from c.tags, keeping the newest
// maxIndexEntries entries and, of tags, those resolved within maxTagAge;
// and removes the journal. (An entry is written before its manifest is
// fetched, so it is kept whether or not the manifest is cached; eviction
// drops the entries of the manifests it removes.) c.mu is held.
func (c *Cache) compactLocked() error {
	t := &c.tags
	now := c.now()
	keep := make([]ocispec.Descriptor, 0, min(t.live, maxIndexEntries))
	for i := len(t.entries) - 1; i >= 0 && len(keep) < maxIndexEntries; i-- {
		d := t.entries[i]
		if d.Digest == "" {
			continue
		}
		ref := d.Annotations[ocispec.AnnotationRefName]
		if !isDigestRef(ref) {
			if at, err := time.Parse(time.RFC3339Nano, d.Annotations[annotationResolved]); err != nil || now.Sub(at) > maxTagAge {
				continue
			}
		}
		keep = append(keep, d)
	}
	slices.Reverse(keep)
	idx := emptyIndex()
	idx.Manifests = append(append(idx.Manifests, t.other...), keep...)
	b, err := json.Marshal(idx)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	c.indexEntriesWritten += len(idx.Manifests)
	if err := c.writeAtomic(ocispec.ImageIndexFile, b); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	_ = c.root.Remove(journalFile)
	other := t.other
	t.reset()
	t.other = other
	for _, d := range keep {
		t.add(d)
	}
	if fi, err := c.root.Lstat(ocispec.ImageIndexFile); err == nil {
		t.index = stamp(fi)
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
	c.mu.Lock()
	c.refreshLocked()
	i, ok := c.tags.pos[ref]
	var d ocispec.Descriptor
	if ok {
		d = c.tags.entries[i]
	}
	c.mu.Unlock()
	if !ok || !c.has(d) {
		return ocispec.Descriptor{}, false, fmt.Errorf("cache: %q: %w", ref, oci.ErrNotFound)
	}
	fresh := isDigestRef(ref)
	if t, err := time.Parse(time.RFC3339Nano, d.Annotations[annotationResolved]); err == nil && c.ttl > 0 {
		fresh = fresh || c.now().Sub(t) < c.ttl
	}
	return ocispec.Descriptor{MediaType: d.MediaType, Digest: d.Digest, Size: d.Size, Platform: d.Platform}, fresh, nil
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
