// Package changerules holds the API change rules (XP701-XP724 in the rule
// catalog): one rule of scope linter.ScopeChange per kind of change that
// linter/apidiff's Diff finds between two versions of a package's APIs.
//
// Rules returns them, and Lint runs them over the changes of an
// *apidiff.Result with the linter's options (linter.WithDisabled,
// WithSeverity, WithMaxDiagnostics, and the new package's suppression
// annotations), giving linter.Diagnostic values for the usual output
// formats. A change's diagnostic is an error when the change is one
// (apidiff.Change.Error: refused at install, or a semver violation),
// information when it is compatible, and a warning otherwise. xpkg-lint's
// --against flag runs them.
//
// The rules are written as any author's rule is: each Run is made with
// linter.RunOn, which hands it the *apidiff.Result that Lint gives
// linter.LintSubject.
package changerules
