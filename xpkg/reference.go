package xpkg

import (
	"github.com/xpkgkit/xpkgkit/internal/ref"
)

// Reference is a parsed package (image) reference:
//
//	[registry[:port]/]repository[:tag][@algorithm:hex]
//
// The first path component is the registry host only when it holds a '.' or
// a ':' or is "localhost", as OCI distribution tooling decides. Crossplane v2
// assumes no default registry, so nothing is filled in: Registry, Tag and
// Digest are empty when the reference does not give them.
type Reference struct {
	// Registry is the registry host, with its port if any; empty when the
	// reference names none.
	Registry string
	// Repository is the path inside the registry, e.g.
	// "crossplane-contrib/provider-aws".
	Repository string
	// Tag is the tag, without its ':'; empty when there is none.
	Tag string
	// Digest is the digest, "algorithm:hex"; empty when there is none.
	Digest string
}

// Classes of reference and version errors; test with errors.Is.
var (
	// ErrInvalidReference: the string is not a valid image reference.
	ErrInvalidReference = ref.ErrInvalid
	// ErrNoRegistry: a dependency's reference names no registry host.
	ErrNoRegistry = ref.ErrNoRegistry
	// ErrReferenceHasTag: a dependency's reference carries a tag (its
	// version belongs in the version field).
	ErrReferenceHasTag = ref.ErrHasTag
	// ErrReferenceHasDigest: a dependency's reference carries a digest.
	ErrReferenceHasDigest = ref.ErrHasDigest
	// ErrInvalidVersion: a dependency version is neither a semver
	// constraint nor a digest.
	ErrInvalidVersion = ref.ErrInvalidVersion
)

// ParseReference parses s as a package reference. It does not complete it:
// a reference without a registry host parses, with Registry empty (see
// CheckDependency, which reports it). The error wraps ErrInvalidReference.
func ParseReference(s string) (Reference, error) {
	r, err := ref.Parse(s)
	return Reference(r), err
}

// CheckDependency checks a dependency's package reference (spec.dependsOn
// package) the way Crossplane v2 needs it: a valid reference that names its
// registry host and carries neither tag nor digest, since the dependency's
// version field says which version. Every problem found is returned, joined;
// the errors wrap ErrInvalidReference, ErrNoRegistry, ErrReferenceHasTag or
// ErrReferenceHasDigest.
func CheckDependency(s string) (Reference, error) {
	r, err := ref.CheckDependency(s)
	return Reference(r), err
}

// CheckVersionConstraint checks a dependency version: a semantic version
// constraint (Masterminds syntax, as Crossplane uses, e.g. ">=v1.2.0",
// "v1", "~1.3") or a digest "sha256:<64 lower-case hex digits>". The error
// wraps ErrInvalidVersion.
func CheckVersionConstraint(v string) error { return ref.CheckVersion(v) }

// FriendlyName derives a DNS-1123 label from a reference, to name objects
// or cache entries after a package: the repository's last component, then
// the tag or the first 12 hex digits of the digest. Unlike Crossplane's own
// helper, it lower-cases upper-case letters rather than dropping them and
// keeps enough of a digest to tell images apart; other characters a label
// cannot hold become '-', and the result is at most 63 characters.
func FriendlyName(r Reference) string { return ref.FriendlyName(ref.Reference(r)) }

// Name returns the registry and repository, joined by '/' when there is a
// registry: the reference without tag or digest.
func (r Reference) Name() string { return ref.Reference(r).Name() }

// String returns the reference in its canonical text form.
func (r Reference) String() string { return ref.Reference(r).String() }
