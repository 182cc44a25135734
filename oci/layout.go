package oci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
)

// Layout is a Store over an OCI image layout: an oci-layout file, index.json
// and blobs/<algorithm>/<encoded digest>, read from any fs.FS (os.DirFS,
// embed.FS, fstest.MapFS, or the entries of a tar; see NewLayoutTar). It is
// safe for concurrent use when its fs.FS is.
type Layout struct {
	fsys   fs.FS
	limits Limits
}

// NewLayoutFS returns the OCI image layout at the root of fsys. It checks the
// oci-layout file and reads nothing else; blobs are opened by Fetch. Options:
// WithLimits.
func NewLayoutFS(ctx context.Context, fsys fs.FS, opts ...Option) (*Layout, error) {
	o := newOptions(opts)
	if err := ctx.Err(); err != nil {
		return nil, opError("open", ocispec.Descriptor{}, ocispec.ImageLayoutFile, err)
	}
	b, err := readFSFile(fsys, ocispec.ImageLayoutFile, "MaxManifestSize", o.limits.MaxManifestSize)
	if err != nil {
		return nil, opError("open", ocispec.Descriptor{}, ocispec.ImageLayoutFile, err)
	}
	var hdr ocispec.ImageLayout
	if err := json.Unmarshal(b, &hdr); err != nil {
		return nil, opError("open", ocispec.Descriptor{}, ocispec.ImageLayoutFile, fmt.Errorf("%w: %v", ErrMalformed, err))
	}
	if hdr.Version == "" {
		return nil, opError("open", ocispec.Descriptor{}, ocispec.ImageLayoutFile, fmt.Errorf("%w: no imageLayoutVersion", ErrMalformed))
	}
	return &Layout{fsys: fsys, limits: o.limits}, nil
}

// Index reads and parses index.json (at most MaxManifestSize bytes).
func (l *Layout) Index(ctx context.Context) (ocispec.Index, error) {
	if err := ctx.Err(); err != nil {
		return ocispec.Index{}, opError("index", ocispec.Descriptor{}, ocispec.ImageIndexFile, err)
	}
	b, err := readFSFile(l.fsys, ocispec.ImageIndexFile, "MaxManifestSize", l.limits.MaxManifestSize)
	if err != nil {
		return ocispec.Index{}, opError("index", ocispec.Descriptor{}, ocispec.ImageIndexFile, err)
	}
	idx, err := parseIndex(b)
	if err != nil {
		return ocispec.Index{}, opError("index", ocispec.Descriptor{}, ocispec.ImageIndexFile, err)
	}
	return idx, nil
}

// Fetch opens blobs/<algorithm>/<encoded> for desc. The bytes are not
// verified here; the readers of this package verify them.
func (l *Layout) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
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
func readFSFile(fsys fs.FS, name, limitName string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %v", ErrNotFound, err)
		}
		return nil, err
	}
	defer f.Close()
	return readAllLimited(f, limitName, limit)
}

// parseIndex parses an OCI index or Docker manifest list.
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
