package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
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
// It is safe for concurrent use.
type Source struct {
	store  Store
	format Format
	closer io.Closer
}

// Format says what the input was found to be.
func (s *Source) Format() Format { return s.format }

// Fetch implements Fetcher.
func (s *Source) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	return s.store.Fetch(ctx, desc)
}

// Index implements Store.
func (s *Source) Index(ctx context.Context) (ocispec.Index, error) { return s.store.Index(ctx) }

// Close closes the file Open opened; it does nothing for OpenReaderAt.
func (s *Source) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}

// Open opens the image at path, recognised by its content, not its name: a
// directory with an oci-layout file is an OCI layout; a file is read as a tar
// (plain or gzip-compressed, see NewLayoutTar for the costs) holding an OCI
// layout (oci-layout and index.json at its root; preferred when both are
// there, as in `docker save` output since Docker 25) or a docker archive
// (manifest.json at its root). Anything else is ErrUnknownFormat. Options:
// WithLimits.
func Open(ctx context.Context, path string, opts ...Option) (*Source, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, opError("open", ocispec.Descriptor{}, path, err)
	}
	if fi.IsDir() {
		fsys := os.DirFS(path)
		if _, err := fs.Stat(fsys, ocispec.ImageLayoutFile); err != nil {
			return nil, opError("open", ocispec.Descriptor{}, path, fmt.Errorf("%w: directory without %s", ErrUnknownFormat, ocispec.ImageLayoutFile))
		}
		l, err := NewLayoutFS(ctx, fsys, opts...)
		if err != nil {
			return nil, err
		}
		return &Source{store: l, format: FormatLayoutDir}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, opError("open", ocispec.Descriptor{}, path, err)
	}
	s, err := OpenReaderAt(ctx, f, fi.Size(), opts...)
	if err != nil {
		f.Close()
		return nil, opError("open", ocispec.Descriptor{}, path, err)
	}
	s.closer = f
	return s, nil
}

// OpenReaderAt is Open for a tar of size bytes read through r: an OCI layout
// tar or a docker archive, plain or gzip-compressed. r must stay readable
// until the Source is no longer used.
func OpenReaderAt(ctx context.Context, r io.ReaderAt, size int64, opts ...Option) (*Source, error) {
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
		l, err := NewLayoutFS(ctx, t, opts...)
		if err != nil {
			return nil, err
		}
		return &Source{store: l, format: FormatLayoutTar}, nil
	case t.has(dockerManifestFile):
		a, err := newDockerArchive(ctx, t, o.limits)
		if err != nil {
			return nil, err
		}
		return &Source{store: a, format: FormatDockerArchive}, nil
	}
	return nil, opError("open", ocispec.Descriptor{}, "", fmt.Errorf("%w: tar has neither %s and %s nor %s", ErrUnknownFormat, ocispec.ImageLayoutFile, ocispec.ImageIndexFile, dockerManifestFile))
}

// NewLayoutTar returns the OCI image layout held in a tar of size bytes read
// through r. Opening indexes the archive's entries in one pass.
//
// For a plain tar that pass reads only the 512-byte headers (it seeks over
// file contents), so opening a 500 MB archive reads a few KB, and blobs are
// later read in place. A gzip-compressed tar cannot be read at an offset: the
// pass decompresses the whole archive once (at most MaxImageSize bytes, else
// ErrLimit), keeping files up to 256 KiB (16 MiB in all: index.json,
// manifests, configs) in memory, and each later read of a larger blob
// decompresses the archive again from its start to that blob. Options:
// WithLimits.
func NewLayoutTar(ctx context.Context, r io.ReaderAt, size int64, opts ...Option) (*Layout, error) {
	o := newOptions(opts)
	t, err := indexTar(ctx, r, size, o.limits)
	if err != nil {
		return nil, opError("open", ocispec.Descriptor{}, "", err)
	}
	return NewLayoutFS(ctx, t, opts...)
}

func errorsIsLimitOrCtx(err error) bool {
	return errors.Is(err, ErrLimit) || isCtxErr(err)
}
