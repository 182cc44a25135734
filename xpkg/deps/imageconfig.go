package deps

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

// ErrRewrite: an ImageConfig rewrote a reference into one that names no
// package (no repository, or a tag or digest lost).
var ErrRewrite = errors.New("deps: an ImageConfig rewrote the reference into an unusable one")

// RewriteSource returns a Source that asks src for the reference the
// ImageConfigs of set (spec.matchImages + spec.rewriteImage, see
// xpkg/imageconfig) rewrite each name and version to, as Crossplane
// does: Tags rewrites the bare name (crossplane-runtime's
// CachedClient.ListVersions), Fetch the whole reference, tag or digest
// included (CachedClient.Get). The Package it returns keeps the declared
// Name and Version (a tag); its Resolved is the rewritten reference, its
// ImageConfig the name of the ImageConfig that rewrote it, and its Source
// what src says. A nil or empty set returns src. A Resolver reading
// through it (NewResolver(RewriteSource(src, set))) keeps the declared
// names in its graph and lock; the lock also records each rewritten
// reference and the ImageConfig that rewrote it. Verification blocks are
// not enforced.
func RewriteSource(src Source, set *imageconfig.Set) Source {
	if set.Len() == 0 {
		return src
	}
	return &rewriteSource{src: src, set: set}
}

type rewriteSource struct {
	src Source
	set *imageconfig.Set
}

func (r *rewriteSource) Tags(ctx context.Context, name string) ([]string, error) {
	if to, _, ok := r.set.Rewrite(name); ok {
		name = to
	}
	return r.src.Tags(ctx, name)
}

func (r *rewriteSource) Fetch(ctx context.Context, name, version string, opts ...SummaryOption) (*Package, error) {
	ref := name
	switch {
	case version == "":
	case isDigest(version):
		ref += "@" + version
	default:
		ref += ":" + version
	}
	to, by, ok := r.set.Rewrite(ref)
	if !ok {
		return r.src.Fetch(ctx, name, version, opts...)
	}
	toName, toVersion, err := splitRef(to, version)
	if err != nil {
		return nil, fmt.Errorf("%w: ImageConfig %s: %s -> %s: %w", ErrRewrite, safetext.Quote(by), safetext.Token(ref), safetext.Token(to), err)
	}
	p, err := r.src.Fetch(ctx, toName, toVersion, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s (rewritten by ImageConfig %s from %s): %w", safetext.Token(to), safetext.Quote(by), safetext.Token(ref), err)
	}
	q := *p
	q.Name, q.Resolved, q.ImageConfig = name, to, by
	if !isDigest(version) {
		q.Version = version
	}
	return &q, nil
}

// splitRef splits a rewritten reference into name and version, of the
// form version had: a digest after '@', a tag after the last ':' of the
// last path segment, or none.
func splitRef(ref, version string) (string, string, error) {
	switch {
	case version == "":
		if strings.ContainsAny(ref[strings.LastIndexByte(ref, '/')+1:], ":@") {
			return "", "", errors.New("an unversioned name became a versioned reference")
		}
		return ref, "", nil
	case isDigest(version):
		n, d, ok := strings.Cut(ref, "@")
		if !ok || !isDigest(d) || n == "" {
			return "", "", errors.New("the digest was lost")
		}
		return n, d, nil
	}
	slash := strings.LastIndexByte(ref, '/')
	colon := strings.LastIndexByte(ref, ':')
	if colon <= slash || colon == len(ref)-1 || strings.Contains(ref, "@") {
		return "", "", errors.New("the tag was lost")
	}
	return ref[:colon], ref[colon+1:], nil
}
