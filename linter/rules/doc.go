// Package rules holds xpkgkit's built-in package rules (XP0xx-XP5xx,
// documented in RULES.md): Builtin returns them, Lookup finds one by ID or
// name. They are written with the public API of package linter only, as
// a rule of the caller's is; give them to linter.Lint with
// linter.WithRuleSet(rules.Builtin()...). LintPackage lints a package
// opened with xpkg (its image facts and examples as inputs), and
// BuildCheck is the lint gate of xpkg.Build (xpkg.WithCheck).
//
// The parser's document errors become diagnostics of XP001 yaml-syntax
// (syntax errors, limit errors and anything unclassified), XP002
// missing-type (no or unknown apiVersion/kind, a document that is not an
// object) and XP005 field-type (a value of the wrong type), so a user
// sees one list.
//
// # Severity policy
//
// Every built-in rule holds to one policy, so that a run with no error
// means Crossplane will accept the package, and a run with an error means
// it will not, or that the package cannot work:
//
//   - SeverityError: Crossplane's build (crossplane xpkg build) or its
//     package manager refuses the package, or the API server rejects one of
//     the package's objects (or the package revision carrying its metadata)
//     at install, or the package cannot work as written (a dependency that
//     can never resolve, a CRD that can never be served). The Doc of every
//     error-severity rule names the Crossplane or Kubernetes code behind the
//     claim, as package and function at a stated version, so a reader can
//     check it.
//   - SeverityWarning: Crossplane accepts the package, but something in it
//     is deprecated, ignored, ambiguous or likely a mistake.
//   - SeverityInfo: documentation and good practice.
//
// Where the answer depends on the Crossplane version, a rule follows the
// release line (1.20, 2.0 ... 2.4) of linter.WithCrossplaneVersion, and
// linter.DefaultCrossplaneVersion (v2.4, the newest stable line) when no version
// is given; one table says what changes at each line (RULES.md, "By
// target"), and Result.Target names the line a Lint call followed.
// linter.WithSeverity regrades a rule's diagnostics whatever the policy says.
//
// The tests hold the rules to the policy: testdata/verdicts is a table of
// small packages, each with the Crossplane release it is judged at, the
// verdict that release reaches on it and the line of Crossplane's code
// that decides it, and the linter must reach the same verdict (exit 1 exactly when Crossplane refuses the
// package or it cannot work); every rule's Bad example must draw it and
// its Good example no error; and every fixture states the severity it
// expects.
package rules
