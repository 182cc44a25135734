package rules_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

func parse(t testing.TB, stream string) *parser.Package {
	t.Helper()
	pkg, err := parser.Parse(context.Background(), strings.NewReader(stream), parser.WithFile("package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

func lint(t testing.TB, stream string, opts ...linter.Option) *linter.Result {
	t.Helper()
	res, err := linter.Lint(context.Background(), parse(t, stream), append([]linter.Option{linter.WithRuleSet(rules.Builtin()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// got lists the diagnostics as "line:ID" strings.
func got(res *linter.Result) []string {
	var out []string
	for _, d := range res.Diagnostics {
		out = append(out, fmt.Sprintf("%d:%s", d.Pos.Line, d.RuleID))
	}
	return out
}

func testRule(id, name string, run func(*linter.Pass) error) *linter.Rule {
	return &linter.Rule{ID: id, Name: name, Severity: linter.SeverityWarning, Doc: "Test rule " + id, Run: run}
}

const provider = `apiVersion: meta.pkg.crossplane.io/v1
kind: Provider
metadata:
  name: provider-example
  annotations:
    meta.crossplane.io/maintainer: Example <maintainers@example.org>
    meta.crossplane.io/source: https://github.com/example/provider-example
    meta.crossplane.io/license: Apache-2.0
    meta.crossplane.io/description: Manages example buckets.
spec:
  crossplane:
    version: ">=v1.14.0"
`

// TestTenProblems checks a package with ten different problems yields ten
// diagnostics, each at its line.
func TestTenProblems(t *testing.T) {
	t.Parallel()
	stream := `apiVersion: meta.pkg.crossplane.io/v1alpha1
kind: Provider
metadata:
  name: Provider_Example
  annotations:
    meta.crossplane.io/maintainer: Example <maintainers@example.org>
    meta.crossplane.io/source: https://github.com/example/provider-example
    meta.crossplane.io/license: Apache License
    meta.crossplane.io/description: Manages example buckets.
spec:
  crossplane:
    version: "soon"
  dependson: []
  dependsOn:
  - provider: example/provider-nop
    version: latest
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: bucket.example.org
spec:
  group: example.org
  names:
    kind: Bucket
    plural: buckets
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
`
	res := lint(t, stream)
	want := []string{
		"1:XP103",  // v1alpha1 meta
		"4:XP201",  // name (a warning)
		"8:XP204",  // license
		"12:XP202", // constraint
		"13:XP106", // dependson
		"15:XP303", // no registry (an error under v2: the Package CRD refuses it)
		"15:XP304", // provider: field
		"16:XP302", // version
		"19:XP102", // Deployment
		"26:XP401", // CRD name
	}
	if g := got(res); !slices.Equal(g, want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s\nfull:\n%v", strings.Join(g, "\n"), strings.Join(want, "\n"), res.Diagnostics)
	}
	if res.Count(linter.SeverityError) != 5 || res.Count(linter.SeverityWarning) != 5 {
		t.Errorf("counts: %d errors, %d warnings; want 5 and 5", res.Count(linter.SeverityError), res.Count(linter.SeverityWarning))
	}
}

func TestLintBasics(t *testing.T) {
	t.Parallel()
	res := lint(t, provider)
	if len(res.Diagnostics) != 0 || len(res.Failures) != 0 {
		t.Fatalf("clean provider: %v %v", res.Diagnostics, res.Failures)
	}
	if res.Kind != meta.KindProvider {
		t.Errorf("Kind = %q", res.Kind)
	}
	if slices.Contains(res.Rules, "XP501") || slices.Contains(res.Rules, "XP407") {
		t.Errorf("rules that need image facts or a Configuration ran: %v", res.Rules)
	}
	if !slices.Contains(res.Rules, "XP203") {
		t.Errorf("XP203 did not run at the default target: %v", res.Rules)
	}
	if !slices.Contains(res.Rules, "XP208") {
		t.Errorf("Provider rule XP208 did not run: %v", res.Rules)
	}
	if res.AtOrAbove(linter.SeverityInfo) {
		t.Error("AtOrAbove(info) on a clean result")
	}
}

func TestLintOptions(t *testing.T) {
	t.Parallel()
	stream := strings.Replace(provider, "    meta.crossplane.io/maintainer: Example <maintainers@example.org>\n", "", 1)
	tests := []struct {
		name string
		opts []linter.Option
		want []string
		err  error
	}{
		{name: "default", want: []string{"5:XP207"}},
		{name: "disabled by name", opts: []linter.Option{linter.WithDisabled("maintainer")}},
		{name: "disabled by ID in lower case", opts: []linter.Option{linter.WithDisabled("xp207")}},
		{name: "disable unknown", opts: []linter.Option{linter.WithDisabled("XP999")}, err: linter.ErrUnknownRule},
		{name: "regrade unknown", opts: []linter.Option{linter.WithSeverity("nope", linter.SeverityError)}, err: linter.ErrUnknownRule},
		{name: "target version outside", opts: []linter.Option{linter.WithCrossplaneVersion("v1.13.0")}, want: []string{"5:XP207", "11:XP203"}},
		{name: "target version inside", opts: []linter.Option{linter.WithCrossplaneVersion("v2.0.0")}, want: []string{"5:XP207"}},
		{name: "bad target version", opts: []linter.Option{linter.WithCrossplaneVersion("two")}, err: nil},
		{name: "rule set replaced", opts: []linter.Option{linter.WithRuleSet(rules.Lookup("XP201"))}},
		{name: "user rule", opts: []linter.Option{linter.WithRuleSet(), linter.WithRules(testRule("U1", "user", func(p *linter.Pass) error {
			p.Reportf(p.Meta(), []string{"spec", "crossplane", "version"}, "user")
			return nil
		}))}, want: []string{"11:U1"}},
		{name: "duplicate user rule", opts: []linter.Option{linter.WithRules(testRule("XP201", "mine", func(*linter.Pass) error { return nil }))}, err: linter.ErrInvalidRule},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := linter.Lint(context.Background(), parse(t, stream), append([]linter.Option{linter.WithRuleSet(rules.Builtin()...)}, tt.opts...)...)
			if tt.name == "bad target version" {
				if err == nil {
					t.Fatal("want an error for an invalid target version")
				}
				return
			}
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g := got(res); !slices.Equal(g, tt.want) {
				t.Errorf("got %v, want %v", g, tt.want)
			}
		})
	}
}

func TestSeverityOverride(t *testing.T) {
	t.Parallel()
	stream := strings.Replace(provider, "    meta.crossplane.io/maintainer: Example <maintainers@example.org>\n", "", 1)
	res := lint(t, stream, linter.WithSeverity("maintainer", linter.SeverityError))
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Severity != linter.SeverityError || !res.AtOrAbove(linter.SeverityError) {
		t.Fatalf("regraded diagnostics: %v", res.Diagnostics)
	}
}

func TestRuleFailures(t *testing.T) {
	t.Parallel()
	rules := []*linter.Rule{
		testRule("F1", "returns-error", func(p *linter.Pass) error {
			p.Reportf(nil, nil, "before failing")
			return errors.New("broken")
		}),
		testRule("F2", "panics", func(*linter.Pass) error { panic("oops") }),
		testRule("F3", "fine", func(*linter.Pass) error { return nil }),
	}
	res := lint(t, provider, linter.WithRuleSet(rules...))
	if len(res.Failures) != 2 {
		t.Fatalf("failures = %v, want 2", res.Failures)
	}
	if res.Failures[0].RuleID != "F1" || !strings.Contains(res.Failures[0].Error(), "broken") {
		t.Errorf("first failure = %v", res.Failures[0])
	}
	if !errors.Is(res.Failures[1], linter.ErrRulePanic) {
		t.Errorf("panic not recorded as ErrRulePanic: %v", res.Failures[1])
	}
	if g := got(res); !slices.Equal(g, []string{"1:F1"}) {
		t.Errorf("diagnostics reported before a failure are kept: got %v", g)
	}
}

func TestLintContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := linter.Lint(ctx, parse(t, provider), linter.WithRuleSet(rules.Builtin()...)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := linter.Lint(context.Background(), nil, linter.WithRuleSet(rules.Builtin()...)); err == nil {
		t.Fatal("nil package accepted")
	}
}

func TestSuppression(t *testing.T) {
	t.Parallel()
	const crds = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: bucket.example.org
  annotations:
    lint.xpkgkit.dev/ignore: crd-name, XP104
spec:
  group: example.org
  names: {kind: Bucket, plural: buckets}
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: table.example.org
spec:
  group: example.org
  names: {kind: Table, plural: tables}
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`
	tests := []struct {
		name   string
		stream string
		opts   []linter.Option
		want   []string
	}{
		{name: "object suppression is local, unused entry reported", stream: provider + crds, want: []string{"19:XP004", "28:XP401"}},
		{name: "unused suppression disabled", stream: provider + crds, opts: []linter.Option{linter.WithDisabled("XP004")}, want: []string{"28:XP401"}},
		{name: "package-wide on the meta object", stream: strings.Replace(provider, "  annotations:\n", "  annotations:\n    lint.xpkgkit.dev/ignore: XP401\n", 1) + crds, want: []string{"20:XP004"}},
		{name: "suppressing XP004 itself", stream: strings.Replace(provider, "  annotations:\n", "  annotations:\n    lint.xpkgkit.dev/ignore: XP401 XP004\n", 1) + crds},
		{name: "entry for a rule that did not run", stream: strings.Replace(provider, "  annotations:\n", "  annotations:\n    lint.xpkgkit.dev/ignore: XP407, XP501\n", 1)},
		{name: "entry naming no rule", stream: strings.Replace(provider, "  annotations:\n", "  annotations:\n    lint.xpkgkit.dev/ignore: XP9\n", 1), want: []string{"6:XP004"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := lint(t, tt.stream, tt.opts...)
			if g := got(res); !slices.Equal(g, tt.want) {
				t.Errorf("got %v, want %v\n%v", g, tt.want, res.Diagnostics)
			}
		})
	}
}

func TestImageFactsRules(t *testing.T) {
	t.Parallel()
	facts := &xpkg.ImageFacts{Source: "example.xpkg", BaseLayers: []string{"sha256:a", "sha256:b", "sha256:c"}, PackageYAMLPath: "package.yaml"}
	res := lint(t, provider, rules.WithImageFacts(facts))
	var files []string
	for _, d := range res.Diagnostics {
		if d.Pos.Line != 0 || d.RuleID != "XP501" {
			t.Errorf("unexpected %v", d)
		}
		files = append(files, d.Pos.File)
	}
	if !slices.Equal(files, []string{"sha256:b", "sha256:c"}) {
		t.Errorf("XP501 files = %v, want the extra layers' digests", files)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := func() *linter.Rule { return testRule("OK1", "ok", func(*linter.Pass) error { return nil }) }
	tests := []struct {
		name  string
		rules []*linter.Rule
		want  string
	}{
		{name: "builtin", rules: rules.Builtin()},
		{name: "nil rule", rules: []*linter.Rule{nil}, want: "nil"},
		{name: "empty ID", rules: []*linter.Rule{func() *linter.Rule { r := ok(); r.ID = ""; return r }()}, want: "ID"},
		{name: "ID with comma", rules: []*linter.Rule{func() *linter.Rule { r := ok(); r.ID = "A,B"; return r }()}, want: "ID"},
		{name: "bad name", rules: []*linter.Rule{func() *linter.Rule { r := ok(); r.Name = "Not Kebab"; return r }()}, want: "kebab"},
		{name: "empty doc", rules: []*linter.Rule{func() *linter.Rule { r := ok(); r.Doc = " "; return r }()}, want: "empty Doc"},
		{name: "bad severity", rules: []*linter.Rule{func() *linter.Rule { r := ok(); r.Severity = 0; return r }()}, want: "severity"},
		{name: "bad kind", rules: []*linter.Rule{func() *linter.Rule { r := ok(); r.Kinds = []meta.Kind{"Stack"}; return r }()}, want: "kind"},
		{name: "bad scope", rules: []*linter.Rule{func() *linter.Rule { r := ok(); r.Scope = 7; return r }()}, want: "scope"},
		{name: "nil run", rules: []*linter.Rule{func() *linter.Rule { r := ok(); r.Run = nil; return r }()}, want: "nil Run"},
		{name: "duplicate ID", rules: []*linter.Rule{ok(), func() *linter.Rule { r := ok(); r.Name = "other"; r.ID = "ok1"; return r }()}, want: "already used"},
		{name: "duplicate name", rules: []*linter.Rule{ok(), func() *linter.Rule { r := ok(); r.ID = "OK2"; return r }()}, want: "already used"},
		{name: "name equals other ID", rules: []*linter.Rule{ok(), func() *linter.Rule { r := ok(); r.ID = "OK2"; r.Name = "ok1"; return r }()}, want: "already used"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := linter.Validate(tt.rules)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, linter.ErrInvalidRule) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want ErrInvalidRule mentioning %q", err, tt.want)
			}
		})
	}
}

func TestBuiltinIsFresh(t *testing.T) {
	t.Parallel()
	a, b := rules.Builtin(), rules.Builtin()
	a[0].Severity = linter.SeverityInfo
	if b[0].Severity == linter.SeverityInfo || rules.Lookup(a[0].ID).Severity == linter.SeverityInfo {
		t.Fatal("Builtin shares rule values between calls")
	}
	if rules.Lookup("allowed-kind").ID != "XP102" || rules.Lookup("xp102").Name != "allowed-kind" || rules.Lookup("nope") != nil {
		t.Fatal("Lookup by ID or name")
	}
}

func TestSeverityText(t *testing.T) {
	t.Parallel()
	for _, s := range []linter.Severity{linter.SeverityInfo, linter.SeverityWarning, linter.SeverityError} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back linter.Severity
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("round trip of %v: %s -> %v, %v", s, b, back, err)
		}
	}
	if _, err := linter.ParseSeverity("fatal"); err == nil {
		t.Error("ParseSeverity accepted fatal")
	}
	if _, err := linter.Severity(9).MarshalText(); err == nil {
		t.Error("invalid severity marshalled")
	}
	if linter.Severity(9).String() != "Severity(9)" {
		t.Error("String of an invalid severity")
	}
}

func TestFieldPath(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"spec.dependsOn[0].version":                          {"spec", "dependsOn", "0", "version"},
		`metadata.annotations["meta.crossplane.io/license"]`: {"metadata", "annotations", "meta.crossplane.io/license"},
		"": nil,
	}
	for want, path := range tests {
		if g := parser.FieldPath(path...); g != want {
			t.Errorf("parser.FieldPath(%q) = %q, want %q", path, g, want)
		}
	}
}

func TestDiagnosticJSON(t *testing.T) {
	t.Parallel()
	stream := strings.Replace(provider, "    meta.crossplane.io/license: Apache-2.0\n", "    meta.crossplane.io/license: Apache 2\n", 1)
	res := lint(t, stream)
	if len(res.Diagnostics) != 1 {
		t.Fatalf("%v", res.Diagnostics)
	}
	b, err := json.Marshal(res.Diagnostics[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"rule":"XP204"`, `"severity":"warning"`, `"field":"metadata.annotations[\"meta.crossplane.io/license\"]"`, `"kind":"Provider"`, `"line":8`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("JSON %s lacks %s", b, s)
		}
	}
}

// TestMetaGroupMismatch lints a package whose MetaGroup (the group the
// linter takes meta objects to have) is not that of its meta object.
func TestMetaGroupMismatch(t *testing.T) {
	t.Parallel()
	pkg := parse(t, provider)
	if pkg.MetaGroup != "meta.pkg.crossplane.io" {
		t.Fatalf("parsed MetaGroup = %q, want the default", pkg.MetaGroup)
	}
	pkg.MetaGroup = "meta.pkg.example.org"
	res, err := linter.Lint(t.Context(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(rules.Lookup("XP101")))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Pos.Line != 1 ||
		!strings.Contains(res.Diagnostics[0].Message, "has group meta.pkg.crossplane.io, want meta.pkg.example.org") {
		t.Fatalf("got %v", res.Diagnostics)
	}
}

// TestScopes checks that each runner runs the rules of its scope and knows
// the others: Lint skips a graph rule in its set (and may disable it),
// LintSubject runs it with its subject, capped like a package rule with the
// summary at the first left out, and refuses ScopePackage.
func TestScopes(t *testing.T) {
	t.Parallel()
	pkg := parse(t, "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: p\n")
	graphRule := testRule("GR1", "graph-rule", linter.RunOn(func(p *linter.Pass, n int) error {
		for i := range n {
			p.Report(linter.Diagnostic{Pos: parser.Position{File: "g", Line: i + 1}, Message: "m"})
		}
		return nil
	}))
	graphRule.Scope = linter.ScopeGraph
	res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(graphRule), linter.WithSeverity("graph-rule", linter.SeverityInfo))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rules) != 0 || len(res.Diagnostics) != 0 || len(res.Failures) != 0 {
		t.Errorf("Lint ran a graph rule: %+v", res)
	}
	if _, err := linter.LintSubject(context.Background(), linter.ScopePackage, 1, linter.WithRuleSet(graphRule)); err == nil {
		t.Error("LintSubject(ScopePackage): no error")
	}
	if _, err := linter.LintSubject(context.Background(), linter.ScopeGraph, 3, linter.WithRuleSet(graphRule), linter.WithDisabled("XP102")); !errors.Is(err, linter.ErrUnknownRule) {
		t.Errorf("unknown rule: got %v", err)
	}
	res, err = linter.LintSubject(context.Background(), linter.ScopeGraph, 5, linter.WithRuleSet(graphRule), linter.WithMaxDiagnostics(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) != 3 || res.Diagnostics[2].Pos.Line != 3 || !strings.Contains(res.Diagnostics[2].Message, "3 more diagnostics") {
		t.Errorf("capped: got %v", res.Diagnostics)
	}
}
