package verify

import (
	"errors"
	"fmt"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
)

// Classes of verification failures; test with errors.Is. A failed Verify
// returns an *Error, which matches ErrNoSignature when the package has no
// signature at all, and otherwise ErrNoMatchingAuthority together with the
// class of every signature's failure for every authority (so a package
// whose only signature is by another identity matches both
// ErrNoMatchingAuthority and ErrIdentityMismatch).
var (
	// ErrNoSignature: no signature is attached to the package's digest,
	// neither as a cosign bundle referrer nor as a legacy ".sig" tag.
	ErrNoSignature = errors.New("verify: no signature")
	// ErrNoMatchingAuthority: signatures exist, but none verifies for any
	// of the policy's authorities.
	ErrNoMatchingAuthority = errors.New("verify: no authority verifies the package")
	// ErrIdentityMismatch: a certificate chains to a trusted root and its
	// signature is valid, but its identity (subject and issuer) is none of
	// the authority's.
	ErrIdentityMismatch = errors.New("verify: certificate identity does not match")
	// ErrUntrustedRoot: a signature's certificate does not chain to a
	// Fulcio root of the trusted root, or was not valid when the signature
	// was made (expired, not yet valid), or its transparency-log or
	// timestamp evidence is not signed by a trusted log or authority.
	ErrUntrustedRoot = errors.New("verify: certificate or log evidence not trusted")
	// ErrSubjectMismatch: a valid signature is for another digest than the
	// package's, or a reference's digest is not what the registry has.
	ErrSubjectMismatch = errors.New("verify: signature is for another digest")
	// ErrInvalidSignature: a signature does not verify against the
	// authority's key or its certificate's key.
	ErrInvalidSignature = errors.New("verify: signature does not verify")
	// ErrMissingAttestation: an authority requires an attestation of a
	// predicate type that no verified attestation has.
	ErrMissingAttestation = errors.New("verify: required attestation missing")
	// ErrMalformedSignature: a signature artefact cannot be read (not JSON, a
	// bundle the sigstore libraries reject, a missing annotation).
	ErrMalformedSignature = errors.New("verify: malformed signature artefact")
	// ErrPolicy: the policy cannot be applied (an authority with neither
	// key nor keyless, a key the caller did not provide, keyless without a
	// trusted root, an invalid regular expression).
	ErrPolicy = errors.New("verify: invalid policy")
)

// Error is the error of a failed verification.
type Error struct {
	// Reference is the reference as given.
	Reference string
	// Digest is the digest the reference resolved to; "" when resolving
	// failed.
	Digest digest.Digest
	// Class is ErrNoSignature, ErrNoMatchingAuthority, ErrSubjectMismatch,
	// ErrPolicy or another failure of the whole verification.
	Class error
	// Failures are the failures of each signature for each authority, in
	// a deterministic order (authorities in policy order, signatures in
	// the order found); at most MaxFailures of them.
	Failures []*Failure
	// Err is an underlying error (a registry's), or nil.
	Err error
}

// Failure is why one signature did not verify for one authority.
type Failure struct {
	// Authority is the authority's name.
	Authority string
	// Source says where the signature is: "referrer sha256:...",
	// "sha256-<hex>.sig layer 0".
	Source string
	// Err is one of the classes (ErrIdentityMismatch, ErrUntrustedRoot,
	// ErrSubjectMismatch, ErrInvalidSignature, ErrMissingAttestation,
	// ErrMalformedSignature, ErrPolicy) wrapping the detail.
	Err error
}

// Error implements error.
func (f *Failure) Error() string {
	s := "authority " + safetext.Quote(f.Authority)
	if f.Source != "" {
		s += ": " + f.Source
	}
	return s + ": " + f.Err.Error()
}

// Unwrap returns the class.
func (f *Failure) Unwrap() error { return f.Err }

// maxShownFailures bounds the failures in an Error's text.
const maxShownFailures = 8

// Error implements error. It is safe to print: registry data is escaped
// and bounded.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("verify ")
	b.WriteString(safetext.Quote(e.Reference))
	if e.Digest != "" {
		b.WriteString(" (" + safetext.Token(e.Digest.String()) + ")")
	}
	sep := ": "
	if e.Class != nil {
		b.WriteString(sep + e.Class.Error())
	}
	if e.Err != nil {
		b.WriteString(sep + e.Err.Error())
	}
	for i, f := range e.Failures {
		if i == maxShownFailures {
			fmt.Fprintf(&b, "; and %d more", len(e.Failures)-i)
			break
		}
		b.WriteString("; " + f.Error())
	}
	s, cut := safetext.Truncate(safetext.Escape(b.String()), 4096)
	if cut {
		s += safetext.Ellipsis
	}
	return s
}

// Refused reports whether the verification refused the package, as
// Crossplane's signature verification refuses it: no signature at all
// (ErrNoSignature), signatures of which none verifies for any authority
// (ErrNoMatchingAuthority), or a reference or signature for another digest
// (ErrSubjectMismatch). It is false when the verification could not be
// made: the policy cannot be applied (ErrPolicy, among the failures too: a
// key the caller did not give, keyless without a trusted root) or the
// registry could not be read (no class). A program that reports
// verification maps Refused to "the package is refused" (xpkg-lint: exit
// 1) and the rest to "could not be checked" (exit 2).
func (e *Error) Refused() bool {
	if e.Class == nil || errors.Is(e, ErrPolicy) {
		return false
	}
	return errors.Is(e.Class, ErrNoSignature) || errors.Is(e.Class, ErrNoMatchingAuthority) || errors.Is(e.Class, ErrSubjectMismatch)
}

// Unwrap returns the class, the underlying error and every failure.
func (e *Error) Unwrap() []error {
	errs := make([]error, 0, 2+len(e.Failures))
	if e.Class != nil {
		errs = append(errs, e.Class)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	for _, f := range e.Failures {
		errs = append(errs, f)
	}
	return errs
}

// classed wraps detail in class, quoting detail's text escaped.
func classed(class error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", class, safetext.Escape(fmt.Sprintf(format, args...)))
}
