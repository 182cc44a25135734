package main

import (
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/linttest"
	"github.com/xpkgkit/xpkgkit/linter/rules"
)

// TestOwnerRule checks the rule against the fixtures' "# want" comments.
func TestOwnerRule(t *testing.T) {
	t.Parallel()
	results := linttest.Run(t, "testdata/rule", []*linter.Rule{OwnerRule()})
	if len(results) == 0 {
		t.Fatal("no fixtures ran")
	}
}

// TestOwnerRuleIsValid checks the rule against the linter's rule-set
// validation, with the built-in rules: no clash of IDs or names.
func TestOwnerRuleIsValid(t *testing.T) {
	t.Parallel()
	if err := linter.Validate(append(rules.Builtin(), OwnerRule())); err != nil {
		t.Fatal(err)
	}
}
