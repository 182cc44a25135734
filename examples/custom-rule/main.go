// Command custom-rule shows how an organisation ships its own lint rule:
// every CompositeResourceDefinition must name its owning team in the
// annotation docs.example.org/owner (rule.go).
//
// A rule is a plain linter.Rule value (an ID, a kebab-case name, a doc, a
// severity, the package kinds it applies to, and a Run function that reports
// through the Pass); it is tested with linttest against YAML fixtures
// annotated with "# want" comments (see rule_test.go). lintcmd.Main turns
// it, beside the built-in rules, into a program with the whole command line
// of xpkg-lint: every source kind and output format, the exit codes,
// --explain, --list-rules, --version, configuration, baselines and fixes.
//
//	custom-rule [flags] SOURCE...
package main

import "github.com/xpkgkit/xpkgkit/lintcmd"

func main() { lintcmd.Main(OwnerRule()) }
