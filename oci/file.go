package oci

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/internal/tarpath"
	"github.com/xpkgkit/xpkgkit/limit"
)

// Whiteout names of the image spec's layer changesets.
const (
	whiteoutPrefix = ".wh."
	whiteoutMeta   = ".wh..wh."
	whiteoutOpaque = ".wh..wh..opq"
)

// File is a regular file being read out of a layer, streamed: its bytes come
// straight from the layer's decompressed tar stream. When its content ends,
// the rest of its layer is scanned (for a duplicate of the file, bad
// whiteouts, the entry limit) and the layer blob verified; Read returns any
// problem found instead of io.EOF. Close it when done.
//
// Close may be called while a Read is in flight on another goroutine, as
// when a cancelled parse leaves its read behind (parser.Parse). It cannot
// release what that Read is using, so it does not wait for it nor pretend
// to have closed the File: it returns at once an *Error of class ErrInUse,
// and the File is closed when that Read returns. A Read blocked in the
// Fetcher's reader keeps the File, and that reader, open until it returns.
type File struct {
	// Header is the file's tar header, as written.
	Header *tar.Header
	// Layer is the layer the file was read from.
	Layer ocispec.Descriptor
	// LayerIndex is the position of Layer in the layers given (bottom
	// first).
	LayerIndex int

	tr   *tar.Reader
	l    *layerStream
	scan *layerScan
	err  error

	// mu is held by Read, and by Close when no Read is in flight; a
	// Close during a Read sets closing, and that Read closes on its way
	// out. closed makes closing idempotent.
	mu       sync.Mutex
	closing  atomic.Bool
	closed   bool
	closeErr error
}

// Read reads the file's content.
func (f *File) Read(p []byte) (int, error) {
	f.mu.Lock()
	n, err := f.read(p)
	f.mu.Unlock()
	f.closeIfAsked()
	return n, err
}

// closeIfAsked closes f when a Close came during a Read.
func (f *File) closeIfAsked() {
	if f.closing.Load() && f.mu.TryLock() {
		f.closeLocked()
		f.mu.Unlock()
	}
}

func (f *File) read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.tr.Read(p)
	switch {
	case err == io.EOF:
		f.err = f.complete()
	case err != nil:
		if f.l.err != nil && f.l.err != io.EOF {
			f.err = f.l.err
		} else {
			f.err = f.l.wrap(err)
		}
	}
	return n, f.err
}

// complete scans the rest of the layer and verifies it; io.EOF when all is
// well.
func (f *File) complete() error {
	for {
		hdr, err := nextHeader(f.tr, f.l)
		if err == io.EOF {
			break
		}
		if err != nil {
			return opError("read file", f.Layer, f.scan.target, err)
		}
		if _, err := f.scan.entry(hdr); err != nil {
			return opError("read file", f.Layer, f.scan.target, err)
		}
	}
	if err := f.l.finish(); err != nil {
		return err
	}
	return io.EOF
}

// Close releases the layer stream. During a Read on another goroutine it
// returns at once an *Error of class ErrInUse and leaves the release to that
// Read: a later Read fails, and a later Close returns the release's error
// (nil once the File is closed, unless releasing the layer stream failed).
func (f *File) Close() error {
	f.closing.Store(true)
	if !f.mu.TryLock() {
		// A Read is in flight: it closes f when it returns.
		return &Error{Op: "close", Descriptor: f.Layer, Path: f.scan.target, Err: ErrInUse}
	}
	defer f.mu.Unlock()
	return f.closeLocked()
}

func (f *File) closeLocked() error {
	if f.closed {
		return f.closeErr
	}
	f.closed = true
	if f.err == nil {
		f.err = opError("read file", f.Layer, f.scan.target, io.ErrClosedPipe)
	}
	f.closeErr = f.l.Close()
	return f.closeErr
}

// Warnings returns the entries that were skipped because their names are
// unsafe (absolute, or with a ".." element): each an *Error wrapping
// ErrUnsafePath with the layer and the name as written (its first 4096
// bytes). At most 100 are kept over all the layers
// read; when there were more, a last *Error (with no Path) says how many
// were left out. It is complete once Read has returned io.EOF.
func (f *File) Warnings() []*Error {
	w := slices.Clone(f.scan.warnings.list) // those of the layers above too
	if n := f.scan.warnings.more; n > 0 {
		w = append(w, &Error{Op: "read file", Err: fmt.Errorf("%w: and %d more entries with unsafe names", ErrUnsafePath, n)})
	}
	return w
}

