package rules_test

import (
	"path/filepath"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/linttest"
)

// TestFixturesStateSeverity checks every want comment of the built-in
// rules' fixtures states the severity it expects (# want XP208:error ...),
// so a rule whose severity changes by mistake fails its own fixtures.
func TestFixturesStateSeverity(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "rules", "*", "*.y*ml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/rules")
	}
	for _, f := range files {
		fx, err := linttest.ReadFixture(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range fx.Want {
			if w.Severity == 0 {
				t.Errorf("%s:%d: want %s states no severity: write %s:error, :warning or :info", f, w.Line, w, w.Rule)
			}
		}
	}
}
