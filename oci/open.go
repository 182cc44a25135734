package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/limit"
)

// Format is the kind of input Open found.
type Format int

// The formats Open detects.
const (
	// FormatLayoutDir is an OCI image layout directory.
	FormatLayoutDir Format = iota + 1
	// FormatLayoutTar is an OCI image layout in a tar, plain or
	// gzip-compressed.
	FormatLayoutTar
	// FormatDockerArchive is a docker-archive tar (a Crossplane .xpkg), plain
	// or gzip-compressed.
	FormatDockerArchive
)

// String returns the format's name.
func (f Format) String() string {
	switch f {
	case FormatLayoutDir:
		return "oci-layout-dir"
	case FormatLayoutTar:
		return "oci-layout-tar"
	case FormatDockerArchive:
		return "docker-archive"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Source is a Store opened by Open or OpenReaderAt, with what it holds open.
// It is safe for concurrent use. Its zero value holds nothing: its methods
// return an error matching ErrNotFound.
type Source struct {
	store   Store
	format  Format
	closers []io.Closer
}

// Format says what the input was found to be.
func (s *Source) Format() Format {
	if s == nil {
		return 0
	}
	return s.format
}

// Fetch implements Fetcher.
func (s *Source) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	if s == nil || s.store == nil {
		return nil, opError("fetch", desc, "", fmt.Errorf("%w: empty Source", ErrNotFound))
	}
	return s.store.Fetch(ctx, desc)
}

// Index implements Store.
func (s *Source) Index(ctx context.Context) (ocispec.Index, error) {
	if s == nil || s.store == nil {
		return ocispec.Index{}, opError("index", ocispec.Descriptor{}, "", fmt.Errorf("%w: empty Source", ErrNotFound))
	}
	return s.store.Index(ctx)
}

// Close releases what the Source holds: the file or directory Open opened,
// and the spool of a gzip-compressed archive (see OpenReaderAt).
func (s *Source) Close() error {
	if s == nil {
		return nil
	}
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i].Close())
	}
	s.closers = nil
	return errors.Join(errs...)
}

