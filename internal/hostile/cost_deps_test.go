package hostile

import (
	"errors"
	"testing"

	xlimit "github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
)

// TestDepsWorstCasesCoverEveryRule: every graph rule has a worst case in
// DepsCases (a new graph rule without one fails here), every rule a case
// names is a graph rule, and the names are unique and prefixed deps-cost-.
func TestDepsWorstCasesCoverEveryRule(t *testing.T) {
	t.Parallel()
	graph := map[string]bool{}
	for _, r := range graphrules.Rules() {
		graph[r.ID] = true
	}
	covered := map[string]bool{}
	names := map[string]bool{}
	for _, c := range DepsCases() {
		if names[c.Name] {
			t.Errorf("%s: duplicate name", c.Name)
		}
		names[c.Name] = true
		if len(c.Name) < 10 || c.Name[:10] != "deps-cost-" {
			t.Errorf("%s: a dependency case's name starts with deps-cost-", c.Name)
		}
		if len(c.Rules) == 0 {
			t.Errorf("%s: names no rule", c.Name)
		}
		for _, id := range c.Rules {
			if !graph[id] {
				t.Errorf("%s: %s is no graph rule", c.Name, id)
			}
			covered[id] = true
		}
	}
	for _, r := range graphrules.Rules() {
		if !covered[r.ID] {
			t.Errorf("graph rule %s %s has no worst case in DepsCases: add the graph that gives it the most work under the resolver's default limits", r.ID, r.Name)
		}
	}
}

// TestDepsWorstCasesExercise resolves and lints each dependency case in
// process, as xpkg-lint --deps does, and checks that each rule the case
// names reported (or that the case's limit stopped it), and that no rule
// kept more than the cap (plus the diagnostic that counts the rest).
func TestDepsWorstCasesExercise(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("resolves graphs of thousands of packages: run without -race and -short (.ci/run)")
	}
	// Beside the package's other parallel tests (its cases one at a time):
	// it measures nothing, and ran alone for half a minute before them.
	t.Parallel()
	for _, c := range DepsCases() {
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			src, err := c.Write(t.Context(), dir)
			if err != nil {
				t.Fatalf("writing the case: %v", err)
			}
			pkg, err := xpkg.Open(t.Context(), src)
			if err != nil {
				t.Fatal(err)
			}
			root, err := deps.Summarize(t.Context(), pkg.Package, "")
			if err != nil {
				t.Fatal(err)
			}
			g, err := deps.NewResolver(deps.NewDirSource(c.DepsDir(dir))).Resolve(t.Context(), root)
			if c.Expect.Class == ClassLimitExceeded {
				if !errors.Is(err, xlimit.ErrExceeded) {
					t.Fatalf("Resolve: got %v, want a *limit.Error", err)
				}
				t.Logf("Resolve: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// A threshold for XP610 (the CLI's max-crds), which the
			// footprint cases exceed.
			rules := graphrules.Rules(graphrules.WithFootprintLimits(graphrules.FootprintLimits{MaxCRDs: 1000}))
			res, err := graphrules.Lint(t.Context(), g, linter.WithRuleSet(rules...), linter.WithCrossplaneVersion("v2.0.0"))
			if err != nil {
				t.Fatal(err)
			}
			ds := res.Diagnostics
			count := map[string]int{}
			for _, d := range ds {
				count[d.RuleID]++
			}
			t.Logf("%d packages, %d diagnostics by rule: %v", len(g.Nodes), len(ds), count)
			for _, id := range c.Rules {
				if count[id] == 0 {
					t.Errorf("rule %s reported nothing: the case does not exercise it", id)
				}
			}
			for id, n := range count {
				if n > linter.DefaultMaxDiagnostics+1 {
					t.Errorf("rule %s kept %d diagnostics, over the cap of %d (+1)", id, n, linter.DefaultMaxDiagnostics)
				}
			}
		})
	}
}
