package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry"
	orasremote "oras.land/oras-go/v2/registry/remote"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
)

// Repository is one repository of a registry. It is an oci.Fetcher: Fetch
// returns a blob's bytes (through the client's cache, if any), which the
// readers of package oci verify as they stream. It is safe for concurrent
// use.
type Repository struct {
	c   *Client
	ref registry.Reference // Registry and Repository only

	mu   sync.Mutex
	repo *orasremote.Repository
}

// Repository returns the repository named name, "host[:port]/path" (an
// oci.Reference's Name); a tag or digest in name is ignored. Nothing is
// sent to the registry until the repository is used. The error wraps
// oci.ErrInvalidReference: name is no reference, or names no registry host.
func (c *Client) Repository(name string) (*Repository, error) {
	r, err := parseReference(name)
	if err != nil {
		return nil, err
	}
	return &Repository{c: c, ref: registry.Reference{Registry: r.Registry, Repository: r.Repository}}, nil
}

// parseReference parses ref as an oci.Reference that names its registry
// host. The error wraps oci.ErrInvalidReference.
func parseReference(ref string) (oci.Reference, error) {
	r, err := oci.ParseReference(ref)
	if err != nil {
		return oci.Reference{}, err
	}
	if r.Registry == "" {
		return oci.Reference{}, fmt.Errorf("%w %q: no registry host", oci.ErrInvalidReference, truncate(ref))
	}
	return r, nil
}

// Name returns the repository's name, "host[:port]/path".
func (r *Repository) Name() string { return r.ref.Registry + "/" + r.ref.Repository }

// fail wraps err in an *Error for op on reference.
func (r *Repository) fail(op, reference string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	stripURLs(err)
	return &Error{Op: op, Registry: r.ref.Registry, Repository: r.ref.Repository, Reference: reference, Err: classify(r.ref.Registry, err), redact: r.c.guard.secretList()}
}

// remote returns the oras-go repository, deciding on first use whether the
// registry is reached over plain HTTP. A failed decision (a cancelled
// context, a registry that is down) is not remembered.
func (r *Repository) remote(ctx context.Context) (*orasremote.Repository, error) {
	if r.c.cfg.offline {
		return nil, ErrOffline
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.repo != nil {
		return r.repo, nil
	}
	plain, err := r.c.usePlainHTTP(ctx, r.ref.Registry)
	if err != nil {
		return nil, err
	}
	r.repo = &orasremote.Repository{
		Client:           r.c.auth,
		Reference:        r.ref,
		PlainHTTP:        plain,
		SkipReferrersGC:  true,
		MaxMetadataBytes: maxMetadataBytes,
		// referrers.go: oras-go does not call back on an empty page.
		ReferrerListMaxPages: maxReferrerPages,
	}
	return r.repo, nil
}

// Resolve returns the descriptor of the manifest or index that reference (a
// tag or a digest "sha256:...") names. With a cache, a digest already
// cached, or a tag resolved less than the cache's tag TTL ago, is answered
// from the cache with no network traffic; offline, any cached tag is.
func (r *Repository) Resolve(ctx context.Context, reference string) (ocispec.Descriptor, error) {
	if reference == "" {
		return ocispec.Descriptor{}, r.fail("resolve", reference, fmt.Errorf("%w: no tag or digest", oci.ErrInvalidReference))
	}
	full := r.Name() + refSep(reference) + reference
	if cc := r.c.cfg.cache; cc != nil {
		desc, fresh, err := cc.LookupTag(ctx, full)
		if err == nil && (fresh || r.c.cfg.offline) {
			return desc, nil
		}
		if r.c.cfg.offline {
			return ocispec.Descriptor{}, r.fail("resolve", reference, fmt.Errorf("%w: %w", ErrOffline, oci.ErrNotFound))
		}
	}
	repo, err := r.remote(ctx)
	if err != nil {
		return ocispec.Descriptor{}, r.fail("resolve", reference, err)
	}
	desc, err := repo.Resolve(ctx, reference)
	if err != nil {
		return ocispec.Descriptor{}, r.fail("resolve", reference, err)
	}
	if cc := r.c.cfg.cache; cc != nil {
		// The cache is an optimisation: failing to record a tag is not
		// an error of Resolve.
		_ = cc.Tag(ctx, full, desc)
	}
	return desc, nil
}

// refSep is the separator before reference in a full reference.
func refSep(reference string) string {
	if strings.Contains(reference, ":") {
		return "@"
	}
	return ":"
}

// Fetch implements oci.Fetcher: it returns the blob (manifest, index,
// config or layer) desc names, from the cache when it holds it. Bytes read
// from the registry are stored in the cache only once they match desc's
// digest and size. An unknown blob is an error wrapping oci.ErrNotFound.
func (r *Repository) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	if cc := r.c.cfg.cache; cc != nil {
		if r.c.cfg.offline {
			rc, err := cc.Fetch(ctx, desc)
			if err != nil {
				return nil, r.fail("fetch", desc.Digest.String(), fmt.Errorf("%w: %w", ErrOffline, err))
			}
			return rc, nil
		}
		return cc.ReadThrough(fetcherFunc(r.fetch)).Fetch(ctx, desc)
	}
	return r.fetch(ctx, desc)
}

