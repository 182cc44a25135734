// Package graphrules holds the graph rules (XP601-XP612 in the rule
// catalog): rules of scope linter.ScopeGraph over a dependency graph that
// xpkg/deps resolved. They ask whether the graph will install:
// dependencies that resolve to nothing (XP601), constraints with no
// version in common (XP602), cycles (XP603), kinds other than declared
// (XP604), packages excluding the target Crossplane version (XP605),
// pipeline steps naming no Function of the graph (XP606), composed types
// nothing serves, and composed bases that do not match their schema
// (XP607), selections that do not settle (XP608), what the graph puts on
// the API server (XP609, XP610) and its MRDs' activation (XP611, XP612).
//
// Rules returns them (WithFootprintLimits sets XP610's thresholds), and
// Lint runs them over a *deps.Graph with the linter's options
// (linter.WithDisabled, WithSeverity, WithMaxDiagnostics,
// WithCrossplaneVersion) and the root package's suppression annotations,
// so that one configuration serves a package's rules and its graph's.
// Their IDs and names are API.
//
// The rules are written as any author's rule is: each Run is made with
// linter.RunOn, which hands it the *deps.Graph that Lint gives
// linter.LintSubject, and reads the graph through deps's public API.
//
// Cost: each rule is linear in the graph's packages, entries and
// Compositions, checks the context once per package, and reports at most
// linter.WithMaxDiagnostics diagnostics.
package graphrules