// Bounds of File.Warnings: what a layer of unsafe names can make this
// package keep, however many and however long they are.
const (
	// maxWarnings is how many warnings File.Warnings keeps.
	maxWarnings = 100
	// maxWarningPath is how many bytes of an entry's name a warning keeps.
	maxWarningPath = 4096
)

// warnings collects at most maxWarnings warnings and counts the rest.
type warnings struct {
	list []*Error
	more int
}

// add records a warning for the unsafe entry name of layer desc.
func (w *warnings) add(desc ocispec.Descriptor, name string) {
	if len(w.list) >= maxWarnings {
		w.more++
		return
	}
	if len(name) > maxWarningPath {
		name = strings.ToValidUTF8(name[:maxWarningPath], "")
	}
	// A copy: the name may share the memory of a PAX header of a MiB.
	name = strings.Clone(name)
	w.list = append(w.list, &Error{Op: "read file", Descriptor: desc, Path: name, Err: ErrUnsafePath})
}

// ReadFile reads the file name (cleaned: "./package.yaml" is
// "package.yaml") from the filesystem that layers (bottom first, as in a
// manifest) make when their changesets are applied in order, as the image
// spec's layer.md describes. It walks the layers from the top down and stops
// at the layer that decides: the first that has the file (which is then
// streamed), or that hides it from lower layers by a whiteout ".wh.NAME" of
// the file or a parent, an opaque marker ".wh..wh..opq" in a parent, or a
// non-directory in place of a parent. A whiteout or opaque marker never hides
// an entry of its own layer, whatever the entry order. Each layer read is
// read in full, so that it is verified and its whole changeset is known.
//
// Errors: ErrNotFound when no layer has the file or it is hidden;
// ErrNotRegularFile when the entry found is not a regular file (or is a
// sparse file, whose holes would expand beyond what the layer holds);
// ErrDuplicateEntry for two entries with one path in a layer;
// ErrInvalidWhiteout for a bare ".wh."; a *limit.Error for MaxFileBytes,
// MaxLayerBytes, MaxImageBytes (over all layers read) and MaxTarEntries.
// Entries with unsafe names never match and are listed by File.Warnings.
// Options: WithLimits.
func ReadFile(ctx context.Context, f Fetcher, layers []ocispec.Descriptor, name string, opts ...Option) (*File, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, opError("read file", ocispec.Descriptor{}, name, err)
	}
	o := newOptions(opts)
	target, ok := tarpath.Clean(name)
	if !ok || target == "." {
		return nil, opError("read file", ocispec.Descriptor{}, name, fmt.Errorf("%w: invalid name", ErrNotFound))
	}
	b := &budget{left: o.limits.MaxImageBytes, limit: o.limits.MaxImageBytes}
	var warned warnings
	for i := len(layers) - 1; i >= 0; i-- {
		file, scan, err := readLayerFile(ctx, f, layers[i], target, o.limits, b, warned)
		if err != nil {
			return nil, err
		}
		if file != nil {
			file.LayerIndex = i
			return file, nil
		}
		warned = scan.warnings
		if scan.hidden {
			return nil, opError("read file", layers[i], target, fmt.Errorf("%w: hidden by a whiteout or a non-directory in layer %d", ErrNotFound, i))
		}
	}
	return nil, opError("read file", ocispec.Descriptor{}, target, ErrNotFound)
}

// ReadLayerFile reads the file name (cleaned) from the single layer desc,
// streamed. Whiteouts are not applied: they concern lower layers. Errors,
// limits and options are those of ReadFile.
func ReadLayerFile(ctx context.Context, f Fetcher, desc ocispec.Descriptor, name string, opts ...Option) (*File, error) {
	return ReadFile(ctx, f, []ocispec.Descriptor{desc}, name, opts...)
}

