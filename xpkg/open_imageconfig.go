package xpkg

import (
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

// WithImageConfig makes Open pull a reference from where Crossplane would
// under the ImageConfigs of set: the reference their spec.rewriteImage
// rewrites it to (see xpkg/imageconfig for the matching rules). The
// Package keeps the reference given as Source and records the one pulled
// in Resolved and the ImageConfig in ImageConfig. Paths, files and
// Crossplane's cache are read as they are; verification blocks are not
// enforced. Pull secrets are not applied here: give WithRemote a client
// whose credentials come from imageconfig.Set.Credentials.
func WithImageConfig(set *imageconfig.Set) Option {
	return openOption(func(oc *openConfig) { oc.images = set })
}

// rewrite returns the reference to pull for ref, and the ImageConfig that
// rewrote it ("" when none did).
func (c *openConfig) rewrite(ref string) (string, string) {
	if to, by, ok := c.images.Rewrite(ref); ok {
		return to, by
	}
	return ref, ""
}
