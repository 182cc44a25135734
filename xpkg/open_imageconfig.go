package xpkg

// Rewriter rewrites a reference before Open pulls it, as Crossplane's
// ImageConfigs do: Rewrite returns the reference to pull and the name of
// the rule that rewrote it, and ok false when none applies.
// *imageconfig.Set (package xpkg/imageconfig) is a Rewriter.
type Rewriter interface {
	Rewrite(ref string) (to, by string, ok bool)
}

// WithImageConfig makes Open pull a reference from where Crossplane would
// under the ImageConfigs of set (an *imageconfig.Set): the reference their
// spec.rewriteImage rewrites it to (see xpkg/imageconfig for the matching
// rules). The Package keeps the reference given as Source and records the
// one pulled in Resolved and the ImageConfig in ImageConfig. Paths, files
// and Crossplane's cache are read as they are; verification blocks are not
// enforced. Pull secrets are not applied here: give WithRemote a client
// whose credentials come from imageconfig.Set.Credentials.
func WithImageConfig(set Rewriter) Option {
	return func(oc *openConfig) { oc.images = set }
}

// rewrite returns the reference to pull for ref, and the ImageConfig that
// rewrote it ("" when none did).
func (c *openConfig) rewrite(ref string) (string, string) {
	if c.images == nil {
		return ref, ""
	}
	if to, by, ok := c.images.Rewrite(ref); ok {
		return to, by
	}
	return ref, ""
}
