package oci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/limit"
)

// layout is a Store over an OCI image layout (see NewLayoutFS). It is safe
// for concurrent use when its fs.FS is.
type layout struct {
	fsys   fs.FS
	limits Limits
	closer io.Closer // what OpenReaderAt opened for a layout tar
}

// Close releases what OpenReaderAt holds for a layout tar (the spool of a
// gzip-compressed tar). It does nothing for a layout of NewLayoutFS, and may
// be called more than once.
func (l *layout) Close() error {
	if l == nil || l.closer == nil {
		return nil
	}
	c := l.closer
	l.closer = nil
	return c.Close()
}

// NewLayoutFS returns the OCI image layout at the root of fsys: an
// oci-layout file, index.json and blobs/<algorithm>/<encoded digest>, read
// from any fs.FS (os.DirFS, embed.FS, fstest.MapFS). It checks the
// oci-layout file and reads nothing else; blobs are opened by Fetch. The
// Source's Format is FormatLayoutDir, and it is safe for concurrent use when
// fsys is. An os.DirFS follows symbolic links out of its directory and
// blocks on FIFOs: for an untrusted directory use Open, which reads it
// through os.Root and refuses both. Options: WithLimits.
func NewLayoutFS(ctx context.Context, fsys fs.FS, opts ...Option) (*Source, error) {
	l, err := newLayoutFS(ctx, fsys, opts...)
	if err != nil {
		return nil, err
	}
	return &Source{store: l, format: FormatLayoutDir}, nil
}

// newLayoutFS is NewLayoutFS, returning the layout itself.
func newLayoutFS(ctx context.Context, fsys fs.FS, opts ...Option) (*layout, error) {
	if fsys == nil {
		return nil, opError("open", ocispec.Descriptor{}, "", fmt.Errorf("%w: nil fs.FS", ErrInvalidArgument))
	}
	o := newOptions(opts)
	if err := ctxErr(ctx); err != nil {
		return nil, opError("open", ocispec.Descriptor{}, ocispec.ImageLayoutFile, err)
	}
	b, err := readFSFile(fsys, ocispec.ImageLayoutFile, "MaxManifestBytes", o.limits.MaxManifestBytes)
	if err != nil {
		return nil, opError("open", ocispec.Descriptor{}, ocispec.ImageLayoutFile, err)
	}
	var hdr ocispec.ImageLayout
	if err := unmarshalStrict(ctx, b, &hdr); err != nil {
		return nil, opError("open", ocispec.Descriptor{}, ocispec.ImageLayoutFile, jsonErr("", err))
	}
	if hdr.Version == "" {
		return nil, opError("open", ocispec.Descriptor{}, ocispec.ImageLayoutFile, fmt.Errorf("%w: no imageLayoutVersion", ErrMalformed))
	}
	if !layoutVersionOK(hdr.Version) {
		return nil, opError("open", ocispec.Descriptor{}, ocispec.ImageLayoutFile,
			fmt.Errorf("%w: imageLayoutVersion %s, want 1.x.y", ErrMalformed, safetext.Quote(hdr.Version)))
	}
	return &layout{fsys: fsys, limits: o.limits}, nil
}

// layoutVersionOK reports whether v is an imageLayoutVersion this package
// reads: "1.0.0" (the image spec's only version so far) or any later 1.x.y,
// which a reader of 1.0.0 can read.
func layoutVersionOK(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) != 3 || parts[0] != "1" {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 9 || strings.Trim(p, "0123456789") != "" || (len(p) > 1 && p[0] == '0') {
			return false
		}
	}
	return true
}

// Index reads and parses index.json (at most MaxManifestBytes bytes).
func (l *layout) Index(ctx context.Context) (ocispec.Index, error) {
	if err := ctxErr(ctx); err != nil {
		return ocispec.Index{}, opError("index", ocispec.Descriptor{}, ocispec.ImageIndexFile, err)
	}
	b, err := readFSFile(l.fsys, ocispec.ImageIndexFile, "MaxManifestBytes", l.limits.MaxManifestBytes)
	if err != nil {
		return ocispec.Index{}, opError("index", ocispec.Descriptor{}, ocispec.ImageIndexFile, err)
	}
	if err := checkKeys(ctx, b); err != nil {
		return ocispec.Index{}, opError("index", ocispec.Descriptor{}, ocispec.ImageIndexFile, jsonErr("index", err))
	}
	idx, err := parseIndex(b)
	if err != nil {
		return ocispec.Index{}, opError("index", ocispec.Descriptor{}, ocispec.ImageIndexFile, err)
	}
	return idx, nil
}

// Fetch opens blobs/<algorithm>/<encoded> for desc. The bytes are not
// verified here; the readers of this package verify them.
func (l *layout) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, opError("fetch", desc, "", err)
	}
	if err := desc.Digest.Validate(); err != nil {
		return nil, opError("fetch", desc, "", fmt.Errorf("%w: %v", ErrInvalidDescriptor, err))
	}
	name := blobPath(desc)
	f, err := l.fsys.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%w: %v", ErrNotFound, err)
		}
		return nil, opError("fetch", desc, name, err)
	}
	return f, nil
}

// blobPath is where a layout keeps desc's blob. The digest must be valid, so
// the path cannot escape blobs/.
func blobPath(desc ocispec.Descriptor) string {
	return path.Join(ocispec.ImageBlobsDir, desc.Digest.Algorithm().String(), desc.Digest.Encoded())
}

// readFSFile reads a whole small file of fsys, bounded by limit.
func readFSFile(fsys fs.FS, name string, limitName limit.Name, max int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %v", ErrNotFound, err)
		}
		return nil, err
	}
	defer f.Close()
	return readAllLimited(f, limitName, max)
}

// parseIndex parses an OCI index or Docker manifest list whose keys were
// checked (see checkKeys).
func parseIndex(b []byte) (ocispec.Index, error) {
	var idx ocispec.Index
	if err := json.Unmarshal(b, &idx); err != nil {
		return ocispec.Index{}, fmt.Errorf("%w: index: %v", ErrMalformed, err)
	}
	if idx.SchemaVersion != 2 {
		return ocispec.Index{}, fmt.Errorf("%w: index schemaVersion %d, want 2", ErrMalformed, idx.SchemaVersion)
	}
	if idx.MediaType != "" && !isIndexType(idx.MediaType) {
		return ocispec.Index{}, fmt.Errorf("%w: index has mediaType %s", ErrUnsupportedMediaType, safetext.Quote(idx.MediaType))
	}
	return idx, nil
}
