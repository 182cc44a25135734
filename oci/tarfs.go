package oci

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
)

// Caching of small entries when indexing a gzip-compressed archive: their
// bytes are kept so that reading them later does not decompress the archive
// again from its start.
const (
	tarCacheEntryMax = 256 << 10
	tarCacheTotalMax = 16 << 20
)

var gzipMagic = []byte{0x1f, 0x8b}

// tarEntry is a regular file of an archive.
type tarEntry struct {
	name   string
	offset int64 // of the data, in the (decompressed) tar stream
	size   int64
	cached []byte
}

// tarFS is a read-only fs.FS over the regular files of a tar held in an
// io.ReaderAt. It is built in one pass over the archive's headers. For a plain
// tar the pass seeks over file contents, so only headers are read, and each
// file is later read in place through an io.SectionReader. For a
// gzip-compressed tar the pass decompresses the whole archive once (bounded by
// MaxImageSize) and keeps small files in memory; opening a larger file
// decompresses the archive again from its start up to that file, so reading
// it costs time proportional to its offset.
type tarFS struct {
	ra      io.ReaderAt
	size    int64
	gzipped bool
	entries map[string]*tarEntry
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

// indexTar indexes the tar (plain or gzip-compressed) in ra.
func indexTar(ctx context.Context, ra io.ReaderAt, size int64, lim Limits) (*tarFS, error) {
	t := &tarFS{ra: ra, size: size, gzipped: sniffGzip(ra, size), entries: map[string]*tarEntry{}}
	sr := io.NewSectionReader(ra, 0, size)
	var (
		tr  *tar.Reader
		pos func() int64
		cr  *countingReader
	)
	if t.gzipped {
		zr, err := gzip.NewReader(bufio.NewReaderSize(sr, 64<<10))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrMalformed, err)
		}
		defer zr.Close()
		cr = &countingReader{r: zr, limit: lim.MaxImageSize, limitName: "MaxImageSize"}
		tr = tar.NewReader(cr)
		pos = func() int64 { return cr.n }
	} else {
		tr = tar.NewReader(sr)
		pos = func() int64 { off, _ := sr.Seek(0, io.SeekCurrent); return off }
	}
	var count, cachedTotal int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, ErrLimit) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: tar: %v", ErrMalformed, err)
		}
		count++
		if count > lim.MaxTarEntries {
			return nil, limitErr("MaxTarEntries", lim.MaxTarEntries)
		}
		if hdr.Typeflag != tar.TypeReg && hdr.Typeflag != tar.TypeRegA || isSparse(hdr) {
			continue
		}
		name, ok := CleanPath(hdr.Name)
		if !ok || name == "." {
			continue
		}
		if _, dup := t.entries[name]; dup {
			return nil, fmt.Errorf("%w: %s", ErrDuplicateEntry, safetext.Quote(name))
		}
		e := &tarEntry{name: name, offset: pos(), size: hdr.Size}
		if !t.gzipped && e.offset+e.size > size {
			return nil, fmt.Errorf("%w: tar entry %s extends past the end of the archive", ErrMalformed, safetext.Quote(name))
		}
		if t.gzipped && e.size <= tarCacheEntryMax && cachedTotal+e.size <= tarCacheTotalMax {
			b := make([]byte, e.size)
			if _, err := io.ReadFull(tr, b); err != nil {
				if errors.Is(err, ErrLimit) {
					return nil, err
				}
				return nil, fmt.Errorf("%w: tar entry %s: %v", ErrMalformed, safetext.Quote(name), err)
			}
			e.cached = b
			cachedTotal += e.size
		}
		t.entries[name] = e
	}
	if count == 0 {
		return nil, fmt.Errorf("%w: empty or not a tar archive", ErrMalformed)
	}
	return t, nil
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
	f := &tarFile{e: e}
	switch {
	case e.cached != nil:
		f.r = bytes.NewReader(e.cached)
	case !t.gzipped:
		f.r = io.NewSectionReader(t.ra, e.offset, e.size)
	default:
		f.open = func() (io.Reader, io.Closer, error) {
			zr, err := gzip.NewReader(bufio.NewReaderSize(io.NewSectionReader(t.ra, 0, t.size), 64<<10))
			if err != nil {
				return nil, nil, err
			}
			if _, err := io.CopyN(io.Discard, zr, e.offset); err != nil {
				zr.Close()
				return nil, nil, err
			}
			return io.LimitReader(zr, e.size), zr, nil
		}
	}
	return f, nil
}

// tarFile is an open regular file of a tarFS.
type tarFile struct {
	e      *tarEntry
	r      io.Reader
	closer io.Closer
	open   func() (io.Reader, io.Closer, error)
}

func (f *tarFile) Read(p []byte) (int, error) {
	if f.r == nil {
		if f.open == nil {
			return 0, fs.ErrClosed
		}
		r, c, err := f.open()
		if err != nil {
			f.open = nil
			return 0, err
		}
		f.r, f.closer = r, c
	}
	return f.r.Read(p)
}

func (f *tarFile) Close() error {
	f.open = nil
	if f.closer != nil {
		return f.closer.Close()
	}
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
	limitName string
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.limit {
		return n, limitErr(c.limitName, c.limit)
	}
	return n, err
}
