package linttest_test

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apidiff"
	"github.com/xpkgkit/xpkgkit/linter/changerules"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/linter/linttest"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
)

var update = flag.Bool("update", false, "rewrite the fix goldens")

// toStatefulSet reports every Deployment at its kind and suggests writing
// StatefulSet instead.
func toStatefulSet() *linter.Rule {
	return &linter.Rule{
		ID: "T003", Name: "to-statefulset", Severity: linter.SeverityWarning,
		Doc: "Deployments become StatefulSets\n\nA test rule with a fix.",
		Run: func(p *linter.Pass) error {
			for _, o := range p.Package.Objects {
				if o.Kind != "Deployment" {
					continue
				}
				pos := p.Pos(o, "kind")
				value := pos.Offset + int64(len("kind: "))
				p.Report(linter.Diagnostic{Pos: pos, Object: o.Ref(), Message: "kind Deployment: write StatefulSet",
					SuggestedFixes: []linter.SuggestedFix{{Message: "write StatefulSet", TextEdits: []linter.TextEdit{
						{File: pos.File, Offset: value, End: value + int64(len("Deployment")), NewText: "StatefulSet"},
					}}}})
			}
			return nil
		},
	}
}

// TestRunFixes checks the fix goldens: a fixture's fixed text matches its
// golden, a fixture without fixes needs none, and a golden that differs
// fails the test.
func TestRunFixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		dir  string
		want []string // substrings of the problems reported, in order
	}{
		{name: "goldens match", dir: "testdata/fix"},
		{name: "golden differs", dir: "testdata/fixbad", want: []string{"deployment.yaml: the fixed text differs from deployment.yaml.golden"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if *update {
				if len(tt.want) == 0 {
					linttest.RunFixes(t, tt.dir, []*linter.Rule{toStatefulSet()})
				}
				return // -update would rewrite the golden that must differ
			}
			f := run(func(tb testing.TB) { linttest.RunFixes(tb, tt.dir, []*linter.Rule{toStatefulSet()}) })
			if len(f.errors) != len(tt.want) {
				t.Fatalf("reported %q, want %d problems", f.errors, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(f.errors[i], w) {
					t.Errorf("problem %q lacks %q", f.errors[i], w)
				}
			}
		})
	}
	if _, err := os.Stat("testdata/fix/clean.yaml.golden"); err == nil {
		t.Error("a fixture without fixes got a golden")
	}
}

// changeResult diffs the change fixtures, each parsed with its base name.
func changeResult(t testing.TB) *apidiff.Result {
	t.Helper()
	parse := func(path, name string) *parser.Package {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := parser.Parse(context.Background(), strings.NewReader(string(data)), parser.WithFile(name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	res, err := apidiff.Diff(context.Background(), parse("testdata/change/old.yaml", "old.yaml"), parse("testdata/change/new.yaml", "new.yaml"), apidiff.WithVersions("v1.0.0", "v1.1.0"))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// graph resolves the graph fixture's root against an in-memory source
// holding provider-a, whose releases need Crossplane 1.x.
func graph(t testing.TB) *deps.Graph {
	t.Helper()
	ctx := context.Background()
	src := deps.NewMemorySource()
	src.Add("xpkg.example.org/acme/provider-a", "v1.1.0", []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-a\nspec:\n  crossplane:\n    version: \">=v1.14.0, <v2.0.0\"\n"))
	f, err := linttest.ReadFixture("testdata/graph/crossplane.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := parser.Parse(ctx, strings.NewReader(string(f.Data)), parser.WithFile(f.Name))
	if err != nil {
		t.Fatal(err)
	}
	root, err := deps.Summarize(ctx, pkg, "")
	if err != nil {
		t.Fatal(err)
	}
	g, err := deps.NewResolver(src).Resolve(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRunSubject runs change and graph rules on their subjects against
// the fixtures' want comments, and reports what does not match.
func TestRunSubject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		scope    linter.Scope
		subject  func(testing.TB) any
		fixtures []string
		rules    []*linter.Rule
		opts     []linter.Option
		want     []string // substrings of the problems reported, in order
	}{
		{name: "change rules", scope: linter.ScopeChange, subject: func(tb testing.TB) any { return changeResult(tb) },
			fixtures: []string{"testdata/change/new.yaml"}, rules: changerules.Rules()},
		{name: "graph rules", scope: linter.ScopeGraph, subject: func(tb testing.TB) any { return graph(tb) },
			fixtures: []string{"testdata/graph/crossplane.yaml"}, rules: graphrules.Rules(),
			opts: []linter.Option{linter.WithCrossplaneVersion("v2.1.0"), linter.WithDisabled("XP609")}},
		{name: "a want not met", scope: linter.ScopeGraph, subject: func(tb testing.TB) any { return graph(tb) },
			fixtures: []string{"testdata/graph/crossplane.yaml"}, rules: graphrules.Rules(),
			opts: []linter.Option{linter.WithDisabled("XP605", "XP609")},
			want: []string{`crossplane.yaml:9: no XP605 diagnostic matching`}},
		{name: "a diagnostic in no fixture", scope: linter.ScopeChange, subject: func(tb testing.TB) any { return changeResult(tb) },
			fixtures: []string{"testdata/graph/crossplane.yaml"}, rules: changerules.Rules(),
			want: []string{`crossplane.yaml:9: no XP605`, `crossplane.yaml:13: no XP601`, `new.yaml:19:13: unexpected diagnostic XP710`, `new.yaml:20:`}},
		{name: "a subject of another type", scope: linter.ScopeChange, subject: func(testing.TB) any { return 1 },
			fixtures: []string{"testdata/change/new.yaml"}, rules: changerules.Rules()[:1],
			want: []string{"rule failed", "no XP710 diagnostic"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := run(func(tb testing.TB) {
				linttest.RunSubject(tb, tt.scope, tt.subject(tb), tt.fixtures, tt.rules, tt.opts...)
			})
			if len(f.errors) < len(tt.want) || len(tt.want) == 0 && len(f.errors) > 0 {
				t.Fatalf("reported %q, want %d problems", f.errors, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(f.errors[i], w) {
					t.Errorf("problem %q lacks %q", f.errors[i], w)
				}
			}
		})
	}
}
