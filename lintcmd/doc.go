// Package lintcmd turns a rule set into a lint program with the whole
// command line of xpkg-lint, as golang.org/x/tools/go/analysis's
// singlechecker and multichecker do for analyzers.
//
// A team that writes its own rules ships them in a program of a few lines:
//
//	func main() { lintcmd.Main(myRule()) }
//
// The program reads every source kind xpkg.Open recognises (.xpkg files,
// OCI layouts and tars, package directories, package.yaml streams, standard
// input, registry references), writes text, JSON, SARIF 2.1.0 or GitHub
// Actions annotations (-o), exits 0, 1 (a finding at or above --fail-on) or
// 2 (a source, a dependency or the configuration cannot be read), and has
// --explain, --list-rules, --version, --disable, --severity,
// --crossplane-version, --deps and the registry flags. Its rules are the
// built-in ones (linter/rules.Builtin) plus the caller's; WithoutBuiltin leaves
// the built-in ones out. examples/xpkg-lint is this package with the
// built-in rules only.
//
// --version prints the main module's version from the build info
// (runtime/debug.ReadBuildInfo), which SARIF also records as the tool's
// version.
package lintcmd
