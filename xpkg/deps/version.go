package deps

import (
	"cmp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// tagVersion is a tag that is a complete semantic version.
type tagVersion struct {
	tag string
	v   *semver.Version
}

// parseTag returns the version a tag names, as Crossplane reads tags
// (internal/controller/pkg/resolver findDependencyVersionToInstall): a tag
// that does not parse as a semantic version is skipped, and so is an
// incomplete one ("v1" would parse as 1.0.0 but may not be that release).
// A leading "v" is allowed.
func parseTag(tag string) (*semver.Version, bool) {
	v, err := semver.NewVersion(tag)
	if err != nil {
		return nil, false
	}
	if v.String() != strings.TrimPrefix(v.Original(), "v") {
		return nil, false
	}
	return v, true
}

// sortedVersions returns the tags that are complete semantic versions,
// highest first; of two tags naming one version ("v1.0.0" and "1.0.0") the
// lexically smaller comes first, so the choice is deterministic.
func sortedVersions(tags []string) []tagVersion {
	vs := make([]tagVersion, 0, len(tags))
	for _, t := range tags {
		if v, ok := parseTag(t); ok {
			vs = append(vs, tagVersion{t, v})
		}
	}
	slices.SortFunc(vs, func(a, b tagVersion) int {
		return cmp.Or(b.v.Compare(a.v), strings.Compare(a.tag, b.tag))
	})
	return vs
}

// isDigest reports whether a dependency version pins a digest: sha256 and
// 64 lower-case hex digits, what go-containerregistry's NewHash accepts and
// Crossplane tests a constraint with.
func isDigest(s string) bool {
	alg, hex, ok := strings.Cut(s, ":")
	if !ok || alg != "sha256" || len(hex) != 64 {
		return false
	}
	for i := 0; i < len(hex); i++ {
		c := hex[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// nearestTags returns up to n tags around where constraint c would select:
// the highest versions below the lowest accepted bound and the lowest above,
// nearest first, falling back to the highest versions.
func nearestTags(vs []tagVersion, c string, n int) []string {
	if len(vs) == 0 {
		return nil
	}
	// vs is sorted highest first. Find the first version (from the top)
	// below the constraint's first bound, if the constraint names one.
	pivot := -1
	if b, ok := firstBound(c); ok {
		pivot = len(vs)
		for i, tv := range vs {
			if tv.v.Compare(b) <= 0 {
				pivot = i
				break
			}
		}
	}
	var out []string
	if pivot < 0 {
		for i := 0; i < len(vs) && len(out) < n; i++ {
			out = append(out, vs[i].tag)
		}
		return out
	}
	lo, hi := pivot, pivot-1 // lo goes down (lower versions), hi goes up
	for len(out) < n && (lo < len(vs) || hi >= 0) {
		if lo < len(vs) {
			out = append(out, vs[lo].tag)
			lo++
		}
		if len(out) < n && hi >= 0 {
			out = append(out, vs[hi].tag)
			hi--
		}
	}
	return out
}

// firstBound returns the first version written in a constraint.
func firstBound(c string) (*semver.Version, bool) {
	start := strings.IndexFunc(c, func(r rune) bool { return '0' <= r && r <= '9' })
	if start < 0 {
		return nil, false
	}
	end := start
	for end < len(c) && strings.IndexByte("0123456789.xX*", c[end]) >= 0 {
		end++
	}
	s := strings.TrimRight(strings.NewReplacer("x", "0", "X", "0", "*", "0").Replace(c[start:end]), ".")
	v, err := semver.NewVersion(s)
	return v, err == nil
}
