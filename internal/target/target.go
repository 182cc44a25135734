// Package target is the one table of what changes between the Crossplane
// release lines xpkgkit judges packages for (1.20, 2.0, 2.1, 2.2, 2.3, 2.4;
// 2.4, the newest stable line, is the default):
// which kinds each package type may hold at build and which get installed,
// which semver engine reads constraints, which image layer rules apply,
// which set of Crossplane's own schemas types the objects, and which typed
// fields exist. Every version-dependent rule of the linter and of the
// dependency graph consults a Release from this table; none compares
// versions on its own.
package target

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Semver names the constraint engine a release reads version constraints
// with.
type Semver int

// The constraint engines.
const (
	// SemverV1 is Masterminds/semver v1.5.0 (Crossplane before v2.3): a
	// comma joins comparisons, a space does not.
	SemverV1 Semver = iota
	// SemverV3 is Masterminds/semver v3.4.0 (Crossplane v2.3, crossplane
	// commit 3c17d47ee, crossplane-runtime c2cbdbec): no length caps.
	SemverV3
	// SemverV35 is Masterminds/semver v3.5.0 (crossplane-runtime v2.4.0):
	// v3.4 plus caps of 512 bytes and 32 '||' groups per constraint and 256
	// bytes per version.
	SemverV35
)

// String names the engine as a Go module version.
func (s Semver) String() string {
	switch s {
	case SemverV1:
		return "Masterminds/semver v1.5.0"
	case SemverV3:
		return "Masterminds/semver/v3 v3.4.0"
	}
	return "Masterminds/semver/v3 v3.5.0"
}

// Release is the behaviour of one Crossplane release line.
type Release struct {
	// Line is the release line, such as "v2.3".
	Line string
	// Major and Minor number the line.
	Major, Minor int
	// Patch is the release whose code the table was read from.
	Patch string
	// Stable is false for a line with only pre-releases.
	Stable bool

	// Semver reads spec.crossplane.version and dependency versions.
	Semver Semver
	// V2Kinds: the object scheme knows the kinds that came with v2
	// (ManagedResourceDefinition, ManagedResourceActivationPolicy,
	// apiextensions.crossplane.io/v2 XRDs, v1alpha1 Usage, ops.crossplane.io).
	V2Kinds bool
	// FunctionCRDOnly: the Function linter refuses any object but a CRD
	// (crossplane v2.2.0 internal/xpkg/lint.go NewFunctionLinter IsCRD,
	// commit 82d565bf3).
	FunctionCRDOnly bool
	// InstallsFunctionObjects: the package manager installs a Function
	// package's objects (before v2.2; from v2.2 a filtering establisher
	// installs none, crossplane commit 36f59bef1).
	InstallsFunctionObjects bool
	// ResourcesMode: Compositions may use mode Resources (1.x only).
	ResourcesMode bool
	// ProviderController: meta spec.controller.image is what runs (1.x).
	ProviderController bool
	// SingleBaseLayer: two base layers make the image invalid (before
	// v2.2, crossplane internal/controller/pkg/revision/imageback.go, which
	// commit 99aae5796 deletes); from v2.2 the first base layer wins.
	SingleBaseLayer bool
	// MaxLayers caps the layers of a package image (0: no cap).
	MaxLayers int
	// RegistryHostRequired: a package name without a dotted registry host
	// is refused by the Package CRD's CEL rule on spec.package (v2), where
	// 1.x prefixed its default registry.
	RegistryHostRequired bool
	// Schemas is the Crossplane release whose CRDs type the objects: the
	// line's own release as embedded (linter/internal/kinds,
	// crossplane cluster/crds at that tag).
	Schemas string
	// RequiredSchemas: Composition and Operation requirements.requiredSchemas.
	RequiredSchemas bool
	// DefaultCompositionRevisionSelector: the XRD field.
	DefaultCompositionRevisionSelector bool
	// XRDScale: XRD versions[].subresources.scale.
	XRDScale bool
	// XRDRootCEL: an XRD's root-level x-kubernetes-validations are copied
	// into its generated CRD.
	XRDRootCEL bool
}