// readLayerFile scans one layer for target. It returns the File when the
// layer has it (the layer stream is then left open, positioned at the file's
// content); otherwise the completed scan, having read and verified the whole
// layer.
// warned are the warnings of the layers read before.
func readLayerFile(ctx context.Context, f Fetcher, desc ocispec.Descriptor, target string, lim Limits, b *budget, warned warnings) (*File, *layerScan, error) {
	l, err := openLayerStream(ctx, f, desc, lim, b)
	if err != nil {
		return nil, nil, err
	}
	scan := &layerScan{desc: desc, target: target, seen: map[[16]byte]bool{}, maxEntries: lim.MaxTarEntries, warnings: warned}
	tr := tar.NewReader(l)
	for {
		hdr, err := nextHeader(tr, l)
		if err == io.EOF {
			break
		}
		if err == nil {
			var match bool
			match, err = scan.entry(hdr)
			if err == nil && match {
				switch {
				//lint:ignore SA1019 old tar writers still emit TypeRegA ('\x00') for regular files
				case hdr.Typeflag != tar.TypeReg && hdr.Typeflag != tar.TypeRegA:
					err = fmt.Errorf("%w: tar type %q", ErrNotRegularFile, hdr.Typeflag)
				case isSparse(hdr):
					// Its holes would expand to bytes the layer does not
					// hold, beyond MaxLayerBytes; Crossplane's build never
					// writes one.
					err = fmt.Errorf("%w: sparse file of %d bytes", ErrNotRegularFile, hdr.Size)
				case hdr.Size > lim.MaxFileBytes:
					err = fmt.Errorf("file of %d bytes: %w", hdr.Size, &limit.Error{Limit: limitval.MaxFileBytes, Value: hdr.Size, Max: lim.MaxFileBytes})
				default:
					return &File{Header: hdr, Layer: desc, tr: tr, l: l, scan: scan}, nil, nil
				}
			}
		}
		if err != nil {
			l.Close()
			return nil, nil, opError("read file", desc, target, err)
		}
	}
	err = l.finish()
	l.Close()
	if err != nil {
		return nil, nil, err
	}
	return nil, scan, nil
}

// layerScan applies one layer's entries to the lookup of target.
type layerScan struct {
	desc       ocispec.Descriptor
	target     string
	seen       map[[16]byte]bool // truncated SHA-256 of the names seen, so memory does not grow with name lengths
	count      int
	maxEntries int
	hidden     bool
	warnings   warnings // of this layer and those read before
}

// entry records hdr and reports whether it is target itself.
func (s *layerScan) entry(hdr *tar.Header) (bool, error) {
	if s.count++; s.count > s.maxEntries {
		return false, limitErr(limitval.MaxTarEntries, s.maxEntries)
	}
	name, ok := tarpath.Clean(hdr.Name)
	if !ok {
		s.warnings.add(s.desc, hdr.Name)
		return false, nil
	}
	if name == "." {
		return false, nil
	}
	sum := sha256.Sum256([]byte(name))
	key := [16]byte(sum[:16])
	if s.seen[key] {
		return false, fmt.Errorf("%w: %s", ErrDuplicateEntry, safetext.Quote(hdr.Name))
	}
	s.seen[key] = true
	dir, base := path.Split(name)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case base == whiteoutOpaque:
		if dir == "" || within(s.target, dir) {
			s.hidden = true
		}
		return false, nil
	case strings.HasPrefix(base, whiteoutMeta):
		return false, nil // other AUFS metadata: not a whiteout
	case strings.HasPrefix(base, whiteoutPrefix):
		gone := base[len(whiteoutPrefix):]
		if gone == "" || gone == "." || gone == ".." {
			return false, fmt.Errorf("%w: %s", ErrInvalidWhiteout, safetext.Quote(hdr.Name))
		}
		if p := path.Join(dir, gone); p == s.target || within(s.target, p) {
			s.hidden = true
		}
		return false, nil
	case name == s.target:
		return true, nil
	case within(s.target, name) && hdr.Typeflag != tar.TypeDir:
		s.hidden = true // a non-directory replaces a parent
	}
	return false, nil
}

// within reports whether p is below directory dir.
func within(p, dir string) bool {
	return strings.HasPrefix(p, dir+"/")
}
