package xpkg

import (
	"github.com/xpkgkit/xpkgkit/internal/ref"
	"github.com/xpkgkit/xpkgkit/oci"
)

// References are oci.Reference values (oci.ParseReference parses one; its
// errors wrap oci.ErrInvalidReference). What this package adds is what
// Crossplane asks of a package's references.

// Classes of dependency reference and version errors; test with
// errors.Is. A string that is no reference at all is of class
// oci.ErrInvalidReference.
var (
	// ErrNoRegistry: a dependency's reference names no registry host.
	ErrNoRegistry = ref.ErrNoRegistry
	// ErrReferenceHasTag: a dependency's reference carries a tag (its
	// version belongs in the version field).
	ErrReferenceHasTag = ref.ErrHasTag
	// ErrReferenceHasDigest: a dependency's reference carries a digest.
	ErrReferenceHasDigest = ref.ErrHasDigest
)

// CheckDependency checks a dependency's package reference (spec.dependsOn
// package) the way Crossplane v2 needs it: a valid reference that names its
// registry host and carries neither tag nor digest, since the dependency's
// version field says which version. Every problem found is returned, joined;
// the errors wrap oci.ErrInvalidReference, ErrNoRegistry,
// ErrReferenceHasTag or ErrReferenceHasDigest.
func CheckDependency(s string) (oci.Reference, error) {
	r, err := ref.CheckDependency(s)
	return oci.Reference(r), err
}
