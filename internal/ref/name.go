package ref

import "strings"

// MaxLabelLength is the longest DNS-1123 label.
const MaxLabelLength = 63

// DigestHexLength is how many hex digits of a digest FriendlyName keeps.
// Crossplane's own helper keeps five, which collides easily; twelve is what
// container tooling shows as a short ID.
const DigestHexLength = 12

// maxSuffixLength caps the version suffix so that the name keeps room.
const maxSuffixLength = 30

// FriendlyName derives a DNS-1123 label from a reference, for naming
// objects or cache entries after a package: the repository's last
// component, then the tag (its first 30 characters) or the first
// DigestHexLength hex digits of the digest. Upper-case letters are lowered
// (Crossplane's helper drops them), every other character a label cannot
// hold becomes '-', runs of '-' collapse, and the result is cut to
// MaxLabelLength, keeping the version suffix. It returns "pkg" when nothing
// usable is left.
func FriendlyName(r Reference) string {
	base := r.Repository
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	base = Label(base)
	suffix := ""
	switch {
	case r.Digest != "":
		_, hex, _ := strings.Cut(r.Digest, ":")
		if len(hex) > DigestHexLength {
			hex = hex[:DigestHexLength]
		}
		suffix = Label(hex)
	case r.Tag != "":
		suffix = Label(r.Tag)
	}
	if len(suffix) > maxSuffixLength {
		suffix = strings.TrimRight(suffix[:maxSuffixLength], "-")
	}
	if suffix == "" {
		if base == "" {
			return "pkg"
		}
		return base
	}
	if base == "" {
		base = "pkg"
	}
	if max := MaxLabelLength - len(suffix) - 1; len(base) > max {
		base = strings.TrimRight(base[:max], "-")
	}
	return base + "-" + suffix
}

// Label turns s into a DNS-1123 label: lower-case letters, digits and '-',
// starting and ending with a letter or digit, at most MaxLabelLength long.
// It returns "" when s holds no letter or digit.
func Label(s string) string {
	var b strings.Builder
	b.Grow(min(len(s), MaxLabelLength))
	dash := false
	for i := 0; i < len(s) && b.Len() < MaxLabelLength; i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if isLowerAlnum(c) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
				if b.Len() == MaxLabelLength {
					break
				}
			}
			dash = false
			b.WriteByte(c)
			continue
		}
		dash = true
	}
	return strings.TrimRight(b.String(), "-")
}

// InstalledName returns the name Crossplane gives a package it installs
// as a dependency, which a Composition's functionRef must name for a
// Function: the repository of pkgRef made a DNS label by Crossplane's own
// rules (internal/xpkg/name.go ToDNSLabel, applied by the resolver's
// NewPackage), so xpkg.crossplane.io/crossplane-contrib/function-auto-ready
// is installed as crossplane-contrib-function-auto-ready (the graph rules
// check a functionRef against it; xpkg/deps names revisions after it). It is "" when
// pkgRef is not a valid reference.
func InstalledName(pkgRef string) string {
	r, err := Parse(pkgRef)
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
