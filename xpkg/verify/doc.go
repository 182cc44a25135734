// Package verify verifies the cosign signatures of packages in OCI
// registries, outside a cluster, against the policies Crossplane's
// ImageConfig objects state (spec.verification.cosign.authorities), with
// the sigstore project's own library, sigstore-go. It is the only package
// of xpkgkit that links the signature libraries: a program that does not
// verify does not import it, and does not pay for them.
//
// In use: parse the ImageConfigs (package xpkg/imageconfig); build a
// Verifier with New, giving it the public keys its key authorities name
// (WithPublicKeyFile) and, for keyless authorities, a Sigstore trusted
// root (WithTrustedRootFile); call VerifyWithSet with the reference
// Crossplane would pull (after imageconfig.Set.Rewrite), or Verify with one
// policy; then read the package only at Result.PinnedReference, the
// digest that verified, since a tag may move. Example_imageConfigs shows
// the whole flow against a registry on a loopback port.
//
// A Verifier resolves a reference once to a digest and pins every later
// read to it. It finds signatures in both forms cosign writes:
//
//   - cosign v3 bundles attached as OCI referrers (artifact type
//     application/vnd.dev.sigstore.bundle.v0.3+json), through the
//     registry's referrers API or, for a registry without it, the
//     referrers tag schema ("sha256-<hex>");
//   - legacy signatures, the layers of the manifest tagged
//     "sha256-<hex>.sig": a simple-signing payload naming the digest, its
//     signature, certificate, Rekor bundle and RFC 3161 timestamp in
//     annotations;
//   - for an authority with attestations, also legacy attestations, the
//     layers of the manifest tagged "sha256-<hex>.att" (cosign v2 attest):
//     DSSE envelopes of in-toto statements, with the same annotations.
//
// An authority with a key verifies signatures made with that key (the
// caller maps key.secretRef to PEM data or a file: secrets live in a
// cluster). A keyless authority verifies signatures whose Fulcio
// certificate chains to the trusted root given (a trusted_root.json file:
// nothing is fetched, so verification works offline), whose transparency
// log entry and timestamps the trusted root's logs and authorities sign,
// and whose identity is one of the authority's (a regular expression takes
// precedence over an exact value, as Crossplane's API states). An
// authority with attestations requires a verified in-toto attestation of
// each predicate type it lists.
//
// Every failure is typed: ErrNoSignature, ErrNoMatchingAuthority with the
// failure of each signature for each authority (ErrIdentityMismatch,
// ErrUntrustedRoot, ErrSubjectMismatch, ErrInvalidSignature,
// ErrMissingAttestation, ErrMalformedSignature), or ErrPolicy. Reads are bounded
// (Limits): the referrers listed, the signature artefacts fetched, each
// signature manifest and each bundle or payload blob, and all of them
// together, each verified against its descriptor as it streams.
//
// Differences from Crossplane (crossplane-runtime pkg/xpkg/signature,
// v2.5.0-rc.0): Crossplane verifies against the public-good Sigstore
// instance fetched at start-up and requires a transparency-log entry for
// key signatures too; this package takes the trusted root as a file and
// accepts a key signature without a log entry (as cosign does with
// --insecure-ignore-tlog), since a key authority's trust is the key.
// Crossplane accepts an authority with attestations when one attestation
// of any listed predicate type verifies; this package requires every
// listed predicate type.
package verify
