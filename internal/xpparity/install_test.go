package xpparity

import (
	"bytes"
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apiserver"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// crdsDir holds Crossplane's CRDs at Target (cluster/crds of crossplane
// v2.4.0, in ../shared beside the repository).
var crdsDir = filepath.Join("..", "..", "..", "shared", "crossplane-crds", Target)

// installDisagreements are the objects (package, then "Kind name") on
// whose install xpkgkit deliberately differs from Crossplane's and the
// API server's code. Every entry is a promise broken on purpose.
var installDisagreements = map[string]disagreement{}

// TestInstallParity judges the objects of Crossplane's own kinds in every
// package (a YAML stream) of the verdict table as the package manager
// installs them at Target: decoded into Crossplane's Go types, encoded as
// the client sends them, and validated by apiextensions-apiserver against
// Target's CRDs (InstallObjects). xpkgkit at Target, with the API-server
// rules as xpkg-lint runs them, must agree object by object: XP422 (the
// API server refuses it) exactly on the objects the API server refuses,
// and some error on every object it refuses.
func TestInstallParity(t *testing.T) {
	t.Parallel()
	if fi, err := os.Stat(crdsDir); err != nil || !fi.IsDir() {
		t.Skipf("Crossplane %s's CRDs not found at %s", Target, crdsDir)
	}
	seen := map[string]bool{}
	judged := 0
	for _, c := range readCases(t) {
		if seen[c.Package] || !strings.HasSuffix(c.Package, ".yaml") {
			continue
		}
		seen[c.Package] = true
		t.Run(strings.TrimSuffix(c.Package, ".yaml"), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			p := filepath.Join(verdictsDir, "packages", c.Package)
			stream, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			refusals, err := InstallObjects(ctx, stream, crdsDir)
			if err != nil {
				// Refused before install: TestVerdictParity's.
				t.Skipf("not installed: %v", err)
			}
			pkg, err := parser.Parse(ctx, bytes.NewReader(stream), parser.WithFile(path.Base(p)))
			if err != nil {
				t.Skipf("xpkgkit cannot read it: %v", err)
			}
			opts := append([]linter.Option{linter.WithRuleSet(rules.Builtin()...), linter.WithCrossplaneVersion(Target)}, apiserver.LintOptions()...)
			res, err := linter.Lint(ctx, pkg, opts...)
			if err != nil {
				t.Fatal(err)
			}
			refused := map[string]string{}
			for _, r := range refusals {
				refused[r.GVK.Kind+" "+r.Name] = r.Err
			}
			xp422 := map[string][]string{}
			errored := map[string]bool{}
			for _, d := range res.Diagnostics {
				if d.Severity != linter.SeverityError || d.Object == nil {
					continue
				}
				k := d.Object.Kind + " " + d.Object.Name
				errored[k] = true
				if d.RuleID == "XP422" {
					xp422[k] = append(xp422[k], d.Message)
				}
			}
			for _, o := range pkg.Objects {
				if !crossplaneGroups[o.GroupVersionKind().Group] {
					continue
				}
				k := o.Kind + " " + o.ObjectMeta.Name
				why, ref := refused[k]
				var problem string
				switch {
				case ref && !errored[k]:
					problem = "the API server refuses it (" + why + "); xpkgkit reports no error"
				case !ref && len(xp422[k]) > 0:
					problem = "the API server accepts it; XP422 says: " + strings.Join(xp422[k], "; ")
				}
				d, deliberate := installDisagreements[c.Package+" "+k]
				switch {
				case problem != "" && deliberate:
					t.Logf("%s: deliberate disagreement (%s): %s", k, d.crossplane, d.reason)
				case problem != "":
					t.Errorf("%s at %s: %s", k, Target, problem)
				case deliberate:
					t.Errorf("%s is listed as a deliberate disagreement but xpkgkit agrees: remove it", k)
				}
			}
		})
		judged++
	}
	if judged == 0 {
		t.Error("no package of cases.yaml judged")
	}
	for k := range installDisagreements {
		if !slices.ContainsFunc(readCases(t), func(c verdictCase) bool { return strings.HasPrefix(k, c.Package+" ") }) {
			t.Errorf("%s is listed but is no package of cases.yaml", k)
		}
	}
}
