package xpkg

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"sync"

	"github.com/xpkgkit/xpkgkit/oci/cache"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// WithRemote sets the registry client Open pulls references through: its
// credentials, transport, cache and offline mode, and its bounds (requests
// per host, retry time, a registry that kept failing not asked again),
// which hold for the client's life. Without it, each Open uses a new client
// with Docker's credentials and the shared cache in cache.DefaultDir() (no
// cache when that directory cannot be made): its bounds hold for that call.
func WithRemote(c *remote.Client) Option {
	return openOption(func(oc *openConfig) { oc.remote = c })
}

var (
	defaultCacheOnce sync.Once
	defaultCache     *cache.Cache
)

// defaultClient returns a client for one Open without WithRemote: a new
// one each time, so that its bounds (requests per host, the memory of a
// failing registry) are those of the call, not of the process, over the
// cache shared by the process.
func defaultClient() (*remote.Client, error) {
	defaultCacheOnce.Do(func() {
		if dir, err := cache.DefaultDir(); err == nil {
			if cc, err := cache.Open(dir); err == nil {
				defaultCache = cc
			}
		}
	})
	var opts []remote.Option
	if defaultCache != nil {
		opts = append(opts, remote.WithCache(defaultCache))
	}
	return remote.New(opts...)
}

// isReference reports whether source is to be pulled from a registry: no
// file of that name exists, and it parses as a reference that names a
// registry host and a tag or digest. A local path always wins; a missing
// path such as "out.d/package.yaml", which parses as a reference without
// tag, is not pulled.
func isReference(source string) bool {
	if _, err := os.Lstat(source); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	r, err := ParseReference(source)
	return err == nil && r.Registry != "" && (r.Tag != "" || r.Digest != "")
}

// openSource is openPath, or a read of Crossplane's package cache, or a
// pull for a reference.
func openSource(ctx context.Context, source string, c *openConfig) (*Package, SourceKind, []string, error) {
	if p, tried, ok, err := openCrossplaneCache(ctx, source, c); ok {
		kind := SourceCrossplaneCache
		if tried != nil {
			kind = 0
		}
		return p, kind, tried, err
	}
	if isReference(source) {
		p, err := openRemote(ctx, source, c)
		return p, SourceRegistry, nil, err
	}
	return openPath(ctx, source, c)
}

// openRemote pulls ref's manifest and config, and reads package.yaml from
// the layer the selector chooses (the base layer alone, when there is
// one), and the examples layer, if any.
func openRemote(ctx context.Context, ref string, c *openConfig) (*Package, error) {
	client := c.remote
	if client == nil {
		var err error
		if client, err = defaultClient(); err != nil {
			return nil, err
		}
	}
	pull, by := c.rewrite(ref)
	img, repo, err := client.Pull(ctx, pull, c.ociOptions()...)
	if err != nil {
		return nil, err
	}
	p, err := loadImage(ctx, repo, img, c)
	if p != nil && by != "" {
		p.Resolved, p.ImageConfig = pull, by
	}
	return p, err
}
