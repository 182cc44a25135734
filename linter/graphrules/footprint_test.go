package graphrules_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// mrdDoc is a ManagedResourceDefinition of group and kind; state "" is
// left out (Inactive by default).
func mrdDoc(group, kind, state string) []byte {
	plural := strings.ToLower(kind) + "s"
	st := ""
	if state != "" {
		st = "  state: " + state + "\n"
	}
	return fmt.Appendf(nil, "apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceDefinition\nmetadata:\n  name: %s.%s\nspec:\n"+
		"  group: %s\n  names:\n    kind: %s\n    plural: %s\n  scope: Cluster\n%s  versions:\n  - name: v1\n    served: true\n    storage: true\n"+
		"    schema:\n      openAPIV3Schema:\n        type: object\n", plural, group, group, kind, plural, st)
}

// mrapDoc is an MRAP activating patterns.
func mrapDoc(name string, patterns ...string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceActivationPolicy\nmetadata:\n  name: %s\nspec:\n  activate:\n", name)
	for _, p := range patterns {
		fmt.Fprintf(&b, "  - %q\n", p)
	}
	return []byte(b.String())
}

// footprintGraph: provider-a has a ProviderConfig CRD and a Widget CRD
// (converted to an active MRD from v2.0); provider-b ships two MRDs,
// Gadget inactive and Thing active; the root composes Widget and Gadget,
// with the MRAPs given.
func footprintGraph(t *testing.T, mraps ...[]byte) (*deps.Graph, *xpkgtest.Package) {
	t.Helper()
	src := xpkgtest.NewGraph().
		Add(provA, "v1.0.0", xpkgtest.NewProvider("provider-a").WithCRD("a.example.org", "ProviderConfig", "v1").WithCRD("a.example.org", "Widget", "v1")).
		Add(provB, "v1.0.0", xpkgtest.NewProvider("provider-b").WithObject(mrdDoc("b.example.org", "Gadget", "")).WithObject(mrdDoc("b.example.org", "Thing", "Active"))).
		Source(t)
	root := xpkgtest.NewConfiguration("root").
		WithDependency(meta.KindProvider, provA, ">=v1.0.0").WithDependency(meta.KindProvider, provB, ">=v1.0.0").
		WithObject(ptComposition("c", "fn", "a.example.org/v1", "Widget", "b.example.org/v1", "Gadget"))
	for _, m := range mraps {
		root = root.WithObject(m)
	}
	g, err := deps.NewResolver(src).Resolve(context.Background(), rootSummary(t, root))
	if err != nil {
		t.Fatal(err)
	}
	return g, root
}

// TestActivationRules: an MRAP that misses a composed kind's inactive MRD
// draws XP611 at the composed resource, an entry that matches nothing
// XP612 at the entry; MRAPs that activate everything draw neither; without
// MRAPs nothing is flagged and XP609 says the default policy applies;
// XP610 reports the served CRDs over max-crds.
func TestActivationRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		mraps [][]byte
		want  []want
	}{
		{"missing one composed kind", [][]byte{mrapDoc("platform", "things.b.example.org", "*.nothing.example.org")}, []want{
			{"XP609", "root.yaml:1", `installs 4 CRDs: 1 plain, 2 MRDs active at install, 1 MRDs inactive.*1 MRAPs in the graph`},
			{"XP610", "root.yaml:1", `serves 3 CRDs at Crossplane v2\.\d \(1 plain, 2 MRDs active at install\), over max-crds 2`},
			{"XP611", "root.yaml:", `composes "b.example.org/v1" "Gadget", served by the MRD "gadgets.b.example.org", which is inactive at install and which none of the graph's MRAPs \("platform"\) activates`},
			{"XP612", "root.yaml:", `MRAP "platform" activates "\*.nothing.example.org", which matches no MRD of the graph \(3 MRDs\)`},
		}},
		{"activates everything", [][]byte{mrapDoc("platform", "*.b.example.org"), mrapDoc("more", "widgets.a.example.org", "gadget?.b.example.org")}, []want{
			{"XP609", "root.yaml:1", `2 MRAPs in the graph`},
			{"XP610", "root.yaml:1", `over max-crds 2`},
		}},
		{"no MRAP", nil, []want{
			{"XP609", "root.yaml:1", `no MRAP in the graph: the cluster's default activation policy applies`},
			{"XP610", "root.yaml:1", `over max-crds 2`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, _ := footprintGraph(t, tc.mraps...)
			res, err := graphrules.Lint(context.Background(), g, linter.WithRuleSet(graphrules.Rules(graphrules.WithFootprintLimits(graphrules.FootprintLimits{MaxCRDs: 2}))...), linter.WithDisabled("XP606"))
			if err != nil {
				t.Fatal(err)
			}
			checkDiags(t, res.Diagnostics, tc.want)
		})
	}
}

// TestMinimalMRAP: the printed MRAP activates exactly the composed kinds'
// MRDs, and, put in the graph, draws no XP611 and no XP612.
func TestMinimalMRAP(t *testing.T) {
	t.Parallel()
	g, _ := footprintGraph(t)
	names, err := g.MinimalActivations("")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names, " "); got != "gadgets.b.example.org widgets.a.example.org" {
		t.Errorf("minimal activations %q", got)
	}
	doc, err := g.MinimalMRAP("platform", "")
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := footprintGraph(t, doc)
	res, err := graphrules.Lint(context.Background(), g2, linter.WithDisabled("XP606", "XP609", "XP610"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Diagnostics {
		t.Errorf("with the minimal MRAP:\n%s\ngot %s", doc, d)
	}
	if !regexp.MustCompile(`(?m)^  - "widgets.a.example.org"$`).Match(doc) {
		t.Errorf("MRAP:\n%s", doc)
	}
}
