// Package apidiff finds the changes between two versions of a package's
// APIs: the CustomResourceDefinitions and ManagedResourceDefinitions of a
// Provider, the CompositeResourceDefinitions of a Configuration. Platform
// users write claims, composite and managed resources against them, so a
// removed field or a narrowed enum breaks their objects at the next
// upgrade.
//
// Diff compares every definition both packages hold, version by version,
// and classifies each change as breaking, may break, or compatible
// (Class). With the packages' versions (WithVersions), a breaking change
// that comes without a major semver bump, on a package at 1.0 or later, is
// an error; other breaking changes and those that may break are warnings,
// compatible ones info. Each change is positioned in both packages.
//
// Each kind of change is a lint rule of linter/changerules (XP701-XP724
// in the rule catalog), whose Lint runs them over the changes with the
// linter's options, giving linter.Diagnostic values for the usual output
// formats; this package imports no linter. xpkg-lint's --against flag
// runs it.
//
// Cost: linear in the definitions and their schema nodes. Definitions
// whose bytes are equal are not decoded, the context is checked at every
// schema node, and the changes kept per kind are capped (WithMaxChanges).
package apidiff
