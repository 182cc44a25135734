package graphrules_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/meta"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/linter/rules"
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

func TestResolve(t *testing.T) {
	t.Parallel()
	prov := xpkgtest.NewProvider("provider-a").WithCRD("a.example.org", "Widget", "v1")
	fn := xpkgtest.NewFunction("function-p")
	base := xpkgtest.NewGraph().
		Add(provA, "v1.0.0", prov).
		Add(provA, "v1.1.0", prov).
		Add(provA, "v1.2.0-rc.1", prov).
		Add(provA, "v2", prov). // incomplete: never selected
		Add(provA, "latest", prov).
		Add(provA, "v2.0.0", prov).
		Add(provB, "v0.1.0", xpkgtest.NewProvider("provider-b")).
		Add(fnP, "v0.3.0", fn)
	cfg := xpkgtest.NewConfiguration("root")

	tests := []struct {
		name     string
		graph    *xpkgtest.Graph
		root     *xpkgtest.Package
		target   string // the resolver's Crossplane version (deps.WithTarget)
		opts     []linter.Option
		versions string
		want     []want
	}{{
		name:     "highest tag that satisfies",
		graph:    base,
		root:     cfg.WithDependency(meta.KindProvider, provA, "v1"),
		versions: provA + ":v1.1.0",
	}, {
		name:     "pre-release only when the constraint names one",
		graph:    base,
		root:     cfg.WithDependency(meta.KindProvider, provA, ">=v1.2.0-0, <v2.0.0-0"),
		versions: provA + ":v1.2.0-rc.1",
	}, {
		// Crossplane's semver (Masterminds v1.5.0): each comparison whose
		// bound names no pre-release refuses one, whatever the others say.
		name:   "pre-release refused by a comparison without one",
		graph:  base,
		target: "v2.1.0",
		root:   cfg.WithDependency(meta.KindProvider, provA, ">=v1.2.0-0, <v2.0.0"),
		want:   []want{{"XP601", "root.yaml:15", `no tag satisfies ">=v1.2.0-0, <v2.0.0"`}},
	}, {
		// Crossplane v2.3 reads constraints with semver v3: a pre-release
		// bound anywhere in the group admits pre-releases.
		name:     "pre-release admitted by semver v3 at v2.3",
		graph:    base,
		root:     cfg.WithDependency(meta.KindProvider, provA, ">=v1.2.0-0, <v2.0.0"),
		versions: provA + ":v1.2.0-rc.1",
	}, {
		name:   "constraints joined by a space are not Crossplane's before v2.3",
		graph:  base,
		target: "v2.2.4",
		root:   cfg.WithDependency(meta.KindProvider, provA, ">=v1.0.0 <v2.0.0"),
		want:   []want{{"XP601", "root.yaml:15", `is not a constraint Crossplane reads: comparisons joined by a space: .* needs a comma: write ">=v1.0.0, <v2.0.0"`}},
	}, {
		name:     "constraints joined by a space resolve from v2.3",
		graph:    base,
		target:   "v2.3.0",
		root:     cfg.WithDependency(meta.KindProvider, provA, ">=v1.0.0 <v2.0.0"),
		versions: provA + ":v1.1.0",
	}, {
		// ">v2" under semver v1.5.0 admits v2.0.x and later minors; under
		// v3 it means >= v3.0.0.
		name:   "greater than a major under semver v3",
		graph:  base,
		target: "v2.3.0",
		root:   cfg.WithDependency(meta.KindProvider, provA, ">v1, <v2.0.0"),
		want:   []want{{"XP601", "root.yaml:15", `no tag satisfies ">v1, <v2.0.0"`}},
	}, {
		name:     "greater than a major under semver v1.5.0",
		graph:    base,
		target:   "v2.1.0",
		root:     cfg.WithDependency(meta.KindProvider, provA, ">v1, <v2.0.0"),
		versions: provA + ":v1.1.0",
	}, {
		name:     "wildcards and carets",
		graph:    base,
		root:     cfg.WithDependency(meta.KindProvider, provA, "1.x").WithDependency(meta.KindFunction, fnP, "^0.3"),
		versions: fnP + ":v0.3.0 " + provA + ":v1.1.0",
	}, {
		name:     "incomplete and non-semver tags are skipped",
		graph:    base,
		root:     cfg.WithDependency(meta.KindProvider, provA, ">=v1.5.0"),
		versions: provA + ":v2.0.0",
	}, {
		name:     "deprecated keys resolve like package",
		graph:    base,
		root:     cfg.WithLegacyDependency(meta.KindProvider, provA, "~v1.0.0").WithLegacyDependency(meta.KindFunction, fnP, ">=v0.1.0"),
		versions: fnP + ":v0.3.0 " + provA + ":v1.0.0",
	}, {
		name:  "no tag satisfies: nearest tags",
		graph: base,
		root:  cfg.WithDependency(meta.KindProvider, provA, ">=v3.0.0"),
		want:  []want{{"XP601", "root.yaml:15", `no tag satisfies ">=v3.0.0"; nearest tags: v2.0.0, v1.2.0-rc.1, v1.1.0`}},
	}, {
		name:  "no such package",
		graph: base,
		root:  cfg.WithDependency(meta.KindProvider, reg+"provider-missing", ">=v1.0.0"),
		want:  []want{{"XP601", "root.yaml:15", `no such package in the sources`}},
	}, {
		name: "diamond with a common version",
		graph: xpkgtest.NewGraph().
			Add(cfgX, "v1.0.0", xpkgtest.NewConfiguration("x").WithDependency(meta.KindProvider, provA, ">=v1.0.0")).
			Add(cfgY, "v1.0.0", xpkgtest.NewConfiguration("y").WithDependency(meta.KindProvider, provA, "<v1.1.0")).
			Add(provA, "v1.0.0", prov).Add(provA, "v1.1.0", prov),
		root:     cfg.WithDependency(meta.KindConfiguration, cfgX, "v1").WithDependency(meta.KindConfiguration, cfgY, "v1"),
		versions: cfgX + ":v1.0.0 " + cfgY + ":v1.0.0 " + provA + ":v1.0.0",
	}, {
		name: "conflict names every constraint",
		graph: xpkgtest.NewGraph().
			Add(cfgX, "v1.0.0", xpkgtest.NewConfiguration("x").WithDependency(meta.KindProvider, provA, ">=v2.0.0")).
			Add(provA, "v1.0.0", prov).Add(provA, "v2.0.0", prov),
		root: cfg.WithDependency(meta.KindProvider, provA, "v1").WithDependency(meta.KindConfiguration, cfgX, "v1"),
		want: []want{
			{"XP602", "root.yaml:15", `no tag satisfies all of "v1", ">=v2.0.0"; the constraints are "v1" by root at root.yaml:15:5, ">=v2.0.0" by ` + regexp.QuoteMeta(cfgX) + `:v1.0.0 at ` + regexp.QuoteMeta(cfgX) + `:v1.0.0/package.yaml:15:5`},
			{"XP602", cfgX + ":v1.0.0/package.yaml:15", `no tag satisfies all of`},
		},
	}, {
		name: "cycle with its path",
		graph: xpkgtest.NewGraph().
			Add(cfgX, "v1.0.0", xpkgtest.NewConfiguration("x").WithDependency(meta.KindConfiguration, cfgY, "v1")).
			Add(cfgY, "v1.0.0", xpkgtest.NewConfiguration("y").WithDependency(meta.KindConfiguration, cfgX, "v1")),
		root: cfg.WithDependency(meta.KindConfiguration, cfgX, "v1"),
		want: []want{{"XP603", cfgY + ":v1.0.0/package.yaml:15", `closes a dependency cycle: ` + regexp.QuoteMeta(cfgX+":v1.0.0 → "+cfgY+":v1.0.0 → "+cfgX+":v1.0.0")}},
	}, {
		name: "cycles among many packages: one per set",
		graph: xpkgtest.NewGraph().
			Add(cfgX, "v1.0.0", xpkgtest.NewConfiguration("x").WithDependency(meta.KindConfiguration, cfgY, "v1")).
			Add(cfgY, "v1.0.0", xpkgtest.NewConfiguration("y").WithDependency(meta.KindConfiguration, cfgX, "v1").WithDependency(meta.KindConfiguration, reg+"configuration-z", "v1")).
			Add(reg+"configuration-z", "v1.0.0", xpkgtest.NewConfiguration("z").WithDependency(meta.KindConfiguration, cfgX, "v1").WithDependency(meta.KindConfiguration, cfgY, "v1")),
		root: cfg.WithDependency(meta.KindConfiguration, cfgX, "v1"),
		want: []want{{"XP603", cfgY + ":v1.0.0/package.yaml:15", `closes a dependency cycle: ` + regexp.QuoteMeta(cfgX+":v1.0.0 → "+cfgY+":v1.0.0 → "+cfgX+":v1.0.0") + ` \(one of the cycles among 3 packages`}},
	}, {
		// p v2 needs q, q needs p <v2: each walk flips p.
		name: "unsettled walk",
		graph: xpkgtest.NewGraph().
			Add(cfgX, "v1.0.0", xpkgtest.NewConfiguration("p")).
			Add(cfgX, "v2.0.0", xpkgtest.NewConfiguration("p").WithDependency(meta.KindConfiguration, cfgY, ">=v1.0.0")).
			Add(cfgY, "v1.0.0", xpkgtest.NewConfiguration("q").WithDependency(meta.KindConfiguration, cfgX, "<v2.0.0")),
		root: cfg.WithDependency(meta.KindConfiguration, cfgX, ">=v1.0.0"),
		want: []want{{"XP608", "root.yaml:15", `the version of ` + regexp.QuoteMeta(cfgX) + ` does not settle: .*\(in turn v2.0.0, v1.0.0, v2.0.0\); the packages that flip are "` + regexp.QuoteMeta(cfgX) + `"`}},
	}, {
		name:  "kind mismatch",
		graph: base,
		root:  cfg.WithDependency(meta.KindProvider, fnP, ">=v0.1.0"),
		want:  []want{{"XP604", "root.yaml:15", `declared a "Provider" but .*function-p:v0.3.0 is a Function package`}},
	}, {
		name:  "graph crossplane version",
		graph: xpkgtest.NewGraph().Add(provB, "v0.1.0", xpkgtest.NewProvider("provider-b").WithCrossplaneConstraint("<v2.0.0")),
		root:  cfg.WithDependency(meta.KindProvider, provB, ">=v0.1.0"),
		opts:  []linter.Option{linter.WithCrossplaneVersion("v2.1.0")},
		want:  []want{{"XP605", "root.yaml:15", `provider-b:v0.1.0 requires Crossplane "<v2.0.0", which excludes v2.1.0`}},
	}, {
		// A default target is a target: the release the default line
		// was read from.
		name:     "graph crossplane version without target",
		graph:    xpkgtest.NewGraph().Add(provB, "v0.1.0", xpkgtest.NewProvider("provider-b").WithCrossplaneConstraint("<v2.0.0")),
		root:     cfg.WithDependency(meta.KindProvider, provB, ">=v0.1.0"),
		versions: provB + ":v0.1.0",
		want:     []want{{"XP605", "root.yaml:15", `provider-b:v0.1.0 requires Crossplane "<v2.0.0", which excludes v2.4.0`}},
	}, {
		name:     "graph crossplane version without target, allowed",
		graph:    xpkgtest.NewGraph().Add(provB, "v0.1.0", xpkgtest.NewProvider("provider-b").WithCrossplaneConstraint(">=v2.0.0")),
		root:     cfg.WithDependency(meta.KindProvider, provB, ">=v0.1.0"),
		versions: provB + ":v0.1.0",
	}, {
		name:  "composition function and composed types",
		graph: base,
		root: cfg.WithDependency(meta.KindFunction, fnP, ">=v0.1.0").WithDependency(meta.KindProvider, provA, "v1").
			WithXRD("x.example.org", "XThing").
			WithComposition("good", "x.example.org/v1alpha1", "XThing", "acme-function-p").
			WithComposition("bad", "x.example.org/v1alpha1", "XThing", "function-p").
			WithObject(ptComposition("pt", "acme-function-p", "a.example.org/v1", "Widget", "a.example.org/v2", "Widget", "b.example.org/v1", "Gadget", "v1", "ConfigMap")),
		versions: fnP + ":v0.3.0 " + provA + ":v1.1.0",
		want: []want{
			{"XP606", "root.yaml:", `Composition "bad" calls function "function-p", which no Function of the graph is named .*"acme-function-p"`},
			{"XP607", "root.yaml:", `composes "a.example.org/v2" "Widget", but the graph serves "Widget" only at "v1"`},
			{"XP607", "root.yaml:", `composes "b.example.org/v1" "Gadget", which no CRD, XRD or MRD of the graph serves`},
		},
	}, {
		// Up to v2.1 a Function's CRDs are installed, so they serve a
		// composed type.
		name: "a Function's CRD serves a composed type at v2.1",
		graph: xpkgtest.NewGraph().
			Add(fnP, "v0.3.0", xpkgtest.NewFunction("function-p").WithCRD("f.example.org", "Thing", "v1")),
		root: cfg.WithDependency(meta.KindFunction, fnP, ">=v0.1.0").
			WithXRD("x.example.org", "XThing").
			WithObject(ptComposition("pt", "acme-function-p", "f.example.org/v1", "Thing")),
		opts:     []linter.Option{linter.WithCrossplaneVersion("v2.1.0")},
		versions: fnP + ":v0.3.0",
	}, {
		// From v2.2 none of a Function's objects is installed (crossplane
		// commit 36f59bef1): its CRDs serve nothing.
		name: "a Function's CRD serves nothing from v2.2",
		graph: xpkgtest.NewGraph().
			Add(fnP, "v0.3.0", xpkgtest.NewFunction("function-p").WithCRD("f.example.org", "Thing", "v1")),
		root: cfg.WithDependency(meta.KindFunction, fnP, ">=v0.1.0").
			WithXRD("x.example.org", "XThing").
			WithObject(ptComposition("pt", "acme-function-p", "f.example.org/v1", "Thing")),
		opts:     []linter.Option{linter.WithCrossplaneVersion("v2.2.0")},
		versions: fnP + ":v0.3.0",
		want:     []want{{"XP607", "root.yaml:", `composes "f.example.org/v1" "Thing", which no CRD, XRD or MRD of the graph serves`}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, ds := resolveAt(t, tc.graph.Source(t), tc.root, tc.target, tc.opts...)
			if tc.versions != "" {
				if got := versions(g); got != tc.versions {
					t.Errorf("versions: got %q, want %q", got, tc.versions)
				}
			}
			checkDiags(t, ds, tc.want)
		})
	}
}

