package hostile

import (
	"slices"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// TestLintWorstCasesCoverEveryRule: every built-in rule has a worst case
// (a new rule without one fails here: add it to lintWorstCases), every rule
// a worst case names is built in, and every worst case is in Cases, so that
// the hostile tests run it under their memory and CPU budget.
func TestLintWorstCasesCoverEveryRule(t *testing.T) {
	t.Parallel()
	covered := map[string]string{}
	for _, w := range lintWorstCases() {
		if len(w.rules) == 0 {
			t.Errorf("%s: names no rule", w.Name)
		}
		for _, id := range w.rules {
			if rules.Lookup(id) == nil {
				t.Errorf("%s: %s is no built-in rule", w.Name, id)
			}
			covered[id] = w.Name
		}
	}
	for _, r := range rules.Builtin() {
		if _, ok := covered[r.ID]; !ok {
			t.Errorf("rule %s %s has no worst case in lintWorstCases: add a package that gives it the most work for %d bytes", r.ID, r.Name, lintCostBytes)
		}
	}
	names := map[string]bool{}
	for _, c := range Cases() {
		names[c.Name] = true
	}
	for _, w := range lintWorstCases() {
		if !names[w.Name] {
			t.Errorf("%s is not in Cases()", w.Name)
		}
	}
}

// TestLintWorstCasesExercise opens and lints each worst case, with a target
// Crossplane version for the rules that need one, and checks that each rule
// the case names ran and reported, and kept no more diagnostics than the
// default cap (plus the one that says how many were left out).
func TestLintWorstCasesExercise(t *testing.T) {
	if raceEnabled {
		t.Skip("lints each rule's worst case, seconds each and ten times that under -race: run without -race (.ci/run)")
	}
	t.Parallel()
	dir := t.TempDir()
	for _, w := range lintWorstCases() {
		t.Run(w.Name, func(t *testing.T) {
			t.Parallel()
			src, err := w.Write(t.Context(), dir)
			if err != nil {
				t.Fatalf("writing the case: %v", err)
			}
			pkg, err := xpkg.Open(t.Context(), src)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			var opts []linter.Option
			if w.needsVersion {
				opts = append(opts, linter.WithCrossplaneVersion("v2.0.0"))
			}
			res, err := rules.LintPackage(t.Context(), pkg, opts...)
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			count := map[string]int{}
			for _, d := range res.Diagnostics {
				count[d.RuleID]++
			}
			t.Logf("%d diagnostics by rule: %v", len(res.Diagnostics), count)
			for _, id := range w.rules {
				if !slices.Contains(res.Rules, id) {
					t.Errorf("rule %s did not run", id)
				}
				if count[id] == 0 {
					t.Errorf("rule %s reported nothing: the case does not exercise it", id)
				}
			}
			for id, n := range count {
				if n > linter.DefaultMaxDiagnostics+1 {
					t.Errorf("rule %s kept %d diagnostics, over the cap of %d (+1)", id, n, linter.DefaultMaxDiagnostics)
				}
			}
			for _, f := range res.Failures {
				t.Errorf("rule failed: %v", f)
			}
		})
	}
}
