package oci

import (
	"github.com/xpkgkit/xpkgkit/internal/ref"
)

// ErrInvalidReference is the class of strings that are not image
// references. Every package of the module that parses a reference (oci,
// oci/remote, xpkg, xpkg/deps) returns errors of this class.
var ErrInvalidReference = ref.ErrInvalid

// Reference is a parsed image reference:
//
//	[registry[:port]/]repository[:tag][@algorithm:hex]
//
// The first path component is the registry host only when it holds a '.' or
// a ':' or is "localhost", as OCI distribution tooling decides. No default
// registry or tag is assumed (Crossplane v2 assumes none): Registry, Tag and
// Digest are empty when the reference does not give them. It is the one
// reference type of the module: package oci/remote pulls by it, package xpkg
// checks the references of a package's dependencies with it.
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

// ParseReference parses s as an image reference. It does not complete it:
// a reference without a registry host parses, with Registry empty. The
// error wraps ErrInvalidReference.
func ParseReference(s string) (Reference, error) {
	r, err := ref.Parse(s)
	return Reference(r), err
}

// Name returns the registry and repository, joined by '/' when there is a
// registry: the reference without tag or digest.
func (r Reference) Name() string { return ref.Reference(r).Name() }

// String returns the reference in its canonical text form.
func (r Reference) String() string { return ref.Reference(r).String() }