// releases is the table, oldest first.
var releases = []Release{
	{Line: "v1.20", Major: 1, Minor: 20, Patch: "v1.20.0", Stable: true, Semver: SemverV1,
		InstallsFunctionObjects: true, ResourcesMode: true, ProviderController: true,
		SingleBaseLayer: true, MaxLayers: 256, Schemas: "v1.20.11"},
	{Line: "v2.0", Major: 2, Minor: 0, Patch: "v2.0.0", Stable: true, Semver: SemverV1, V2Kinds: true,
		InstallsFunctionObjects: true, SingleBaseLayer: true, MaxLayers: 256, RegistryHostRequired: true, Schemas: "v2.0.2"},
	{Line: "v2.1", Major: 2, Minor: 1, Patch: "v2.1.0", Stable: true, Semver: SemverV1, V2Kinds: true,
		InstallsFunctionObjects: true, SingleBaseLayer: true, MaxLayers: 256, RegistryHostRequired: true, Schemas: "v2.1.0"},
	{Line: "v2.2", Major: 2, Minor: 2, Patch: "v2.2.4", Stable: true, Semver: SemverV1, V2Kinds: true,
		FunctionCRDOnly: true, RegistryHostRequired: true, Schemas: "v2.2.4",
		RequiredSchemas: true, DefaultCompositionRevisionSelector: true, XRDRootCEL: true},
	{Line: "v2.3", Major: 2, Minor: 3, Patch: "v2.3.4", Stable: true, Semver: SemverV3, V2Kinds: true,
		FunctionCRDOnly: true, RegistryHostRequired: true, Schemas: "v2.3.4",
		RequiredSchemas: true, DefaultCompositionRevisionSelector: true, XRDRootCEL: true, XRDScale: true},
	{Line: "v2.4", Major: 2, Minor: 4, Patch: "v2.4.0", Stable: true, Semver: SemverV35, V2Kinds: true,
		FunctionCRDOnly: true, RegistryHostRequired: true, Schemas: "v2.4.0",
		RequiredSchemas: true, DefaultCompositionRevisionSelector: true, XRDRootCEL: true, XRDScale: true},
}

// DefaultLine is the release line used when no target is given: the
// newest stable release.
const DefaultLine = "v2.4"

// Releases returns the table, oldest line first.
func Releases() []Release { return append([]Release(nil), releases...) }

// Default returns the newest stable release line.
func Default() Release {
	for i := len(releases) - 1; i >= 0; i-- {
		if releases[i].Stable {
			return releases[i]
		}
	}
	return releases[len(releases)-1]
}

// Resolved is a target as given, and the release line that judges it.
type Resolved struct {
	Release
	// Version is the version given ("" for the default).
	Version string
	// Note says, when the version is outside the table, which line judges
	// it instead ("" otherwise).
	Note string
}

// Resolve maps a Crossplane version (any patch or pre-release of a line,
// with or without a leading v) to its release line. "" gives the default.
// A version newer than every line behaves as the newest known line, and
// one older than every line as the oldest; Note says so. A version that
// is not semver is an error.
func Resolve(version string) (Resolved, error) {
	if version == "" {
		return Resolved{Release: Default()}, nil
	}
	v, err := semver.NewVersion(version)
	if err != nil {
		return Resolved{}, fmt.Errorf("target: Crossplane version %q: %w", version, err)
	}
	maj, min := int(v.Major()), int(v.Minor())
	for _, r := range releases {
		if r.Major == int(maj) && r.Minor == int(min) {
			return Resolved{Release: r, Version: version}, nil
		}
	}
	first, last := releases[0], releases[len(releases)-1]
	if maj < first.Major || maj == first.Major && min < first.Minor {
		return Resolved{Release: first, Version: version,
			Note: fmt.Sprintf("Crossplane %s is older than every release line xpkgkit knows: judged as %s", strings.TrimPrefix(version, "v"), first.Line)}, nil
	}
	if maj > last.Major || maj == last.Major && min > last.Minor {
		return Resolved{Release: last, Version: version,
			Note: fmt.Sprintf("Crossplane %s is newer than every release line xpkgkit knows: judged as %s, the newest", strings.TrimPrefix(version, "v"), last.Line)}, nil
	}
	// A line between two known ones (say 1.21 or 2.5 before 2.4 existed):
	// the newest known line below it.
	var below Release
	for _, r := range releases {
		if r.Major < maj || r.Major == maj && r.Minor < min {
			below = r
		}
	}
	return Resolved{Release: below, Version: version,
		Note: fmt.Sprintf("Crossplane %s is no release line xpkgkit knows: judged as %s", strings.TrimPrefix(version, "v"), below.Line)}, nil
}

// AtLeast reports whether r is line major.minor or later.
func (r Release) AtLeast(major, minor int) bool {
	return r.Major > major || r.Major == major && r.Minor >= minor
}