// TestLintCap checks that a graph rule reports at most WithMaxDiagnostics
// diagnostics and one more that says how many it left out, with their
// severity.
func TestLintCap(t *testing.T) {
	t.Parallel()
	root := xpkgtest.NewConfiguration("root")
	for i := range 7 {
		root = root.WithDependency(meta.KindProvider, fmt.Sprintf("%sprovider-missing-%d", reg, i), ">=v1.0.0")
	}
	src := xpkgtest.NewGraph().Add(provB, "v0.1.0", xpkgtest.NewProvider("provider-b")).Source(t)
	_, ds := resolve(t, src, root, linter.WithMaxDiagnostics(3))
	if len(ds) != 4 {
		t.Fatalf("got %d diagnostics, want 3 and a summary", len(ds))
	}
	last := ds[3]
	if last.RuleID != "XP601" || last.Severity != linter.SeverityError || !strings.Contains(last.Message, "4 more diagnostics of this rule were left out") {
		t.Errorf("summary: got %s", last)
	}
	_, ds = resolve(t, src, root, linter.WithMaxDiagnostics(0))
	if len(ds) != 7 {
		t.Errorf("without a cap: got %d diagnostics, want 7", len(ds))
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

func TestDigestPins(t *testing.T) {
	t.Parallel()
	prov := xpkgtest.NewProvider("provider-a")
	g := xpkgtest.NewGraph().Add(provA, "v1.0.0", prov).Add(provA, "v1.1.0", prov.WithAnnotation("x", "y"))
	d0 := g.Digest(t, provA, "v1.0.0")
	d1 := g.Digest(t, provA, "v1.1.0")
	cfg := xpkgtest.NewConfiguration("root")

	gr, ds := resolve(t, g.Source(t), cfg.WithDependency(meta.KindProvider, provA, d0))
	checkDiags(t, ds, nil)
	if got := versions(gr); got != provA+"@"+d0 {
		t.Errorf("pinned: got %s", got)
	}
	if n := gr.Nodes[1]; n.Package.Version != "v1.0.0" || n.Package.Digest != d0 {
		t.Errorf("pinned package: version %q digest %q", n.Package.Version, n.Package.Digest)
	}

	cy := xpkgtest.NewConfiguration("y").WithDependency(meta.KindProvider, provA, d1)
	g2 := xpkgtest.NewGraph().Add(provA, "v1.0.0", prov).Add(provA, "v1.1.0", prov.WithAnnotation("x", "y")).Add(cfgY, "v1.0.0", cy)
	_, ds = resolve(t, g2.Source(t), cfg.WithDependency(meta.KindProvider, provA, d0).WithDependency(meta.KindConfiguration, cfgY, "v1"))
	checkDiags(t, ds, []want{
		{"XP602", "root.yaml:15", "pinned to 2 different digests"},
		{"XP602", cfgY + ":v1.0.0/package.yaml:15", "pinned to 2 different digests"},
	})

	_, ds = resolve(t, g.Source(t), cfg.WithDependency(meta.KindProvider, provA, "sha256:"+strings.Repeat("0", 64)))
	checkDiags(t, ds, []want{{"XP601", "root.yaml:15", "cannot be fetched"}})
}

func TestReselectAfterLaterConstraint(t *testing.T) {
	t.Parallel()
	// Y, met later, narrows provider-a to v1.0.0, which depends on
	// provider-b; v1.1.0 (first selected) does not.
	prov10 := xpkgtest.NewProvider("provider-a").WithDependency(meta.KindProvider, provB, ">=v0.1.0")
	g := xpkgtest.NewGraph().
		Add(provA, "v1.0.0", prov10).Add(provA, "v1.1.0", xpkgtest.NewProvider("provider-a")).
		Add(provB, "v0.1.0", xpkgtest.NewProvider("provider-b")).
		Add(cfgY, "v1.0.0", xpkgtest.NewConfiguration("y").WithDependency(meta.KindProvider, provA, "<v1.1.0"))
	root := xpkgtest.NewConfiguration("root").WithDependency(meta.KindProvider, provA, "v1").WithDependency(meta.KindConfiguration, cfgY, "v1")
	gr, ds := resolve(t, g.Source(t), root)
	checkDiags(t, ds, nil)
	if got, want := versions(gr), cfgY+":v1.0.0 "+provA+":v1.0.0 "+provB+":v0.1.0"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	lock := string(gr.Lock().JSON())
	for _, s := range []string{`"package": "` + provA + `"`, `"version": "v1.0.0"`, `"by": "root"`, `"position": "root.yaml:15:5"`} {
		if !strings.Contains(lock, s) {
			t.Errorf("lock lacks %s:\n%s", s, lock)
		}
	}
}

func TestRulesCatalog(t *testing.T) {
	t.Parallel()
	rs := graphrules.Rules()
	if err := linter.Validate(append(rules.Builtin(), rs...)); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"XP601", "XP602", "XP603", "XP604", "XP605", "XP606", "XP607"} {
		if rs[i].ID != id || rs[i].Bad == "" || rs[i].Good == "" || rs[i].Severity != linter.SeverityError {
			t.Errorf("rule %d: %s %s", i, rs[i].ID, rs[i].Severity)
		}
	}
}

func TestComposedSchema(t *testing.T) {
	t.Parallel()
	prov := xpkgtest.NewProvider("provider-a").WithCRD("a.example.org", "Widget", "v1").WithCRD("a.example.org", "Gadget", "v1")
	g := xpkgtest.NewGraph().Add(provA, "v1.0.0", prov).Add(fnP, "v0.3.0", xpkgtest.NewFunction("function-p"))
	comp := ptComposition("pt", "acme-function-p", "a.example.org/v1", "Widget")
	comp = append(comp, []byte("          spec:\n            size: big\n            colour: red\n")...)
	root := xpkgtest.NewConfiguration("root").
		WithDependency(meta.KindProvider, provA, "v1").
		WithDependency(meta.KindFunction, fnP, "v0").
		WithXRD("x.example.org", "XThing").
		WithObject(comp)
	gr, ds := resolve(t, g.Source(t), root)
	if n := gr.Nodes[2]; n.Name != provA || len(n.Package.Definitions()) != 1 {
		t.Fatalf("%s keeps %d definitions, want the Widget CRD only", n.Name, len(n.Package.Definitions()))
	}
	if len(ds) != 2 {
		for _, d := range ds {
			t.Log(d)
		}
		t.Fatalf("got %d diagnostics, want 2", len(ds))
	}
	for i, w := range []struct {
		sev linter.Severity
		msg string
	}{
		{linter.SeverityWarning, `at spec.colour: unknown field`},
		{linter.SeverityError, `at spec.size: .*integer`},
	} {
		d := ds[i]
		if d.RuleID != "XP607" || d.Severity != w.sev || !regexp.MustCompile(w.msg).MatchString(d.Message) || d.Pos.File != "root.yaml" {
			t.Errorf("diagnostic %d: %s", i, d)
		}
	}
}

// TestLintConfiguration checks that Lint takes the linter's
// configuration as linter.Lint does: an unknown rule or an invalid
// severity is an error, a rule is disabled or regraded by ID or name (the
// last regrading wins, whichever names it), a package rule given in the
// rule set is known and not run, and the graph rules given to linter.Lint
// are known and not run.
func TestLintConfiguration(t *testing.T) {
	t.Parallel()
	root := xpkgtest.NewConfiguration("root").WithDependency(meta.KindProvider, reg+"provider-missing", ">=v1.0.0")
	src := xpkgtest.NewGraph().Add(provB, "v0.1.0", xpkgtest.NewProvider("provider-b")).Source(t)
	g, err := deps.NewResolver(src).Resolve(context.Background(), rootSummary(t, root))
	if err != nil {
		t.Fatal(err)
	}
	lint := func(opts ...linter.Option) (*linter.Result, error) {
		return graphrules.Lint(context.Background(), g, opts...)
	}
	for _, tc := range []struct {
		name string
		opts []linter.Option
	}{
		{"unknown disabled", []linter.Option{linter.WithDisabled("XP999")}},
		{"unknown regraded", []linter.Option{linter.WithSeverity("no-such-rule", linter.SeverityInfo)}},
		{"package rule without the package rules", []linter.Option{linter.WithDisabled("XP102")}},
	} {
		if _, err := lint(tc.opts...); !errors.Is(err, linter.ErrUnknownRule) {
			t.Errorf("%s: got %v, want ErrUnknownRule", tc.name, err)
		}
	}
	if _, err := lint(linter.WithSeverity("XP601", linter.Severity(9))); err == nil {
		t.Error("invalid severity: no error")
	}
	sevOf := func(opts ...linter.Option) []linter.Severity {
		t.Helper()
		res, err := lint(opts...)
		if err != nil {
			t.Fatal(err)
		}
		var out []linter.Severity
		for _, d := range res.Diagnostics {
			out = append(out, d.Severity)
		}
		return out
	}
	if got := sevOf(); len(got) != 1 || got[0] != linter.SeverityError {
		t.Fatalf("default: got %v, want one error", got)
	}
	if got := sevOf(linter.WithDisabled("dependency-unresolved")); len(got) != 0 {
		t.Errorf("disabled by name: got %v", got)
	}
	for _, order := range [][2]string{{"XP601", "dependency-unresolved"}, {"dependency-unresolved", "XP601"}} {
		got := sevOf(linter.WithSeverity(order[0], linter.SeverityInfo), linter.WithSeverity(order[1], linter.SeverityWarning))
		if len(got) != 1 || got[0] != linter.SeverityWarning {
			t.Errorf("regraded by %s then %s: got %v, want the last, warning", order[0], order[1], got)
		}
	}
	res, err := lint(linter.WithRules(rules.Builtin()...), linter.WithDisabled("XP102"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) != 1 || slices.Contains(res.Rules, "XP102") || !slices.Contains(res.Rules, "XP601") {
		t.Errorf("with the package rules: got %v, rules %v", res.Diagnostics, res.Rules)
	}

	// linter.Lint knows the graph rules it is given and runs none.
	pkg, err := parser.Parse(context.Background(), bytes.NewReader(root.YAML()))
	if err != nil {
		t.Fatal(err)
	}
	lres, err := linter.Lint(context.Background(), pkg, linter.WithRules(graphrules.Rules()...), linter.WithDisabled("XP605"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range lres.Rules {
		if strings.HasPrefix(id, "XP6") {
			t.Errorf("linter.Lint ran graph rule %s", id)
		}
	}
}

// TestGraphRuleWithoutGraph checks that a graph rule run on something else
// than a graph fails (it is recorded in the result's Failures), not that it
// passes silently.
func TestGraphRuleWithoutGraph(t *testing.T) {
	t.Parallel()
	res, err := linter.LintSubject(context.Background(), linter.ScopeGraph, "not a graph", linter.WithRuleSet(graphrules.Rules()...))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != len(graphrules.Rules()) {
		t.Errorf("got %d failures, want one per graph rule", len(res.Failures))
	}
}

// TestLintSuppression checks that the root package's suppression
// annotations silence graph rules as they silence package rules: on the
// meta object for every diagnostic of the rule, with the reason, which the
// result's Suppressed keeps.
func TestLintSuppression(t *testing.T) {
	t.Parallel()
	src := xpkgtest.NewGraph().Add(provB, "v0.1.0", xpkgtest.NewProvider("provider-b")).Source(t)
	for _, tc := range []struct {
		name, annotation string
		kept, silenced   int
	}{
		{"none", "", 1, 0},
		{"by ID", "XP601: vendored elsewhere", 0, 1},
		{"by name", "dependency-unresolved: vendored elsewhere", 0, 1},
		{"another rule", "XP602: not this one", 1, 0},
	} {
		root := xpkgtest.NewConfiguration("root").WithDependency(meta.KindProvider, reg+"provider-missing", ">=v1.0.0")
		if tc.annotation != "" {
			root = root.WithAnnotation(meta.AnnotationSuppress, tc.annotation)
		}
		g, err := deps.NewResolver(src).Resolve(context.Background(), rootSummary(t, root))
		if err != nil {
			t.Fatal(err)
		}
		res, err := graphrules.Lint(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Diagnostics) != tc.kept || len(res.Suppressed) != tc.silenced {
			t.Errorf("%s: %d kept, %d silenced; want %d, %d", tc.name, len(res.Diagnostics), len(res.Suppressed), tc.kept, tc.silenced)
			continue
		}
		if tc.silenced > 0 {
			if s := res.Suppressed[0].Suppression; s == nil || s.Reason != "vendored elsewhere" {
				t.Errorf("%s: suppression %+v", tc.name, s)
			}
		}
	}
}

// TestLintSuppressionInObject checks that an annotation on an object of the
// root silences a graph rule's diagnostics in that object's document only.
func TestLintSuppressionInObject(t *testing.T) {
	t.Parallel()
	src := xpkgtest.NewGraph().Source(t)
	annotated := strings.Replace(string(ptComposition("a", "function-none")), "metadata:\n  name: a\n", "metadata:\n  name: a\n  annotations:\n    "+meta.AnnotationSuppress+": \"composition-function: installed by hand\"\n", 1)
	root := xpkgtest.NewConfiguration("root").WithObject([]byte(annotated)).WithObject(ptComposition("b", "function-none"))
	g, err := deps.NewResolver(src).Resolve(context.Background(), rootSummary(t, root))
	if err != nil {
		t.Fatal(err)
	}
	res, err := graphrules.Lint(context.Background(), g, linter.WithDisabled("XP609"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) != 1 || len(res.Suppressed) != 1 || res.Suppressed[0].RuleID != "XP606" ||
		!strings.Contains(res.Diagnostics[0].Message, `"b"`) || !strings.Contains(res.Suppressed[0].Message, `"a"`) {
		t.Errorf("got %v kept, %v silenced; want b's kept and a's silenced", res.Diagnostics, res.Suppressed)
	}
}
