package deps

import "github.com/xpkgkit/xpkgkit/xpkg"

// SourceOption configures NewDirSource, NewCacheSource and
// NewRegistrySource.
type SourceOption func(*sourceConfig)

type sourceConfig struct {
	limits xpkg.Limits
}

func newSourceConfig(opts []SourceOption) sourceConfig {
	var c sourceConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// WithPackageLimits sets the limits each package is read within; without
// it (or with the zero Limits) xpkg's defaults hold. The graph's own limits
// are the Resolver's (WithLimits).
func WithPackageLimits(l xpkg.Limits) SourceOption {
	return func(c *sourceConfig) { c.limits = l }
}
