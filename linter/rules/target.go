package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"github.com/Masterminds/semver/v3"

	"github.com/xpkgkit/xpkgkit/internal/target"
	"github.com/xpkgkit/xpkgkit/meta"
)

// release returns the Crossplane release line the pass judges for: the
// one WithCrossplaneVersion maps to, else the default line.
func release(p *linter.Pass) target.Release {
	return p.Shared(releaseKey{}, func() any {
		t, err := target.Resolve(p.CrossplaneVersion)
		if err != nil || t.Line == "" {
			return target.Default() // Lint refuses a version that is not semver
		}
		return t.Release
	}).(target.Release)
}

// releaseKey is the Pass.Shared key of release.
type releaseKey struct{}

// installRegrade is the Regrade of the rules whose errors are about
// installing the package's objects: in a Function package, at a target
// that installs none of a Function's objects (from v2.2), they are
// warnings.
func installRegrade(p *linter.Pass, d *linter.Diagnostic) {
	if d.Severity == linter.SeverityError && functionObjectsIgnored(p) {
		d.Severity = linter.SeverityWarning
		d.Message += " (a warning: Crossplane " + release(p).Line + " installs none of a Function's objects)"
	}
}

// targetName names the target in messages: the version given, else the
// default line.
func targetName(p *linter.Pass) string {
	if p.CrossplaneVersion != "" {
		return p.CrossplaneVersion
	}
	return release(p).Line
}

// targetVersion is the Crossplane version the pass judges for: the one
// given, else the release the default line was read from (v2.4.0): a
// default target is a target.
func targetVersion(p *linter.Pass) string {
	if p.CrossplaneVersion != "" {
		return p.CrossplaneVersion
	}
	return release(p).Patch
}

// checkConstraint returns nil when Crossplane of release r reads s as a
// version constraint, else why it does not. Before v2.3 (semver v1.5.0)
// a constraint the v3 module refuses too gets v3's reason, which is the
// clearer one, unless its only fault is a space between comparisons.
func checkConstraint(r target.Release, s string) error {
	_, err := r.ParseConstraint(s)
	if err == nil {
		return nil
	}
	if r.Semver == target.SemverV1 && !target.SpaceJoined(err) {
		if _, err3 := semver.NewConstraint(s); err3 != nil {
			return err3
		}
	}
	return err
}

// functionObjectsIgnored reports whether the package is a Function whose
// objects the target's package manager does not install (from v2.2 a
// filtering establisher installs only the kinds of each package type,
// none for a Function: crossplane commit 36f59bef1,
// internal/controller/pkg/revision/establisher.go FilteringEstablisher).
func functionObjectsIgnored(p *linter.Pass) bool {
	return p.Kind == meta.KindFunction && !release(p).InstallsFunctionObjects
}