// fetch reads desc from the registry.
func (r *Repository) fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	repo, err := r.remote(ctx)
	if err != nil {
		return nil, r.fail("fetch", desc.Digest.String(), err)
	}
	rc, err := repo.Fetch(ctx, desc)
	if err != nil {
		return nil, r.fail("fetch", desc.Digest.String(), err)
	}
	return rc, nil
}

// fetcherFunc makes a function an oci.Fetcher.
type fetcherFunc func(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error)

func (f fetcherFunc) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	return f(ctx, desc)
}

// Tags returns the repository's tags, in the registry's order (lexical for
// the distribution reference implementation), following every page of the
// listing. More than the client's Limits.MaxTags fails with limit.ErrExceeded.
func (r *Repository) Tags(ctx context.Context) ([]string, error) {
	repo, err := r.remote(ctx)
	if err != nil {
		return nil, r.fail("tags", "", err)
	}
	var tags []string
	max := r.c.cfg.limits.MaxTags
	pages := 0
	err = repo.Tags(ctx, "", func(page []string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if pages++; pages > r.c.cfg.limits.MaxTagPages {
			return &limit.Error{Limit: limitval.MaxTagPages, Max: int64(r.c.cfg.limits.MaxTagPages)}
		}
		if len(tags)+len(page) > max {
			return &limit.Error{Limit: limitval.MaxTags, Max: int64(max)}
		}
		tags = append(tags, page...)
		return nil
	})
	if err != nil {
		return nil, r.fail("tags", "", err)
	}
	return tags, nil
}

// Exists reports whether the registry holds desc (a blob, or a manifest
// when desc's media type is one).
func (r *Repository) Exists(ctx context.Context, desc ocispec.Descriptor) (bool, error) {
	repo, err := r.remote(ctx)
	if err != nil {
		return false, r.fail("exists", desc.Digest.String(), err)
	}
	ok, err := repo.Exists(ctx, desc)
	if err != nil {
		return false, r.fail("exists", desc.Digest.String(), err)
	}
	return ok, nil
}

// Pull resolves ref ("host[:port]/repository:tag" or "...@sha256:...") to
// one image manifest, as oci.Resolve does for a local store: an index is
// followed to the manifest of the platform (oci.WithPlatform), every limit
// of oci.Limits applies (oci.WithLimits), and the manifest and config are
// read verified. Nothing else is fetched: the layers are read later through
// the returned Fetcher (the image's *Repository), e.g. by xpkg.OpenImage,
// which reads the base layer only. The image's RefNames holds ref. A Client
// is an xpkg.Puller: xpkg.WithRemote(c) makes xpkg.Open pull references
// through it.
func (c *Client) Pull(ctx context.Context, ref string, opts ...oci.Option) (*oci.Image, oci.Fetcher, error) {
	r, err := parseReference(ref)
	if err != nil {
		return nil, nil, err
	}
	repo := &Repository{c: c, ref: registry.Reference{Registry: r.Registry, Repository: r.Repository}}
	reference := r.Tag
	if r.Digest != "" {
		reference = r.Digest // the digest decides when both are given
	}
	if reference == "" {
		return nil, nil, repo.fail("resolve", "", fmt.Errorf("%w: %q has no tag or digest", oci.ErrInvalidReference, truncate(ref)))
	}
	desc, err := repo.Resolve(ctx, reference)
	if err != nil {
		return nil, nil, err
	}
	img, err := oci.ResolveDescriptor(ctx, repo, desc, opts...)
	if err != nil {
		return nil, nil, repo.fail("resolve", reference, err)
	}
	img.RefNames = append(img.RefNames, ref)
	return img, repo, nil
}

// Tags returns the tags of the repository named name ("host[:port]/path"),
// as Repository.Tags does.
func (c *Client) Tags(ctx context.Context, name string) ([]string, error) {
	repo, err := c.Repository(name)
	if err != nil {
		return nil, err
	}
	return repo.Tags(ctx)
}

// truncate bounds a user-given string in messages.
func truncate(s string) string {
	const max = 256
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
