package rules_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// TestWithRulesBuiltinSaidOnce: rules.Builtin passed to WithRules (which
// adds to the rule set, the built-in rules) reuses every built-in ID: the error says so
// once, in a bounded text, not one line per rule (issue 34, item 9).
func TestWithRulesBuiltinSaidOnce(t *testing.T) {
	t.Parallel()
	p, err := parser.Parse(t.Context(), strings.NewReader("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	mine := &linter.Rule{ID: "ACME1", Name: "acme", Severity: linter.SeverityInfo, Doc: "Mine", Run: func(*linter.Pass) error { return nil }}
	_, err = linter.Lint(t.Context(), p, linter.WithRuleSet(rules.Builtin()...), linter.WithRules(append(rules.Builtin(), mine)...))
	if !errors.Is(err, linter.ErrInvalidRule) {
		t.Fatalf("err = %v, want ErrInvalidRule", err)
	}
	msg := err.Error()
	if strings.Count(msg, "each rule set holds a rule once") != 1 || strings.Count(msg, "\n") > 0 || len(msg) > 1024 {
		t.Errorf("error of %d bytes, %d lines, want one line that says it once:\n%.2000s", len(msg), strings.Count(msg, "\n")+1, msg)
	}
}
