package linter_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

const mechanismsStream = `apiVersion: meta.pkg.crossplane.io/v1
kind: Provider
metadata:
  name: provider-example
  annotations:
    lint.xpkgkit.dev/ignore: T999
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller
`

func parseMechanisms(t *testing.T) *parser.Package {
	t.Helper()
	pkg, err := parser.Parse(t.Context(), strings.NewReader(mechanismsStream), parser.WithFile("package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

// everyObject reports each object, with sev (0: the rule's).
func everyObject(id, name string, sev linter.Severity) *linter.Rule {
	return &linter.Rule{
		ID: id, Name: name, Severity: linter.SeverityError, Doc: "Test rule\n\nReports every object.",
		Run: func(p *linter.Pass) error {
			for _, o := range p.Package.Objects {
				p.ReportSeverityf(sev, o, []string{"metadata", "name"}, "object %s", o.ObjectMeta.Name)
			}
			return nil
		},
	}
}

type inputKey struct{}

// TestMechanisms checks the framework's public mechanisms for rules, as an
// author's rule uses them: inputs and the rules that require them, a
// rule's own regrading, fixes, the shared values of one Lint call and the
// suppression check.
func TestMechanisms(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		rules []*linter.Rule
		opts  []linter.Option
		want  []string // "ID severity message"
		ran   []string
	}{
		{
			name: "a rule requiring a missing input does not run",
			rules: []*linter.Rule{func() *linter.Rule {
				r := everyObject("T001", "needs-input", 0)
				r.Requires = []any{inputKey{}}
				return r
			}()},
			ran: nil,
		},
		{
			name: "a rule requiring a given input runs and reads it",
			rules: []*linter.Rule{{
				ID: "T002", Name: "reads-input", Severity: linter.SeverityInfo, Doc: "Test rule\n\nReads its input.",
				Requires: []any{inputKey{}},
				Run: func(p *linter.Pass) error {
					p.Reportf(nil, nil, "input %v", p.Input(inputKey{}))
					return nil
				},
			}},
			opts: []linter.Option{linter.WithInput(inputKey{}, "given")},
			want: []string{"T002 info input given"},
			ran:  []string{"T002"},
		},
		{
			name: "a nil input removes the key",
			rules: []*linter.Rule{func() *linter.Rule {
				r := everyObject("T003", "needs-input", 0)
				r.Requires = []any{inputKey{}}
				return r
			}()},
			opts: []linter.Option{linter.WithInput(inputKey{}, "given"), linter.WithInput(inputKey{}, nil)},
		},
		{
			name: "Regrade sees each diagnostic with its severity filled in",
			rules: []*linter.Rule{func() *linter.Rule {
				r := everyObject("T004", "regraded", 0)
				r.Regrade = func(p *linter.Pass, d *linter.Diagnostic) {
					if d.Severity == linter.SeverityError {
						d.Severity = linter.SeverityWarning
						d.Message += " (regraded)"
					}
				}
				return r
			}()},
			want: []string{"T004 warning object controller (regraded)"},
			ran:  []string{"T004"},
		},
		{
			name: "the SuppressionCheck rule reports an entry that silenced nothing",
			rules: []*linter.Rule{
				everyObject("T005", "reported", linter.SeverityInfo),
				{ID: "T404", Name: "unused", Severity: linter.SeverityInfo, Doc: "Unused\n\nUnused suppressions.", SuppressionCheck: true, Run: func(*linter.Pass) error { return nil }},
			},
			want: []string{`T404 info suppression names T999, which is no rule ID or name`, `T005 info object controller`},
			ran:  []string{"T005", "T404"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := linter.Lint(t.Context(), parseMechanisms(t), append([]linter.Option{linter.WithRuleSet(tc.rules...)}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range res.Diagnostics {
				got = append(got, d.RuleID+" "+d.Severity.String()+" "+d.Message)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("diagnostics:\n%q\nwant:\n%q", got, tc.want)
			}
			if !slices.Equal(res.Rules, tc.ran) {
				t.Errorf("rules run %v, want %v", res.Rules, tc.ran)
			}
		})
	}
}

// TestShared checks that Pass.Shared computes once per Lint call, for
// every rule that asks, and anew in the next call.
func TestShared(t *testing.T) {
	t.Parallel()
	type key struct{}
	var computed atomic.Int32
	var rules []*linter.Rule
	for _, id := range []string{"T010", "T011", "T012", "T013"} {
		rules = append(rules, &linter.Rule{
			ID: id, Name: "shares-" + strings.ToLower(id), Severity: linter.SeverityInfo, Doc: "Test rule\n\nShares a value.",
			Run: func(p *linter.Pass) error {
				v := p.Shared(key{}, func() any { return computed.Add(1) }).(int32)
				p.Reportf(nil, nil, "value %d", v)
				return nil
			},
		})
	}
	pkg := parseMechanisms(t)
	for call := int32(1); call <= 2; call++ {
		res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules...))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Diagnostics) != len(rules) {
			t.Fatalf("call %d: %d diagnostics, want %d", call, len(res.Diagnostics), len(rules))
		}
		for _, d := range res.Diagnostics {
			if want := "value " + string('0'+rune(call)); d.Message != want {
				t.Errorf("call %d: %s says %q, want %q", call, d.RuleID, d.Message, want)
			}
		}
	}
	if n := computed.Load(); n != 2 {
		t.Errorf("computed %d times over two calls, want 2", n)
	}
}

// TestReportFixf checks that a fix reaches the diagnostic, and that a nil
// fix reports without one.
func TestReportFixf(t *testing.T) {
	t.Parallel()
	fix := &linter.SuggestedFix{Message: "rename", TextEdits: []linter.TextEdit{{File: "package.yaml", Offset: 1, End: 2, NewText: "x"}}}
	for _, tc := range []struct {
		name string
		fix  *linter.SuggestedFix
		want int
	}{{"with a fix", fix, 1}, {"without", nil, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := &linter.Rule{
				ID: "T020", Name: "fixes", Severity: linter.SeverityWarning, Doc: "Test rule\n\nSuggests a fix.",
				Run: func(p *linter.Pass) error {
					p.ReportFixf(tc.fix, p.Meta(), []string{"metadata", "name"}, "rename %s", "it")
					return nil
				},
			}
			res, err := linter.Lint(t.Context(), parseMechanisms(t), linter.WithRuleSet(r))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Diagnostics) != 1 {
				t.Fatalf("%d diagnostics, want 1", len(res.Diagnostics))
			}
			d := res.Diagnostics[0]
			if len(d.SuggestedFixes) != tc.want || d.Message != "rename it" || d.Pos.Line != 4 {
				t.Errorf("diagnostic %+v: want %d fixes, message %q at line 4", d, tc.want, "rename it")
			}
		})
	}
}
