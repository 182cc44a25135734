// Package xpkgkit reads, parses and lints Crossplane packages ("xpkg").
//
// A Crossplane package is an OCI image whose base layer holds package.yaml: a
// YAML stream with one Provider, Configuration or Function meta object and the
// objects it installs. xpkgkit is a set of small packages, each on one floor:
// data flows one way, from the source through oci, xpkg and parser to the
// linter, its rules and the report, and no package imports one above it. A
// program takes only what it needs: opening a .xpkg links no linter package,
// and writing a rule links no built-in rule.
//
// Reading:
//
//   - [github.com/xpkgkit/xpkgkit/limit]: the convention every Limits type
//     follows, and the one error a limit exceeded returns.
//   - [github.com/xpkgkit/xpkgkit/meta]: the meta.pkg.crossplane.io API's
//     version-independent view, kinds, schemes and annotations;
//     [github.com/xpkgkit/xpkgkit/meta/v1],
//     [github.com/xpkgkit/xpkgkit/meta/v1beta1] and
//     [github.com/xpkgkit/xpkgkit/meta/v1alpha1] hold its Go types.
//   - [github.com/xpkgkit/xpkgkit/parser]: a package.yaml stream (or the
//     on-disk format in an fs.FS) split into positioned, lazily decoded
//     objects through pluggable schemes.
//   - [github.com/xpkgkit/xpkgkit/oci]: blobs by verified digest from OCI
//     layouts, layout tars and docker archives (.xpkg), an index resolved to
//     one manifest, one file read out of a layer, within limits.
//   - [github.com/xpkgkit/xpkgkit/oci/remote]: registries over the
//     distribution API (pull, tags, push, referrers), bounded.
//   - [github.com/xpkgkit/xpkgkit/oci/cache]: a verified, content-addressed
//     local cache that several processes share.
//   - [github.com/xpkgkit/xpkgkit/oci/ocitest]: a store contract and seeded
//     random images for testing an oci.Store or oci.Fetcher.
//   - [github.com/xpkgkit/xpkgkit/xpkg]: the facade: Open for any source,
//     the layer selector and its image facts, references, reproducible Build.
//   - [github.com/xpkgkit/xpkgkit/xpkg/xpkgtest]: package fixtures built in
//     memory in one call.
//   - [github.com/xpkgkit/xpkgkit/xpkg/deps]: the dependency graph: sources,
//     resolution with Crossplane's version semantics, the lock, activation
//     and the footprint.
//   - [github.com/xpkgkit/xpkgkit/xpkg/imageconfig]: Crossplane's
//     ImageConfig policies (rewrites, pull secrets, verification).
//   - [github.com/xpkgkit/xpkgkit/xpkg/verify]: cosign signature
//     verification against ImageConfig policies, outside a cluster.
//
// Linting:
//
//   - [github.com/xpkgkit/xpkgkit/linter]: the framework: rules as values,
//     passes, positioned diagnostics, suppression, suggested fixes; it knows
//     no built-in rule.
//   - [github.com/xpkgkit/xpkgkit/linter/linttest]: tests for rules: "# want"
//     fixtures, fix goldens, graph and change rules on a subject.
//   - [github.com/xpkgkit/xpkgkit/linter/schema]: validation of objects
//     against CRD and XRD schemas as the API server validates them.
//   - [github.com/xpkgkit/xpkgkit/linter/apidiff]: the API changes between
//     two versions of a package, classified.
//   - [github.com/xpkgkit/xpkgkit/linter/rules]: the built-in package rules
//     (XP0xx-XP5xx) and LintPackage for an opened package.
//   - [github.com/xpkgkit/xpkgkit/linter/apiserver]: the opt-in rules checked
//     by the Kubernetes API server's own code (XP420-XP423), through one
//     bounded gateway, with a verdict cache;
//     [github.com/xpkgkit/xpkgkit/linter/apiserver/verdictcache] stores it in
//     a directory or a registry.
//   - [github.com/xpkgkit/xpkgkit/linter/graphrules]: the dependency graph's
//     rules (XP6xx).
//   - [github.com/xpkgkit/xpkgkit/linter/changerules]: the API change rules
//     (XP7xx).
//
// The application:
//
//   - [github.com/xpkgkit/xpkgkit/lintcmd]: a lint program for any rule set,
//     the whole command line of xpkg-lint, as go/analysis's singlechecker.
//   - [github.com/xpkgkit/xpkgkit/lintcmd/lsp]: the same checks as a
//     language server for editors.
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
