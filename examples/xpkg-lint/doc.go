// Command xpkg-lint lints Crossplane packages: every problem the built-in
// rules of package linter find, each with its rule ID and name, severity,
// file, line and column.
//
//	xpkg-lint [flags] SOURCE...
//
// A SOURCE is anything xpkg.Open recognises by content: a .xpkg file (the
// docker archive the Crossplane CLI builds), an OCI image layout directory
// or tar, a package directory (crossplane.yaml at its root or in
// package/), a package.yaml stream, "-" for standard input, or a reference
// to a package in a registry ("xpkg.example.org/org/name:v1.2.3", pulled
// when no local path has that name; --registry-config, --plain-http,
// --cache-dir, --offline). Several
// sources are linted in parallel; the report keeps their order.
//
// --verify (with --image-config, --verify-key SECRET/KEY=FILE and
// --trusted-root FILE) verifies the cosign signatures of each package
// pulled from a registry, and with --deps of every package of the graph,
// as the ImageConfigs' spec.verification states, through package
// xpkg/verify, which this program passes to lintcmd with
// lintcmd.WithVerifier; a package is then read at the digest verified.
//
// The report is text (grouped by source, with a summary line; coloured on a
// terminal; each line as linter.Diagnostic.String prints it, "file:line:col:
// severity ID name: message"), JSON (-o json), SARIF 2.1.0 (-o sarif, for
// code scanning) or GitHub Actions annotations (-o github). Standard input
// is named "<stdin>" in every format.
//
// JSON is one object, described by linter/diagnostic.schema.json (its
// "report" definition): "diagnostics", the findings that count, each in
// linter.Diagnostic's JSON encoding ("rule", "name", "severity", "message",
// "source", "file", "document", "line", "column", and "field", "object"
// when they apply); "suppressed", the findings an annotation silenced
// (lint.xpkgkit.dev/ignore: "XP205: reason"), each with "suppressed":
// {"reason": ...}; "baselined", those the baseline holds; and "summary",
// the counts (sources, unreadable, errors, warnings, info, suppressed,
// baselined, staleBaseline). A source that cannot be read or linted is one
// finding of rule XP000 source-unreadable, severity error, line 0, whose
// message says why (the exit status is still 2). The text and github
// formats leave suppressed and baselined findings out and say how many
// there were; SARIF carries suppressed ones with "suppressions". For an
// image, "source" is the image and "file" the file inside it
// (package.yaml); SARIF lists the image as an artifact and the file as an
// artifact nested in it, and -o github annotates the image, the message
// starting with the file's position. Rules are turned off with
// --disable and regraded with --severity; --fail-on sets the least severity
// that fails the run; --explain describes a rule and --list-rules lists
// them.
//
// --against OLD compares each SOURCE's API definitions (CRDs, MRDs, XRDs)
// with those of OLD, an older version of the package in any SOURCE form
// (typically its previous tag in a registry), and reports each change as a
// finding of rules XP701-XP724 (linter/apidiff) at its position in SOURCE;
// a breaking change is an error when the version change (the references'
// tags, or --package-version and --against-version) is not a major semver
// bump on a package at 1.0 or later.
//
// The exit status is 0 when no diagnostic is at or above --fail-on (error
// by default), 1 when one is, and 2 when a source cannot be read or linted
// (with --deps: when a dependency cannot be read for a reason that says
// nothing about it, such as a network or registry failure) or the flags are
// wrong; each unreadable source gets one line on standard error.
//
// A repository configures it in .xpkg-lint.yaml or .xpkg-lint.yml (found
// from each source upward, or --config FILE; keys named like the flags:
// ignore, disable, severity, fail-on, crossplane-version, deps-from,
// against, image-config, baseline, and exclude, findings left out by path
// and rule). --baseline FILE accepts the findings FILE holds (which must
// exist; --write-baseline writes it), so that only new ones fail the run. --fix applies the rules' suggested fixes to a
// package directory in place, --diff prints them as a unified diff.
//
// It is package lintcmd with the built-in rules: a program of one
// line. --version prints the module's version from the build info.
//
// Run it on the package shipped in the repository:
//
//	go run ./examples/xpkg-lint xpkg/testdata/build/provider-example
package main
