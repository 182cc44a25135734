package changerules_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apidiff"
	"github.com/xpkgkit/xpkgkit/linter/changerules"
	"github.com/xpkgkit/xpkgkit/meta"
)

// TestLintConfig checks that Lint takes the linter's configuration:
// rules disabled by name, regraded by ID, unknown IDs refused, the
// diagnostics cap, the new package's suppression annotations, and the old
// package's file names (WithOldFiles).
func TestLintConfig(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	old := crd("properties:\n  a: {type: string, enum: [x, y]}\n  b: {type: string, enum: [x, y]}\n  c: {type: string, enum: [x, y]}\n  size: {type: integer}\n")
	neu := crd("properties:\n  a: {type: string, enum: [x]}\n  b: {type: string, enum: [x]}\n  c: {type: string, enum: [x]}\n")
	diff := func(opts ...apidiff.Option) *apidiff.Result {
		res, err := apidiff.Diff(ctx, parse(t, "old.yaml", old), parse(t, "new.yaml", neu), append([]apidiff.Option{apidiff.WithVersions("v1.0.0", "v1.1.0")}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	count := func(ds []linter.Diagnostic) map[string]int {
		m := map[string]int{}
		for _, d := range ds {
			m[d.RuleID]++
		}
		return m
	}
	res := diff(apidiff.WithOldFiles(func(f string) string { return "v1/" + f }))
	lr, err := changerules.Lint(ctx, res)
	if err != nil {
		t.Fatal(err)
	}
	if got := count(lr.Diagnostics); got["XP714"] != 3 || got["XP710"] != 1 || !strings.Contains(lr.Diagnostics[0].Message, "[old: v1/old.yaml:") {
		t.Fatalf("diagnostics %v: %+v", got, lr.Diagnostics)
	}
	lr, err = changerules.Lint(ctx, res, linter.WithDisabled("api-field-removed"), linter.WithSeverity("XP714", linter.SeverityInfo))
	if err != nil {
		t.Fatal(err)
	}
	if got := count(lr.Diagnostics); got["XP710"] != 0 || got["XP714"] != 3 || lr.Diagnostics[0].Severity != linter.SeverityInfo {
		t.Errorf("disabled and regraded: %v %+v", got, lr.Diagnostics)
	}
	if _, err := changerules.Lint(ctx, res, linter.WithDisabled("XP799")); !errors.Is(err, linter.ErrUnknownRule) {
		t.Errorf("unknown rule: %v, want ErrUnknownRule", err)
	}
	// The linter's cap: one kept, a summary counting the other two.
	lr, err = changerules.Lint(ctx, res, linter.WithMaxDiagnostics(1))
	if err != nil {
		t.Fatal(err)
	}
	if got := count(lr.Diagnostics); got["XP714"] != 2 || !strings.Contains(lr.Diagnostics[len(lr.Diagnostics)-1].Message+lr.Diagnostics[0].Message, "2 more diagnostics") {
		t.Errorf("capped: %v %+v", got, lr.Diagnostics)
	}
	// Diff's cap, then the linter's: the changes Diff left out count too.
	lr, err = changerules.Lint(ctx, diff(apidiff.WithMaxChanges(1)), linter.WithMaxDiagnostics(1))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range lr.Diagnostics {
		found = found || d.RuleID == "XP714" && strings.Contains(d.Message, "2 more diagnostics")
	}
	if !found {
		t.Errorf("both caps: %+v", lr.Diagnostics)
	}
	// A suppression annotation on the new definition silences its rules.
	neu = strings.Replace(neu, "metadata:\n", "metadata:\n  annotations:\n    "+meta.AnnotationSuppress+": \"api-enum-narrowed: a migration ships\"\n", 1)
	lr, err = changerules.Lint(ctx, diff())
	if err != nil {
		t.Fatal(err)
	}
	if got, silenced := count(lr.Diagnostics), count(lr.Suppressed); got["XP714"] != 0 || silenced["XP714"] != 3 || got["XP710"] != 1 {
		t.Errorf("suppressed: kept %v silenced %v", got, silenced)
	}
}

// BenchmarkLint measures Lint, the change rules over a diff of
// 2,000 fields removed and 2,000 enums narrowed (each rule reads every
// change, and keeps its kind's).
func BenchmarkLint(b *testing.B) {
	var o, n strings.Builder
	o.WriteString("properties:\n")
	n.WriteString("properties:\n")
	for i := range 2000 {
		fmt.Fprintf(&o, "  e%d: {type: string, enum: [x, y]}\n  r%d: {type: integer}\n", i, i)
		fmt.Fprintf(&n, "  e%d: {type: string, enum: [x]}\n", i)
	}
	ctx := context.Background()
	res, err := apidiff.Diff(ctx, parse(b, "old.yaml", crd(o.String())), parse(b, "new.yaml", crd(n.String())), apidiff.WithMaxChanges(5000))
	if err != nil || len(res.Changes) != 4000 {
		b.Fatalf("%v: %d changes", err, len(res.Changes))
	}
	b.ReportAllocs()
	for b.Loop() {
		lr, err := changerules.Lint(ctx, res, linter.WithMaxDiagnostics(5000))
		if err != nil || len(lr.Diagnostics) != 4000 {
			b.Fatalf("%v: %d diagnostics", err, len(lr.Diagnostics))
		}
	}
}

// TestSeverity checks the severity of each change's diagnostic, which
// follows its Class and Error, and that of the summary of the changes
// Diff's cap left out (the highest among them).
func TestSeverity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const (
		sizeInt   = "properties:\n  size: {type: integer}\n"
		sizeNum   = "properties:\n  size: {type: number}\n"
		sizeStr   = "properties:\n  size: {type: string}\n"
		noSize    = "properties:\n  other: {type: string}\n"
		patterned = "properties:\n  size: {type: integer}\n  name: {type: string, pattern: '^a'}\n"
	)
	tests := []struct {
		name     string
		old, new string
		versions [2]string
		max      int // apidiff.WithMaxChanges; 0 for the default
		rule     string
		want     []linter.Severity
	}{
		{name: "compatible", old: sizeInt, new: sizeNum, versions: [2]string{"v1.0.0", "v1.1.0"}, rule: "XP713", want: []linter.Severity{linter.SeverityInfo}},
		{name: "breaking, semver violation", old: sizeInt, new: sizeStr, versions: [2]string{"v1.0.0", "v1.1.0"}, rule: "XP713", want: []linter.Severity{linter.SeverityError}},
		{name: "breaking, major bump", old: sizeInt, new: sizeStr, versions: [2]string{"v1.0.0", "v2.0.0"}, rule: "XP713", want: []linter.Severity{linter.SeverityWarning}},
		{name: "breaking, 0.x", old: sizeInt, new: noSize, versions: [2]string{"v0.1.0", "v0.2.0"}, rule: "XP710", want: []linter.Severity{linter.SeverityWarning}},
		{name: "may break", old: sizeInt + "  name: {type: string}\n", new: patterned, versions: [2]string{"v1.0.0", "v1.1.0"}, rule: "XP718", want: []linter.Severity{linter.SeverityWarning}},
		{name: "left out by Diff's cap", old: "properties:\n  a: {type: integer}\n  b: {type: integer}\n  c: {type: integer}\n", new: "properties:\n  a: {type: number}\n  b: {type: number}\n  c: {type: string}\n",
			versions: [2]string{"v1.0.0", "v1.1.0"}, max: 1, rule: "XP713", want: []linter.Severity{linter.SeverityError, linter.SeverityInfo}}, // the summary at line 1 first
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := []apidiff.Option{apidiff.WithVersions(tt.versions[0], tt.versions[1])}
			if tt.max > 0 {
				opts = append(opts, apidiff.WithMaxChanges(tt.max))
			}
			res, err := apidiff.Diff(ctx, parse(t, "old.yaml", crd(tt.old)), parse(t, "new.yaml", crd(tt.new)), opts...)
			if err != nil {
				t.Fatal(err)
			}
			lr, err := changerules.Lint(ctx, res)
			if err != nil {
				t.Fatal(err)
			}
			var got []linter.Severity
			for _, d := range lr.Diagnostics {
				if d.RuleID == tt.rule {
					got = append(got, d.Severity)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("severities %v, want %v: %+v", got, tt.want, lr.Diagnostics)
			}
		})
	}
}

// TestRules checks the catalog: one rule per kind of change, each named
// after its kind and known to RuleOf, and a failure, not a panic, when a
// change rule is run on another subject.
func TestRules(t *testing.T) {
	t.Parallel()
	rules := changerules.Rules()
	if err := linter.Validate(rules); err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.Scope != linter.ScopeChange || changerules.RuleOf(apidiff.Kind(r.Name)) != r.ID || r.Doc == "" {
			t.Errorf("rule %s %s: scope %v, RuleOf %q", r.ID, r.Name, r.Scope, changerules.RuleOf(apidiff.Kind(r.Name)))
		}
	}
	if id := changerules.RuleOf("no-such-kind"); id != "" {
		t.Errorf("RuleOf(no-such-kind) = %q", id)
	}
	res, err := linter.LintSubject(context.Background(), linter.ScopeChange, "not a diff", linter.WithRuleSet(rules...))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != len(rules) || !errors.Is(res.Failures[0].Err, linter.ErrSubject) {
		t.Errorf("failures %v, want one per rule wrapping ErrSubject", res.Failures)
	}
	if _, err := changerules.Lint(context.Background(), nil); err == nil {
		t.Error("Lint(nil): no error")
	}
}
