package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/xpkg"

	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/safetext"

	"github.com/xpkgkit/xpkgkit/parser"
)

// costN is how many of each thing the packages of these tests hold: more
// than a rule reports when it stops at once.
const costN = 300

// costPackages returns packages on which every built-in rule that loops
// reports many diagnostics: one with a single Provider meta object (with
// many dependencies, permission requests and capabilities) and many
// objects and broken documents of every kind the rules read, and one with
// many meta objects.
func costPackages(t *testing.T) map[string]*parser.Package {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-cost\n  labels:\n")
	for i := range costN {
		fmt.Fprintf(&b, "    'bad key %d': x\n", i)
	}
	b.WriteString("spec:\n  dependsOn:\n")
	for i := range costN {
		fmt.Fprintf(&b, "  - provider: Bad/Ref:v1\n    function: Bad/Ref:v1\n    version: nope%d\n", i)
	}
	b.WriteString("  controller:\n    permissionRequests:\n")
	for range costN {
		b.WriteString("    - {apiGroups: [], resources: [x]}\n")
	}
	b.WriteString("  capabilities:\n")
	for i := range costN {
		fmt.Fprintf(&b, "  - unknown%d\n", i)
	}
	b.WriteString("  unknownField:\n")
	for i := range costN {
		fmt.Fprintf(&b, "  k%d: 0\n", i)
	}
	for i := range costN {
		fmt.Fprintf(&b, "---\napiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: same\nspec:\n  versions: [{name: v1}, {name: v1}]\n")
		fmt.Fprintf(&b, "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: crd%d\nspec:\n  versions: [{name: v1}, {name: v1}]\n", i)
		fmt.Fprintf(&b, "---\napiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: xrd%d\nspec:\n  group: g\n  names: {kind: K, plural: ks}\n  claimNames: {kind: K, plural: ks}\n  versions: [{name: v1}, {name: v1}]\n", i)
		fmt.Fprintf(&b, "---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c%d\nspec:\n  compositeTypeRef: {apiVersion: g/v2, kind: K}\n", i)
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm%d\n", i)
		b.WriteString("---\nbad: [yaml\n---\nno: type\n")
	}
	objects, err := parser.Parse(t.Context(), strings.NewReader(b.String()), parser.WithFile("package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range costN {
		objects.Skipped = append(objects.Skipped, parser.SkippedFile{Path: fmt.Sprintf("l%d.yaml", i)})
	}

	b.Reset()
	for i := range costN {
		fmt.Fprintf(&b, "---\napiVersion: meta.pkg.crossplane.io/v1alpha1\nkind: Provider\nmetadata:\n  name: M_%d\n  annotations: {x: z}\nspek: {}\n", i)
	}
	metas, err := parser.Parse(t.Context(), strings.NewReader(b.String()), parser.WithFile("package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*parser.Package{"objects": objects, "metas": metas}
}

// costFacts are image facts that make the image rules report many.
func costFacts() *xpkg.ImageFacts {
	f := &xpkg.ImageFacts{Flattened: true, LegacyStack: true}
	for i := range costN {
		f.BaseLayers = append(f.BaseLayers, fmt.Sprintf("sha256:%064d", i))
		f.MisplacedPackageYAML = append(f.MisplacedPackageYAML, fmt.Sprintf("d%d/package.yaml", i))
	}
	return f
}

// runPass runs r on pkg as Lint would, uncapped, and returns the
// diagnostics it reported.
func runPass(ctx context.Context, r *linter.Rule, pkg *parser.Package) []linter.Diagnostic {
	res, err := linter.Lint(ctx, pkg, linter.WithRuleSet(r), WithImageFacts(costFacts()),
		linter.WithCrossplaneVersion("v2.0.0"), linter.WithMaxDiagnostics(0))
	if err != nil {
		return nil
	}
	return res.Diagnostics
}

// TestRulesStopWhenCancelled runs every built-in rule on packages where it
// reports many diagnostics, then again with a context that ends as the
// rule starts: a rule that loops over the package must check the context
// at each step, so it reports nothing then. Rules that report a handful
// (they look at one value) are left alone. The second run goes through the
// public API only: a wrapper rule cancels the Lint call's context and runs
// the rule, and its Regrade counts what the rule still reports.
func TestRulesStopWhenCancelled(t *testing.T) {
	t.Parallel()
	pkgs := costPackages(t)
	looping := 0
	for _, r := range Builtin() {
		for name, pkg := range pkgs {
			full := len(runPass(t.Context(), r, pkg))
			if full < costN/2 {
				continue
			}
			looping++
			ctx, cancel := context.WithCancel(t.Context())
			after := 0
			w := *r
			w.Run = func(p *linter.Pass) error {
				cancel()
				return r.Run(p)
			}
			w.Regrade = func(p *linter.Pass, d *linter.Diagnostic) {
				after++
				if r.Regrade != nil {
					r.Regrade(p, d)
				}
			}
			_, _ = linter.Lint(ctx, pkg, linter.WithRuleSet(&w), WithImageFacts(costFacts()),
				linter.WithCrossplaneVersion("v2.0.0"), linter.WithMaxDiagnostics(0))
			cancel()
			t.Logf("%s on %s: %d diagnostics, %d once cancelled", r.ID, name, full, after)
			if after > 0 {
				t.Errorf("%s %s on %s: %d diagnostics after the context was cancelled (%d without): the rule does not check the context in its loop",
					r.ID, r.Name, name, after, full)
			}
		}
	}
	if looping < 20 {
		t.Errorf("only %d rules report many diagnostics on the test packages: the test packages do not exercise the rules", looping)
	}
}

// TestMaxDiagnostics: a rule keeps at most the cap, in the order it
// reported them, plus one diagnostic saying how many it left out, with the
// highest severity among them; no cap keeps all.
func TestMaxDiagnostics(t *testing.T) {
	t.Parallel()
	pkg := &parser.Package{Objects: []*parser.Object{{}}}
	flood := &linter.Rule{ID: "T1", Name: "flood", Doc: "Floods.", Severity: linter.SeverityInfo, Run: func(p *linter.Pass) error {
		for i := range 50 {
			sev := linter.SeverityInfo
			if i == 40 {
				sev = linter.SeverityError // only among those left out
			}
			p.ReportSeverityf(sev, nil, nil, "finding %d", i)
		}
		return nil
	}}
	for _, tc := range []struct {
		name    string
		opts    []linter.Option
		want    int
		summary bool
	}{
		{"default cap above the count", nil, 50, false},
		{"cap 10", []linter.Option{linter.WithMaxDiagnostics(10)}, 11, true},
		{"no cap", []linter.Option{linter.WithMaxDiagnostics(0)}, 50, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := linter.Lint(t.Context(), pkg, append([]linter.Option{linter.WithRuleSet(flood)}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Diagnostics) != tc.want {
				t.Fatalf("%d diagnostics, want %d", len(res.Diagnostics), tc.want)
			}
			var summary *linter.Diagnostic
			for i, d := range res.Diagnostics {
				if strings.Contains(d.Message, "left out") {
					summary = &res.Diagnostics[i]
				}
			}
			if (summary != nil) != tc.summary {
				t.Fatalf("summary %v, want %v", summary, tc.summary)
			}
			if summary == nil {
				return
			}
			if !strings.HasPrefix(summary.Message, "40 more diagnostics") || summary.Severity != linter.SeverityError || summary.RuleID != "T1" {
				t.Errorf("summary %v, want 40 left out, severity error, rule T1", summary)
			}
			if !res.AtOrAbove(linter.SeverityError) {
				t.Error("an error among those left out does not fail the package")
			}
			i := 0
			for _, d := range res.Diagnostics {
				if d.Message == summary.Message {
					continue
				}
				if d.Message != fmt.Sprintf("finding %d", i) {
					t.Errorf("kept %q at %d: the first ones reported must be kept", d.Message, i)
				}
				i++
			}
		})
	}
}

// TestNilObjects: nil entries in a package are ignored, with any rule.
func TestNilObjects(t *testing.T) {
	t.Parallel()
	parsed := costPackages(t)["objects"]
	pkg := &parser.Package{
		Meta:    []*parser.Object{nil, parsed.Meta[0], nil},
		Objects: append([]*parser.Object{nil}, append(parsed.Objects, nil)...),
		Errors:  append([]*parser.DocumentError{nil}, parsed.Errors...),
	}
	res, err := linter.Lint(t.Context(), pkg, linter.WithRuleSet(Builtin()...), WithImageFacts(costFacts()), linter.WithCrossplaneVersion("v2.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Failures {
		t.Errorf("rule failed: %v", f)
	}
	if len(pkg.Meta) != 3 || pkg.Meta[0] != nil {
		t.Error("Lint modified the caller's package")
	}
	//lint:ignore SA1012 a nil context is the point: Lint must refuse it
	if _, err := linter.Lint(nil, pkg, linter.WithRuleSet(Builtin()...)); err == nil {
		t.Error("Lint(nil context): no error")
	}
}

// TestLintCancelledInsideARule cancels the context from inside a rule that
// runs first, on one worker: Lint returns the context's error, and the
// rules after it do not run.
func TestLintCancelledInsideARule(t *testing.T) {
	t.Parallel()
	pkg := costPackages(t)["objects"]
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ran := 0
	canceller := &linter.Rule{ID: "T0", Name: "canceller", Doc: "Cancels.", Severity: linter.SeverityInfo, Run: func(p *linter.Pass) error {
		cancel()
		return nil
	}}
	counter := &linter.Rule{ID: "T2", Name: "counter", Doc: "Counts.", Severity: linter.SeverityInfo, Run: func(p *linter.Pass) error {
		ran++
		return nil
	}}
	_, err := linter.Lint(ctx, pkg, linter.WithRuleSet(Builtin()...), linter.WithRuleSet(append([]*linter.Rule{canceller}, Builtin()...)...), linter.WithRules(counter), linter.WithConcurrency(1))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if ran != 0 {
		t.Error("a rule ran after the context was cancelled")
	}
}

// TestOneMetaMessagesBounded: XP101's message names a bounded number of the
// other meta objects, however many there are.
func TestOneMetaMessagesBounded(t *testing.T) {
	t.Parallel()
	pkg := costPackages(t)["metas"]
	diags := runPass(t.Context(), Lookup("XP101"), pkg)
	if len(diags) != costN-1 {
		t.Fatalf("%d diagnostics, want %d", len(diags), costN-1)
	}
	for _, d := range diags {
		if n := strings.Count(d.Message, "; "); n != safetext.MaxListItems-1 {
			t.Errorf("message names %d others, want %d: %s", n+1, safetext.MaxListItems, d.Message)
		}
		if !strings.Contains(d.Message, fmt.Sprintf(" and %d more)", costN-1-safetext.MaxListItems)) {
			t.Errorf("message does not say how many more: %s", d.Message)
		}
	}
}
