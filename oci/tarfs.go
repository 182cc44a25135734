package oci

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/internal/tarpath"
	"github.com/xpkgkit/xpkgkit/limit"
)

var gzipMagic = []byte{0x1f, 0x8b}

// maxArchiveName is the longest entry name an archive's index keeps: the
// names of layouts and docker archives are short, and a PAX name may take a
// MiB, which the index must not keep for every entry.
const maxArchiveName = 4096

// tarEntry is a regular file of an archive.
type tarEntry struct {
	name   string
	offset int64 // of the data, in the (decompressed) tar stream
	size   int64
}

// tarFS is a read-only fs.FS over the regular files of a tar held in an
// io.ReaderAt. It is built in one pass over the archive's headers, which
// seeks over file contents, so only headers are read; each file is later
// read in place through an io.SectionReader. A gzip-compressed tar is first
// decompressed once into a spool (memory, or a temporary file past
// spoolMemMax bytes; at most MaxImageBytes bytes), which is then read the
// same way: the cost of reading a gzip-compressed archive is linear in its
// decompressed size, whatever the order of the reads.
type tarFS struct {
	ra      io.ReaderAt
	size    int64
	entries map[string]*tarEntry
	spool   *spool // nil for a plain tar
}

// sniffGzip reports whether the content of ra starts with the gzip magic.
func sniffGzip(ra io.ReaderAt, size int64) bool {
	var b [2]byte
	if size < 2 {
		return false
	}
	if _, err := ra.ReadAt(b[:], 0); err != nil {
		return false
	}
	return bytes.Equal(b[:], gzipMagic)
}

// indexTar indexes the tar (plain or gzip-compressed) in ra. The caller
// closes the tarFS when done with it (which releases the spool of a
// gzip-compressed tar).
func indexTar(ctx context.Context, ra io.ReaderAt, size int64, lim Limits) (*tarFS, error) {
	if !sniffGzip(ra, size) {
		return indexPlainTar(ctx, ra, size, lim)
	}
	sp, n, err := spoolGzip(ctx, ra, size, lim)
	if err != nil {
		return nil, err
	}
	t, err := indexPlainTar(ctx, sp, n, lim)
	if err != nil {
		sp.Close()
		return nil, err
	}
	t.spool = sp
	return t, nil
}

// indexPlainTar indexes the plain tar in ra.
func indexPlainTar(ctx context.Context, ra io.ReaderAt, size int64, lim Limits) (*tarFS, error) {
	t := &tarFS{ra: ra, size: size, entries: map[string]*tarEntry{}}
	sr := io.NewSectionReader(ra, 0, size)
	tr := tar.NewReader(sr)
	var count int
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: tar: %v", ErrMalformed, err)
		}
		count++
		if count > lim.MaxTarEntries {
			return nil, limitErr(limitval.MaxTarEntries, lim.MaxTarEntries)
		}
		//lint:ignore SA1019 old tar writers still emit TypeRegA ('\x00') for regular files
		if hdr.Typeflag != tar.TypeReg && hdr.Typeflag != tar.TypeRegA || isSparse(hdr) || len(hdr.Name) > maxArchiveName {
			continue // not kept: the index holds short names only
		}
		name, ok := tarpath.Clean(hdr.Name)
		if !ok || name == "." {
			continue
		}
		// A copy, kept as the key and the name: the name may share the
		// memory of a PAX header of a MiB.
		name = strings.Clone(name)
		if _, dup := t.entries[name]; dup {
			return nil, fmt.Errorf("%w: %s", ErrDuplicateEntry, safetext.Quote(name))
		}
		off, _ := sr.Seek(0, io.SeekCurrent)
		e := &tarEntry{name: name, offset: off, size: hdr.Size}
		if e.offset+e.size > size {
			return nil, fmt.Errorf("%w: tar entry %s extends past the end of the archive", ErrMalformed, safetext.Quote(name))
		}
		t.entries[name] = e
	}
	if count == 0 {
		return nil, fmt.Errorf("%w: empty or not a tar archive", ErrMalformed)
	}
	return t, nil
}

// Close releases the spool of a gzip-compressed tar.
func (t *tarFS) Close() error {
	if t.spool == nil {
		return nil
	}
	return t.spool.Close()
}

// isSparse reports whether hdr is a GNU sparse file, whose data section does
// not hold the file's bytes in order.
func isSparse(hdr *tar.Header) bool {
	if hdr.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

func (t *tarFS) has(name string) bool {
	_, ok := t.entries[name]
	return ok
}

// Open implements fs.FS for the archive's regular files.
func (t *tarFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	e, ok := t.entries[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &tarFile{e: e, r: io.NewSectionReader(t.ra, e.offset, e.size)}, nil
}

// tarFile is an open regular file of a tarFS.
type tarFile struct {
	e      *tarEntry
	r      io.Reader
	closed atomic.Bool
}

func (f *tarFile) Read(p []byte) (int, error) {
	if f.closed.Load() {
		return 0, fs.ErrClosed
	}
	return f.r.Read(p)
}

func (f *tarFile) Close() error {
	f.closed.Store(true) // atomic: a Close may come during a Read
	return nil
}

func (f *tarFile) Stat() (fs.FileInfo, error) { return tarFileInfo{f.e}, nil }

type tarFileInfo struct{ e *tarEntry }

func (i tarFileInfo) Name() string       { return i.e.name[strings.LastIndexByte(i.e.name, '/')+1:] }
func (i tarFileInfo) Size() int64        { return i.e.size }
func (i tarFileInfo) Mode() fs.FileMode  { return 0o444 }
func (i tarFileInfo) ModTime() time.Time { return time.Time{} }
func (i tarFileInfo) IsDir() bool        { return false }
func (i tarFileInfo) Sys() any           { return nil }

// countingReader counts the bytes read and fails past a limit.
type countingReader struct {
	r         io.Reader
	n         int64
	limit     int64
	limitName limit.Name
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.limit {
		return n, limitErr(c.limitName, c.limit)
	}
	return n, err
}
