package deps

import (
	"context"
	"errors"
	"fmt"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// registrySource is the Source NewRegistrySource returns.
type registrySource struct {
	c      *remote.Client
	limits xpkg.Limits
}

// NewRegistrySource returns a Source over OCI registries, through the
// oci/remote Client c (its credentials, retries, cache and offline mode):
// Tags lists a repository's tags, and Fetch pulls the manifest and config
// of name:tag (or name@digest) and reads package.yaml from the base layer
// alone, verified. Safe for concurrent use.
//
// Packages are read within the package limits (WithPackageLimits).
func NewRegistrySource(c *remote.Client, opts ...SourceOption) Source {
	return &registrySource{c: c, limits: newSourceConfig(opts).limits}
}

// Tags implements Source. An unknown repository is ErrNotFound.
func (r *registrySource) Tags(ctx context.Context, name string) ([]string, error) {
	tags, err := r.c.Tags(ctx, name)
	if errors.Is(err, oci.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return tags, err
}

// Fetch implements Source.
func (r *registrySource) Fetch(ctx context.Context, name, version string, opts ...SummaryOption) (*Package, error) {
	ref, tag := name+":"+version, version
	if isDigest(version) {
		ref, tag = name+"@"+version, ""
	}
	l := r.limits
	if l.OCI == (oci.Limits{}) {
		l.OCI = xpkg.DefaultLimits().OCI
	}
	img, repo, err := r.c.Pull(ctx, ref, oci.WithLimits(l.OCI))
	if errors.Is(err, oci.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	if err != nil {
		return nil, err
	}
	return summarizeImage(ctx, repo, img, name, tag, ref, r.limits, opts)
}
