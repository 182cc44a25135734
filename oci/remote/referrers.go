package remote

import (
	"context"
	"errors"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/xpkgkit/xpkgkit/limit"
	"oras.land/oras-go/v2/errdef"
)

// DefaultMaxReferrers is how many referrers Referrers returns by default
// before it fails with limit.ErrExceeded.
const DefaultMaxReferrers = 1_000

// maxReferrerPages bounds the pages of a referrers listing: a registry
// whose pages each link to another never ends otherwise.
const maxReferrerPages = 100

// Referrers returns the descriptors of the manifests whose subject is the
// manifest subject (its digest is what counts), of artifactType when it
// is not empty: through the distribution API's referrers endpoint, or,
// for a registry without it, through the referrers tag schema (the index
// tagged "sha256-<hex>"). No referrer is fetched. Each page of the listing
// is bounded like a manifest (4 MiB); more than max referrers (0:
// DefaultMaxReferrers), or more than 100 pages, fail with limit.ErrExceeded. No
// cache is consulted: referrers change.
func (r *Repository) Referrers(ctx context.Context, subject ocispec.Descriptor, artifactType string, max int) ([]ocispec.Descriptor, error) {
	if max <= 0 {
		max = DefaultMaxReferrers
	}
	repo, err := r.remote(ctx)
	if err != nil {
		return nil, r.fail("referrers", subject.Digest.String(), err)
	}
	var out []ocispec.Descriptor
	pages := 0
	err = repo.Referrers(ctx, subject, artifactType, func(page []ocispec.Descriptor) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if pages++; pages > maxReferrerPages {
			return &limit.Error{Limit: limit.MaxReferrerPages, Value: int64(pages), Max: maxReferrerPages}
		}
		if len(out)+len(page) > max {
			return &limit.Error{Limit: limit.MaxReferrers, Value: int64(len(out) + len(page)), Max: int64(max)}
		}
		out = append(out, page...)
		return nil
	})
	if errors.Is(err, errdef.ErrTooManyPages) {
		err = &limit.Error{Limit: limit.MaxReferrerPages, Value: maxReferrerPages + 1, Max: maxReferrerPages}
	}
	if err != nil {
		return nil, r.fail("referrers", subject.Digest.String(), err)
	}
	return out, nil
}
