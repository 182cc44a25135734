// Package xpkgkit reads, parses and lints Crossplane packages ("xpkg").
//
// A Crossplane package is an OCI image whose base layer holds package.yaml: a
// YAML stream with one Provider, Configuration or Function meta object and the
// objects it installs. xpkgkit is a set of small packages that each own one
// step of reading such a package, so a program takes only what it needs:
//
//   - [github.com/xpkgkit/xpkgkit/oci] reads blobs by verified digest from OCI
//     image layouts, layout tars and docker archives (.xpkg), resolves an index
//     to one manifest, opens layers and reads a file from a layer or from the
//     flattened filesystem, within limits.
//   - [github.com/xpkgkit/xpkgkit/meta] holds the Go types of the
//     meta.pkg.crossplane.io API and their schemes.
//   - [github.com/xpkgkit/xpkgkit/parser] splits a YAML stream into documents
//     with exact positions and decodes them through pluggable schemes.
//   - [github.com/xpkgkit/xpkgkit/linter] runs rules over a parsed package and
//     reports positioned diagnostics; users add their own rules.
//   - [github.com/xpkgkit/xpkgkit/xpkg] ties them together: the layer selector,
//     Open for any source, Build, and test fixtures.
//   - [github.com/xpkgkit/xpkgkit/limit], below them all, holds what their
//     limits share: the convention of a Limits field (zero is the default,
//     Unlimited lifts it) and the one error a limit exceeded returns.
//
// The programs under examples/ show each use, starting with the xpkg-lint CLI.
//
// # Compatibility
//
// The module follows semantic versioning. The public API is every exported
// name of the packages above and of their sub-packages that are not under
// internal/ or examples/; api/xpkgkit.txt lists it, one line per name, and a
// test fails when the API changes without that file changing in the same
// commit (go test ./internal/apicheck -update regenerates it), so every
// change is visible in review.
//
// From v1.0.0 on, a minor or patch release neither removes nor changes an
// exported name, and the JSON encoding of linter.Diagnostic (described by
// linter/diagnostic.schema.json) only gains optional fields. What is not
// covered by the promise: the text of error messages and diagnostics
// (match errors with errors.Is and errors.As, diagnostics by rule ID),
// the set of built-in rules and their default severities (rules are added,
// and a severity follows Crossplane's behaviour as it changes: rule IDs are
// never reused), the default limits, the programs under examples/, and the
// Go version the module requires (the lowest that its dependencies need).
//
// Before v1.0.0 (v0.x), a minor release may change the API; each such change
// is listed in the release notes and shows in api/xpkgkit.txt. A patch
// release does not change the API.
package xpkgkit
