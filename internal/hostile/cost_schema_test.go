package hostile

import (
	"slices"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/schemakwtest"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// TestSchemaWorstCasesCoverEveryKeyword: every keyword the schema validator
// checks (linter/schema.Keywords) has a worst case (a new keyword without
// one fails here: add it to schemaWorstCases), every case names keywords
// the validator checks and rules that exist, XP005, XP408 and XP409 are
// each driven by some case, and every case is in Cases, so that the
// hostile tests run it under their memory, CPU and SIGINT bounds.
func TestSchemaWorstCasesCoverEveryKeyword(t *testing.T) {
	t.Parallel()
	kw := schemakwtest.Keywords()
	covered := map[string]bool{}
	ruleSeen := map[string]bool{}
	for _, w := range schemaWorstCases() {
		if len(w.keywords) == 0 || len(w.rules) == 0 {
			t.Errorf("%s: names no keyword or no rule", w.Name)
		}
		for _, k := range w.keywords {
			if !slices.Contains(kw, k) {
				t.Errorf("%s: %s is no keyword the validator checks", w.Name, k)
			}
			covered[k] = true
		}
		for _, id := range w.rules {
			if rules.Lookup(id) == nil {
				t.Errorf("%s: %s is no built-in rule", w.Name, id)
			}
			ruleSeen[id] = true
		}
	}
	for _, k := range kw {
		if !covered[k] {
			t.Errorf("schema keyword %s has no worst case in schemaWorstCases: add a package whose schema and objects give it the most work", k)
		}
	}
	for _, id := range []string{"XP005", "XP408", "XP409"} {
		if !ruleSeen[id] {
			t.Errorf("no schema worst case drives %s", id)
		}
	}
	names := map[string]bool{}
	for _, c := range Cases() {
		names[c.Name] = true
	}
	for _, w := range schemaWorstCases() {
		if !names[w.Name] {
			t.Errorf("%s is not in Cases()", w.Name)
		}
	}
}

// TestSchemaWorstCasesExercise opens and lints each schema worst case and
// checks that the rules it names ran and reported, and kept no more
// diagnostics than the cap (plus the summary).
func TestSchemaWorstCasesExercise(t *testing.T) {
	if raceEnabled {
		t.Skip("lints each keyword's worst case, seconds each and ten times that under -race: run without -race (.ci/run)")
	}
	t.Parallel()
	dir := t.TempDir()
	for _, w := range schemaWorstCases() {
		t.Run(w.Name, func(t *testing.T) {
			if w.Heavy && testing.Short() {
				t.Skip("heavy case skipped under -short")
			}
			src, err := w.Write(t.Context(), dir)
			if err != nil {
				t.Fatalf("writing the case: %v", err)
			}
			pkg, err := xpkg.Open(t.Context(), src)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			res, err := rules.LintPackage(t.Context(), pkg, linter.WithCrossplaneVersion("v2.0.0"))
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			count := map[string]int{}
			for _, d := range res.Diagnostics {
				count[d.RuleID]++
			}
			t.Logf("%d diagnostics by rule: %v", len(res.Diagnostics), count)
			for _, d := range res.Diagnostics {
				if slices.Contains(w.rules, d.RuleID) {
					t.Logf("first %s: %s", d.RuleID, d.Message)
					break
				}
			}
			for _, id := range w.rules {
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
