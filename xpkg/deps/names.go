package deps

import (
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/ref"
	"github.com/xpkgkit/xpkgkit/internal/target"
)

// parseConstraint reads a version constraint as Crossplane of release
// line t does; the one place the graph parses constraints (the target
// table, internal/target, says which engine).
func parseConstraint(t target.Release, s string) (target.Constraint, error) {
	return t.ParseConstraint(s)
}

// InstalledName returns the name Crossplane gives a package it installs
// as a dependency, which a Composition's functionRef must name for a
// Function: the repository of pkgRef made a DNS label by Crossplane's own
// rules (internal/xpkg/name.go ToDNSLabel, applied by the resolver's
// NewPackage), so xpkg.crossplane.io/crossplane-contrib/function-auto-ready
// is installed as crossplane-contrib-function-auto-ready. It is "" when
// pkgRef is not a valid reference.
func InstalledName(pkgRef string) string {
	r, err := ref.Parse(pkgRef)
	if err != nil {
		return ""
	}
	return crossplaneDNSLabel(r.Repository)
}

// crossplaneDNSLabel follows Crossplane's ToDNSLabel: of the first 63
// bytes, keep lower-case letters and digits, turn '.', '/', ':' and '-'
// into '-' except at the first, the 63rd and the last byte, drop the rest,
// then trim '-' from both ends.
func crossplaneDNSLabel(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			b.WriteByte(c)
		}
		if strings.IndexByte("./:-", c) >= 0 && i != 0 && i != 62 && i != len(s)-1 {
			b.WriteByte('-')
		}
		if i == 62 {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}
