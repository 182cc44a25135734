// Package semverv1 reads version constraints as Crossplane does.
//
// Crossplane v2.1.0 parses a package's spec.crossplane.version and its
// dependencies' version constraints with github.com/Masterminds/semver
// v1.5.0 (its go.mod; internal/xpkg PackageValidSemver at build and install,
// internal/version Versioner.InConstraints, internal/controller/pkg/resolver
// and internal/controller/pkg/revision at install). That version's grammar
// and pre-release rule differ from the v3 module's:
//
//   - comparisons are joined with ',' only: ">=v1.0.0 <v2.0.0" does not
//     parse (v3 reads the space as a ',');
//   - each comparison on its own refuses a pre-release version unless its
//     own bound names a pre-release (but for "!=" with a full version), so
//     ">=v1.2.0-0, <v2.0.0" admits no pre-release, where v3 admits one when
//     any comparison of the group names one.
//
// Parse follows v1.5.0; versions are github.com/Masterminds/semver/v3
// versions, compared by semantic version precedence as in both.
package semverv1