// Open opens the image at path, recognised by its content, not its name: a
// directory with an oci-layout file is an OCI layout; a file is read as a tar
// (plain or gzip-compressed, see OpenReaderAt for the costs) holding an OCI
// layout (oci-layout and index.json at its root; preferred when both are
// there, as in `docker save` output since Docker 25) or a docker archive
// (manifest.json at its root). Anything else is ErrUnknownFormat. In a
// layout directory, only regular files inside the directory are read:
// symbolic links that leave it fail with ErrUnsafePath, and special files
// (FIFOs, devices) with ErrNotRegularFile, without blocking on them. When
// the input was recognised but reading it failed, the *Error says which
// format it was (Error.Format). Options: WithLimits.
func Open(ctx context.Context, path string, opts ...Option) (*Source, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, opError("open", ocispec.Descriptor{}, path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, opError("open", ocispec.Descriptor{}, path, err)
	}
	if fi.IsDir() {
		root, err := os.OpenRoot(path)
		if err != nil {
			return nil, opError("open", ocispec.Descriptor{}, path, err)
		}
		if _, err := root.Lstat(ocispec.ImageLayoutFile); err != nil {
			root.Close()
			return nil, opError("open", ocispec.Descriptor{}, path, fmt.Errorf("%w: directory without %s", ErrUnknownFormat, ocispec.ImageLayoutFile))
		}
		l, err := newLayoutFS(ctx, rootFS{root}, opts...)
		if err != nil {
			root.Close()
			return nil, withFormat(opError("open", ocispec.Descriptor{}, path, err), FormatLayoutDir)
		}
		return &Source{store: l, format: FormatLayoutDir, closers: []io.Closer{root}}, nil
	}
	if !fi.Mode().IsRegular() {
		return nil, opError("open", ocispec.Descriptor{}, path, fmt.Errorf("%w: %s", ErrNotRegularFile, fi.Mode().Type()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, opError("open", ocispec.Descriptor{}, path, err)
	}
	s, err := OpenReaderAt(ctx, f, fi.Size(), opts...)
	if err != nil {
		f.Close()
		var e *Error
		format := Format(0)
		if errors.As(err, &e) {
			format = e.Format
		}
		return nil, withFormat(opError("open", ocispec.Descriptor{}, path, err), format)
	}
	s.closers = append([]io.Closer{f}, s.closers...)
	return s, nil
}

// OpenReaderAt is Open for a tar of size bytes read through r: an OCI layout
// tar or a docker archive, plain or gzip-compressed. r must stay readable
// until the Source is no longer used; close the Source when done with it.
//
// Opening indexes the archive's entries in one pass. For a plain tar that
// pass reads only the 512-byte headers (it seeks over file contents), so
// opening a 500 MB archive reads a few KB, and blobs are later read in
// place. A gzip-compressed tar cannot be read at an offset: the pass
// decompresses the whole archive once (at most MaxImageBytes bytes, else
// limit.ErrExceeded) into memory (up to 16 MiB) or a temporary file (in
// os.TempDir, removed when the Source is closed, or at once where the system
// allows), which later reads read in place: the cost is linear in the
// decompressed size whatever the order of the reads.
//
// A docker archive is presented as Docker schema 2 manifests the Source
// synthesises, with the SHA-256 digests of the archive's files: each config
// is read and parsed once, however many entries of manifest.json name it,
// and each layer file hashed once, when the archive is opened (limits
// MaxManifestBytes, MaxArchiveImages, MaxConfigBytes, MaxLayers,
// MaxBlobBytes). An entry whose name encodes a digest must match it, else
// fetching it fails with ErrDigestMismatch. Layer annotations are recovered
// from config labels "<annotation key>:<layer digest>". Index returns one
// descriptor per RepoTag (annotated org.opencontainers.image.ref.name); the
// manifest digest differs from the one the same image has in a registry or
// an OCI layout, config and layer digests do not. Options: WithLimits.
func OpenReaderAt(ctx context.Context, r io.ReaderAt, size int64, opts ...Option) (*Source, error) {
	if err := checkReaderAt(ctx, r, size); err != nil {
		return nil, opError("open", ocispec.Descriptor{}, "", err)
	}
	o := newOptions(opts)
	t, err := indexTar(ctx, r, size, o.limits)
	if err != nil {
		if !errorsIsLimitOrCtx(err) {
			err = fmt.Errorf("%w: not a tar archive: %v", ErrUnknownFormat, err)
		}
		return nil, opError("open", ocispec.Descriptor{}, "", err)
	}
	switch {
	case t.has(ocispec.ImageLayoutFile) && t.has(ocispec.ImageIndexFile):
		l, err := newLayoutFS(ctx, t, opts...)
		if err != nil {
			t.Close()
			return nil, withFormat(err, FormatLayoutTar)
		}
		l.closer = t
		return &Source{store: l, format: FormatLayoutTar, closers: []io.Closer{l}}, nil
	case t.has(dockerManifestFile):
		a, err := newDockerArchive(ctx, t, o.limits)
		if err != nil {
			t.Close()
			return nil, withFormat(err, FormatDockerArchive)
		}
		a.closer = t
		return &Source{store: a, format: FormatDockerArchive, closers: []io.Closer{a}}, nil
	}
	t.Close()
	return nil, opError("open", ocispec.Descriptor{}, "", fmt.Errorf("%w: tar has neither %s and %s nor %s", ErrUnknownFormat, ocispec.ImageLayoutFile, ocispec.ImageIndexFile, dockerManifestFile))
}

func errorsIsLimitOrCtx(err error) bool {
	return errors.Is(err, limit.ErrExceeded) || isCtxErr(err)
}

// ctxErr is ctx.Err(), and ErrInvalidArgument for a nil context.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return fmt.Errorf("%w: nil context", ErrInvalidArgument)
	}
	return ctx.Err()
}

// checkCtx refuses a nil context.
func checkCtx(ctx context.Context) error {
	if ctx == nil {
		return fmt.Errorf("%w: nil context", ErrInvalidArgument)
	}
	return nil
}

// checkReaderAt refuses a nil context or reader and a negative size.
func checkReaderAt(ctx context.Context, r io.ReaderAt, size int64) error {
	if err := checkCtx(ctx); err != nil {
		return err
	}
	if r == nil {
		return fmt.Errorf("%w: nil reader", ErrInvalidArgument)
	}
	if size < 0 {
		return fmt.Errorf("%w: negative size %d", ErrInvalidArgument, size)
	}
	return nil
}
