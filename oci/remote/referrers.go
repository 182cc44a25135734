package remote

import (
	"context"
	"errors"
	"io"
	"sync/atomic"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/limit"
	"oras.land/oras-go/v2/errdef"
)

// maxReferrerPages bounds the pages of a referrers listing: a registry
// whose pages each link to another never ends otherwise.
const maxReferrerPages = 100

// maxMetadataBytes is oras-go's MaxMetadataBytes (repository.go): it
// bounds what oras-go reads itself, among which a page of a referrers
// listing and the referrers tag's index.
const maxMetadataBytes = 4 << 20

// Referrers returns the descriptors of the manifests whose subject is the
// manifest subject (its digest is what counts), of artifactType when it
// is not empty: through the distribution API's referrers endpoint, or,
// for a registry without it, through the referrers tag schema (the index
// tagged "sha256-<hex>"). No referrer is fetched. Each page of the listing
// is bounded like a manifest (4 MiB: a larger one fails with a
// *limit.Error of MaxManifestBytes); more than the client's
// Limits.MaxReferrers, or more than 100 pages, fail with
// limit.ErrExceeded too. No cache is consulted: referrers change.
func (r *Repository) Referrers(ctx context.Context, subject ocispec.Descriptor, artifactType string) ([]ocispec.Descriptor, error) {
	max := r.c.cfg.limits.MaxReferrers
	repo, err := r.remote(ctx)
	if err != nil {
		return nil, r.fail("referrers", subject.Digest.String(), err)
	}
	var out []ocispec.Descriptor
	pages := 0
	// oras-go reads a page through an io.LimitReader of maxMetadataBytes
	// and reports a page it cut as malformed JSON: the guard marks a
	// response read to that bound (pageBody), which tells the two apart.
	full := new(atomic.Bool)
	ctx = context.WithValue(ctx, pageFullKey{}, full)
	err = repo.Referrers(ctx, subject, artifactType, func(page []ocispec.Descriptor) error {
		full.Store(false) // this page decoded: it was not cut
		if err := ctx.Err(); err != nil {
			return err
		}
		if pages++; pages > maxReferrerPages {
			return &limit.Error{Limit: limitval.MaxReferrerPages, Value: int64(pages), Max: maxReferrerPages}
		}
		if len(out)+len(page) > max {
			return &limit.Error{Limit: limitval.MaxReferrers, Value: int64(len(out) + len(page)), Max: int64(max)}
		}
		out = append(out, page...)
		return nil
	})
	switch {
	case errors.Is(err, errdef.ErrTooManyPages):
		err = &limit.Error{Limit: limitval.MaxReferrerPages, Value: maxReferrerPages + 1, Max: maxReferrerPages}
	case errors.Is(err, errdef.ErrSizeExceedsLimit), err != nil && full.Load():
		// The referrers tag's index over the manifest bound (oras-go
		// read its size), or a page of the API cut at it.
		err = &limit.Error{Limit: limitval.MaxManifestBytes, Max: maxMetadataBytes}
	}
	if err != nil {
		return nil, r.fail("referrers", subject.Digest.String(), err)
	}
	return out, nil
}

// pageFullKey is the context key of a referrers listing's requests: its
// value, an *atomic.Bool, is set when a response body was read to
// maxMetadataBytes.
type pageFullKey struct{}

// pageBody is a response body that reports, in full, that its reader
// read maxMetadataBytes of it.
type pageBody struct {
	io.ReadCloser
	n    int64
	full *atomic.Bool
}

func (b *pageBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.n += int64(n); b.n >= maxMetadataBytes {
		b.full.Store(true)
	}
	return n, err
}
