package oci

import (
	"context"
	"fmt"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
)

// DefaultPlatform returns linux/amd64, the platform Resolve chooses when an
// index holds several manifests and no WithPlatform option is given.
func DefaultPlatform() ocispec.Platform {
	return ocispec.Platform{OS: "linux", Architecture: "amd64"}
}

// ParsePlatform parses "os/arch" or "os/arch/variant".
func ParsePlatform(s string) (ocispec.Platform, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return ocispec.Platform{}, fmt.Errorf("oci: invalid platform %s, want os/arch[/variant]", safetext.Quote(s))
	}
	p := ocispec.Platform{OS: parts[0], Architecture: parts[1]}
	if len(parts) == 3 {
		if parts[2] == "" {
			return ocispec.Platform{}, fmt.Errorf("oci: invalid platform %s, empty variant", safetext.Quote(s))
		}
		p.Variant = parts[2]
	}
	return p, nil
}

// PlatformString formats p as "os/arch" or "os/arch/variant".
func PlatformString(p ocispec.Platform) string {
	s := p.OS + "/" + p.Architecture
	if p.Variant != "" {
		s += "/" + p.Variant
	}
	return s
}

// normalizePlatform lower-cases p, maps common architecture aliases to the
// GOARCH names the image spec uses, and fills the variant the spec implies
// when it is omitted (arm64 is v8, arm is v7).
func normalizePlatform(p ocispec.Platform) ocispec.Platform {
	p.OS = strings.ToLower(p.OS)
	p.Architecture = strings.ToLower(p.Architecture)
	p.Variant = strings.ToLower(p.Variant)
	switch p.Architecture {
	case "x86_64", "x86-64":
		p.Architecture = "amd64"
	case "aarch64":
		p.Architecture = "arm64"
	case "armhf":
		p.Architecture, p.Variant = "arm", "v7"
	case "armel":
		p.Architecture, p.Variant = "arm", "v6"
	}
	switch {
	case p.Architecture == "arm64" && p.Variant == "":
		p.Variant = "v8"
	case p.Architecture == "arm" && p.Variant == "":
		p.Variant = "v7"
	}
	return p
}

// platformMatches reports whether a manifest for have can serve want: same
// OS and architecture; the same variant when want names one (after filling
// the implied arm variants); the same OS version when want names one.
func platformMatches(want, have ocispec.Platform) bool {
	w, h := normalizePlatform(want), normalizePlatform(have)
	if w.OS != h.OS || w.Architecture != h.Architecture {
		return false
	}
	if w.Variant != "" && w.Variant != h.Variant {
		return false
	}
	if w.OSVersion != "" && w.OSVersion != h.OSVersion {
		return false
	}
	return true
}

// choose picks one manifest of an index: manifests with the same digest count
// once; zero is ErrEmptyIndex; one is used whatever its platform; among
// several, the first whose platform matches want wins, and one with no
// platform never matches.
func choose(ctx context.Context, manifests []ocispec.Descriptor, want ocispec.Platform) (ocispec.Descriptor, error) {
	var uniq []ocispec.Descriptor
	seen := map[string]bool{}
	for i, d := range manifests {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return ocispec.Descriptor{}, err
			}
		}
		if !seen[string(d.Digest)] {
			seen[string(d.Digest)] = true
			uniq = append(uniq, d)
		}
	}
	switch len(uniq) {
	case 0:
		return ocispec.Descriptor{}, ErrEmptyIndex
	case 1:
		return uniq[0], nil
	}
	for _, d := range uniq {
		if d.Platform != nil && platformMatches(want, *d.Platform) {
			return d, nil
		}
	}
	have := make([]string, 0, len(uniq))
	for _, d := range uniq {
		if d.Platform == nil {
			have = append(have, "(none)")
		} else {
			have = append(have, PlatformString(*d.Platform))
		}
	}
	return ocispec.Descriptor{}, fmt.Errorf("%w: want %s, index has %s", ErrNoMatchingPlatform, safetext.Token(PlatformString(want)), safetext.Join(have, safetext.Token))
}
