package apiserver

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/target"
	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// targetVersions are the Crossplane versions a package is linted at in
// the tests below: the release each line of the target table was read
// from, and no target (the default line).
func targetVersions() []string {
	var vs []string
	for _, r := range target.Releases() {
		vs = append(vs, r.Patch)
	}
	return append(vs, "")
}

// lintErrors lints pkg at version v with the built-in rules and this
// package's, as xpkg-lint does, and returns its errors and rule failures.
func lintErrors(t *testing.T, pkg *parser.Package, v string) []string {
	t.Helper()
	opts := append([]linter.Option{linter.WithCrossplaneVersion(v)}, LintOptions()...)
	res, err := linter.Lint(context.Background(), pkg, append([]linter.Option{linter.WithRuleSet(rules.Builtin()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, f := range res.Failures {
		errs = append(errs, "rule failure: "+f.Error())
	}
	for _, d := range res.Diagnostics {
		if d.Severity == linter.SeverityError {
			errs = append(errs, d.String())
		}
	}
	return errs
}

// TestCorpusTargets: every real package of the corpus but the monolith
// (whose 1 MB of CRDs XP420 validates for a minute) draws no error at any
// release line, with the API server's checks on, as xpkg-lint runs them.
func TestCorpusTargets(t *testing.T) {
	t.Parallel()
	for _, name := range testcorpus.Names() {
		if name == "provider-upjet-aws-monolith" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pkg := parseCorpus(t, name)
			for _, v := range targetVersions() {
				for _, e := range lintErrors(t, pkg, v) {
					t.Errorf("target %q: %s", v, e)
				}
			}
		})
	}
}

// TestTargetSchemas: a Composition is judged by its target's own CRD.
// upbound/configuration-azure-database v0.2.0 (testdata, its source at tag
// v0.2.0, commit 35006e39b, Apache-2.0) composes in Resources mode, which
// Crossplane 1.20's Composition CRD defaults to and accepts: no error at
// v1.20. From v2.0 the mode defaults to Pipeline and the CRD's rule "an
// array of pipeline steps is required in Pipeline mode" refuses it, and
// XP410 says it would compose nothing (XP422's message for the same
// problem is left out: one problem, one finding), and that the pipeline
// its fix writes calls a Function that dependsOn does not name.
func TestTargetSchemas(t *testing.T) {
	t.Parallel()
	pkg, err := parser.ParseFS(context.Background(), os.DirFS("testdata/configuration-azure-database"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range targetVersions() {
		errs := lintErrors(t, pkg, v)
		r, _ := target.Resolve(v)
		if r.ResourcesMode {
			for _, e := range errs {
				t.Errorf("target %q: %s", v, e)
			}
			continue
		}
		var onCompositions, onDeps int
		for _, e := range errs {
			switch {
			case !strings.Contains(e, " XP410 "):
			case strings.HasPrefix(e, "apis/mariadb/composition.yaml:"), strings.HasPrefix(e, "apis/postgresql/composition.yaml:"):
				onCompositions++
			case strings.HasPrefix(e, "crossplane.yaml:") && strings.Contains(e, "function-patch-and-transform"):
				onDeps++
			}
		}
		if len(errs) != 3 || onCompositions != 2 || onDeps != 1 {
			t.Errorf("target %q: %d errors, want 3 (XP410 on both Compositions, and on the Function its fix needs in dependsOn): %q", v, len(errs), errs)
		}
	}
}
