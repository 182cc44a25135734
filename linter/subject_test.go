package linter_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

// countRule is a graph rule over an int subject: it reports n diagnostics.
func countRule() *linter.Rule {
	return &linter.Rule{ID: "GR2", Name: "count", Severity: linter.SeverityWarning, Doc: "Test rule GR2", Scope: linter.ScopeGraph,
		Run: linter.RunOn(func(p *linter.Pass, n int) error {
			for i := range n {
				p.Report(linter.Diagnostic{Pos: parser.Position{File: "g", Line: i + 1}, Message: "m"})
			}
			return nil
		})}
}

// TestRunOn checks that a rule made with RunOn receives its subject typed
// and fails, wrapping ErrSubject, on a subject of another type.
func TestRunOn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		subject  any
		diags    int
		failures int
	}{
		{name: "typed subject", subject: 3, diags: 3},
		{name: "zero", subject: 0},
		{name: "another type", subject: "three", failures: 1},
		{name: "a pointer of another type", subject: new(int), failures: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := linter.LintSubject(context.Background(), linter.ScopeGraph, tt.subject, linter.WithRuleSet(countRule()))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Diagnostics) != tt.diags || len(res.Failures) != tt.failures {
				t.Fatalf("got %d diagnostics and %d failures, want %d and %d", len(res.Diagnostics), len(res.Failures), tt.diags, tt.failures)
			}
			for _, f := range res.Failures {
				if !errors.Is(f.Err, linter.ErrSubject) || f.RuleID != "GR2" {
					t.Errorf("failure %v: want rule GR2 wrapping ErrSubject", f)
				}
			}
		})
	}
}

// ExampleRunOn writes a rule over a subject of the caller's own type and
// runs it with LintSubject.
func ExampleRunOn() {
	type inventory struct{ items []string }
	empty := &linter.Rule{
		ID: "INV1", Name: "inventory-empty", Severity: linter.SeverityWarning, Scope: linter.ScopeGraph,
		Doc: "An inventory holds no item",
		Run: linter.RunOn(func(p *linter.Pass, inv *inventory) error {
			if len(inv.items) == 0 {
				p.Report(linter.Diagnostic{Pos: parser.Position{File: "inventory", Line: 1}, Message: "the inventory is empty"})
			}
			return nil
		}),
	}
	res, err := linter.LintSubject(context.Background(), linter.ScopeGraph, &inventory{}, linter.WithRuleSet(empty))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range res.Diagnostics {
		fmt.Println(d.RuleID, d.Message)
	}
	// Output:
	// INV1 the inventory is empty
}
