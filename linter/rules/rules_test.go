package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/linttest"
	"github.com/xpkgkit/xpkgkit/linter/rules"
)

// companions are rules a rule's fixtures need beside it.
var companions = map[string][]string{
	// XP004 reports suppressions of rules that ran: give it one to use.
	"XP004": {"XP207"},
}

// firedElsewhere are rules whose findings no fixture can express, with the
// test that makes them fire instead.
var firedElsewhere = map[string]string{
	// A fixture is one YAML stream: it cannot hold a symbolic link.
	"XP006": "TestSkippedFile",
	// A fixture is one stream, not a package directory.
	"XP008": "TestMetaFileName",
	// Examples are a second stream beside the package's.
	"XP408": "TestExampleSchema",
}

// TestBuiltinRules runs every built-in rule over its fixtures in
// testdata/rules/<ID>, and checks each rule has a case that fires (a
// fixture with a want comment) and one that must not (a good*.yaml fixture
// without any).
func TestBuiltinRules(t *testing.T) {
	t.Parallel()
	for _, r := range rules.Builtin() {
		t.Run(r.ID+"-"+r.Name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("testdata", "rules", r.ID)
			files, err := linttest.Fixtures(dir)
			if err != nil {
				t.Fatalf("rule %s has no fixtures: %v", r.ID, err)
			}
			fires, clean := false, false
			for _, f := range files {
				fx, err := linttest.ReadFixture(f)
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasPrefix(filepath.Base(f), "good") {
					if len(fx.Want) > 0 {
						t.Errorf("%s: a good fixture must expect nothing", f)
					}
					clean = true
				}
				fires = fires || len(fx.Want) > 0
			}
			if fires && firedElsewhere[r.ID] != "" {
				t.Errorf("rule %s has a fixture that fires: remove it from firedElsewhere", r.ID)
			}
			fires = fires || firedElsewhere[r.ID] != ""
			if !fires || !clean {
				t.Errorf("rule %s needs a fixture that fires (fires=%v) and a good*.yaml that does not (clean=%v)", r.ID, fires, clean)
			}
			set := []*linter.Rule{r}
			for _, id := range companions[r.ID] {
				set = append(set, rules.Lookup(id))
			}
			linttest.Run(t, dir, set)
		})
	}
}

// TestRuleDirectories checks no fixture directory is left without a rule.
func TestRuleDirectories(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(filepath.Join("testdata", "rules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if rules.Lookup(e.Name()) == nil {
			t.Errorf("testdata/rules/%s names no built-in rule", e.Name())
		}
	}
}
