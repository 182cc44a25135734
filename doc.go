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
//
// The programs under examples/ show each use, starting with the xpkg-lint CLI.
package xpkgkit
