package deps_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/meta"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

const (
	reg   = "xpkg.example.org/acme/"
	provA = reg + "provider-a"
	provB = reg + "provider-b"
	cfgX  = reg + "configuration-x"
	cfgY  = reg + "configuration-y"
	fnP   = reg + "function-p"
)

// rootSummary parses a fixture as the root package, named root.yaml.
func rootSummary(t testing.TB, p *xpkgtest.Package) *deps.Package {
	t.Helper()
	pp, err := parser.Parse(context.Background(), bytes.NewReader(p.YAML()), parser.WithFile("root.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := deps.Summarize(context.Background(), pp, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func resolve(t testing.TB, src deps.Source, root *xpkgtest.Package, opts ...linter.Option) (*deps.Graph, []linter.Diagnostic) {
	t.Helper()
	return resolveAt(t, src, root, "", opts...)
}

// resolveAt is resolve with the resolver of Crossplane version target
// ("" for the default).
func resolveAt(t testing.TB, src deps.Source, root *xpkgtest.Package, target string, opts ...linter.Option) (*deps.Graph, []linter.Diagnostic) {
	t.Helper()
	g, err := deps.NewResolver(src, deps.WithTarget(target)).Resolve(context.Background(), rootSummary(t, root))
	if err != nil {
		t.Fatal(err)
	}
	// XP609 reports every graph's footprint: TestFootprint checks it.
	res, err := graphrules.Lint(context.Background(), g, append([]linter.Option{linter.WithDisabled("XP609")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return g, res.Diagnostics
}

// want is an expected diagnostic: rule ID, file:line and message pattern.
type want struct {
	id, at, msg string
}

func versions(g *deps.Graph) string {
	var s []string
	for _, n := range g.Nodes[1:] {
		s = append(s, n.Label())
	}
	return strings.Join(s, " ")
}

// TestVersionChecksLimit checks that choosing versions stops with a
// *limit.Error once it has compared more tags against constraints than
// MaxVersionChecks allows.
func TestVersionChecksLimit(t *testing.T) {
	t.Parallel()
	g := xpkgtest.NewGraph()
	for i := range 50 {
		g.Add(provA, fmt.Sprintf("v1.0.%d", i), xpkgtest.NewProvider("provider-a"))
	}
	root := xpkgtest.NewConfiguration("root").WithDependency(meta.KindProvider, provA, ">=v9.0.0 || =v8.0.0 || =v7.0.0")
	_, err := deps.NewResolver(g.Source(t), deps.WithLimits(deps.Limits{MaxVersionChecks: 100})).Resolve(context.Background(), rootSummary(t, root))
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != "MaxVersionChecks" {
		t.Fatalf("got %v, want a MaxVersionChecks *limit.Error", err)
	}
	if _, err := deps.NewResolver(g.Source(t)).Resolve(context.Background(), rootSummary(t, root)); err != nil {
		t.Fatalf("under the default limit: %v", err)
	}
}

func checkDiags(t *testing.T, ds []linter.Diagnostic, wants []want) {
	t.Helper()
	if len(ds) != len(wants) {
		for _, d := range ds {
			t.Logf("got %s", d)
		}
		t.Fatalf("got %d diagnostics, want %d", len(ds), len(wants))
	}
	for i, w := range wants {
		d := ds[i]
		at := fmt.Sprintf("%s:%d", d.Pos.File, d.Pos.Line)
		if d.RuleID != w.id || !strings.HasPrefix(at, w.at) || !regexp.MustCompile(w.msg).MatchString(d.Message) {
			t.Errorf("diagnostic %d: got %s %s %q, want %s %s /%s/", i, d.RuleID, at, d.Message, w.id, w.at, w.msg)
		}
		if sev := linter.SeverityError; d.Severity != sev && d.Severity != footprintSeverity[d.RuleID] {
			t.Errorf("diagnostic %d: severity %s", i, d.Severity)
		}
	}
}

// footprintSeverity are the severities of the graph rules that are not
// errors (footprint_test.go).
var footprintSeverity = map[string]linter.Severity{
	"XP609": linter.SeverityInfo, "XP610": linter.SeverityWarning, "XP611": linter.SeverityWarning, "XP612": linter.SeverityWarning,
}

// ptComposition is a Composition whose function-patch-and-transform
// input composes the given apiVersion, kind pairs.
func ptComposition(name, fn string, types ...string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: %s\nspec:\n  compositeTypeRef:\n    apiVersion: x.example.org/v1alpha1\n    kind: XThing\n  mode: Pipeline\n  pipeline:\n  - step: pt\n    functionRef:\n      name: %s\n    input:\n      apiVersion: pt.fn.crossplane.io/v1beta1\n      kind: Resources\n      resources:\n", name, fn)
	for i := 0; i+1 < len(types); i += 2 {
		fmt.Fprintf(&b, "      - name: r%d\n        base:\n          apiVersion: %s\n          kind: %s\n", i, types[i], types[i+1])
	}
	return []byte(b.String())
}

// chain builds a graph of n configurations each depending on the next,
// plus a diamond at every step onto a shared provider.
func wideGraph(n int) (*xpkgtest.Graph, *xpkgtest.Package) {
	g := xpkgtest.NewGraph()
	prov := xpkgtest.NewProvider("provider-a").WithCRD("a.example.org", "Widget", "v1")
	g.Add(provA, "v1.0.0", prov).Add(provA, "v1.1.0", prov)
	root := xpkgtest.NewConfiguration("root")
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%sconfiguration-%03d", reg, i)
		c := xpkgtest.NewConfiguration(fmt.Sprintf("configuration-%03d", i)).WithDependency(meta.KindProvider, provA, ">=v1.0.0")
		if i+1 < n {
			c = c.WithDependency(meta.KindConfiguration, fmt.Sprintf("%sconfiguration-%03d", reg, i+1), ">=v0.1.0")
		}
		if i+2 < n {
			c = c.WithDependency(meta.KindConfiguration, fmt.Sprintf("%sconfiguration-%03d", reg, i+2), ">=v0.1.0")
		}
		g.Add(name, "v0.1.0", c).Add(name, "v0.2.0", c)
		if i%10 == 0 {
			root = root.WithDependency(meta.KindConfiguration, name, "v0")
		}
	}
	return g, root
}

func TestLargeGraphFetchesOnce(t *testing.T) {
	t.Parallel()
	g, root := wideGraph(200)
	src := g.Source(t)
	gr, ds := resolve(t, src, root)
	checkDiags(t, ds, nil)
	if len(gr.Nodes) != 202 {
		t.Fatalf("got %d nodes, want 202", len(gr.Nodes))
	}
	for _, n := range gr.Nodes[1:] {
		if c := deps.Fetches(src, n.Name, n.Version); c != 1 {
			t.Errorf("%s fetched %d times", n.Label(), c)
		}
	}
	// Deterministic: the same lock every time, whatever the concurrency.
	first := gr.Lock().JSON()
	for _, c := range []int{1, 3, 8} {
		g2, err := deps.NewResolver(g.Source(t), deps.WithConcurrency(c)).Resolve(context.Background(), rootSummary(t, root))
		if err != nil {
			t.Fatal(err)
		}
		if got := g2.Lock().JSON(); !bytes.Equal(got, first) {
			t.Fatalf("concurrency %d: lock differs", c)
		}
	}
}

func TestLimitsAndCancel(t *testing.T) {
	t.Parallel()
	g, root := wideGraph(50)
	_, err := deps.NewResolver(g.Source(t), deps.WithLimits(deps.Limits{MaxPackages: 10})).Resolve(context.Background(), rootSummary(t, root))
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != "MaxPackages" || !errors.Is(err, limit.ErrExceeded) {
		t.Errorf("MaxPackages: got %v", err)
	}
	_, err = deps.NewResolver(g.Source(t), deps.WithLimits(deps.Limits{MaxEdges: 20})).Resolve(context.Background(), rootSummary(t, root))
	if !errors.As(err, &le) || le.Limit != "MaxEdges" || le.Value <= le.Max {
		t.Errorf("MaxEdges: got %v", err)
	}
	// limit.Unlimited lifts a limit (a negative limit used to fail at once).
	lifted := deps.Limits{MaxPackages: limit.Unlimited, MaxEdges: limit.Unlimited, MaxTags: limit.Unlimited, MaxVersionChecks: limit.Unlimited}
	if _, err := deps.NewResolver(g.Source(t), deps.WithLimits(lifted)).Resolve(context.Background(), rootSummary(t, root)); err != nil {
		t.Errorf("Unlimited: got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := deps.NewResolver(g.Source(t)).Resolve(ctx, rootSummary(t, root)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
}

// TestSummarizeAsDependency checks that what a summary keeps is Summarize's
// parameter, not something the context carries: a root's summary keeps no
// definitions; a dependency's (AsDependency) keeps those of the types keep
// asks for, whatever the context.
func TestSummarizeAsDependency(t *testing.T) {
	t.Parallel()
	prov := xpkgtest.NewProvider("provider-a").WithCRD("a.example.org", "Widget", "v1").WithCRD("a.example.org", "Gadget", "v1")
	pp, err := parser.Parse(context.Background(), bytes.NewReader(prov.YAML()))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts []deps.SummaryOption
		want int
	}{
		{"root", nil, 0},
		{"dependency keeping Widget", []deps.SummaryOption{deps.AsDependency(func(g, k string) bool { return g == "a.example.org" && k == "Widget" })}, 1},
		{"dependency keeping nothing", []deps.SummaryOption{deps.AsDependency(nil)}, 0},
	} {
		s, err := deps.Summarize(context.Background(), pp, "", tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(s.Definitions()); got != tc.want || len(s.Types) != 2 {
			t.Errorf("%s: %d definitions and %d types, want %d and 2", tc.name, got, len(s.Types), tc.want)
		}
	}
}
