package rules_test

import (
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/linttest"
	"github.com/xpkgkit/xpkgkit/linter/rules"
)

// TestSeedExamples lints the meta examples of the specification seeds with
// every built-in rule; their want comments record what each example draws
// and why.
func TestSeedExamples(t *testing.T) {
	t.Parallel()
	linttest.Run(t, "testdata/seeds", rules.Builtin())
}
