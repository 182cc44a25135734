package deps_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

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

// TestFootprint: the counts at v2.4 (a Provider's CRDs but its
// ProviderConfig converted to active MRDs) and at v1.20 (no MRDs), and
// the estimate from the served CRDs.
func TestFootprint(t *testing.T) {
	t.Parallel()
	g, _ := footprintGraph(t)
	for _, tc := range []struct {
		target                  string
		plain, active, inactive int
		perPackage              string
	}{
		{"v2.4.0", 1, 2, 1, provA + " 1/1/0, " + provB + " 0/1/1"},
		{"v1.20.0", 2, 1, 1, provA + " 2/0/0, " + provB + " 0/1/1"},
	} {
		f, err := g.Footprint(tc.target)
		if err != nil {
			t.Fatal(err)
		}
		var per []string
		for _, p := range f.Packages {
			per = append(per, fmt.Sprintf("%s %d/%d/%d", p.Package, p.CRDs, p.MRDsActive, p.MRDsInactive))
		}
		if got := strings.Join(per, ", "); got != tc.perPackage {
			t.Errorf("%s: per package %q, want %q", tc.target, got, tc.perPackage)
		}
		if f.Total.CRDs != tc.plain || f.Total.MRDsActive != tc.active || f.Total.MRDsInactive != tc.inactive {
			t.Errorf("%s: total %+v, want %d/%d/%d", tc.target, f.Total, tc.plain, tc.active, tc.inactive)
		}
		if f.Total.SchemaBytes <= 0 || f.Total.InactiveSchemaBytes <= 0 {
			t.Errorf("%s: schema bytes %d, inactive %d: want both counted", tc.target, f.Total.SchemaBytes, f.Total.InactiveSchemaBytes)
		}
		want := int64(tc.plain+tc.active) * deps.APIServerBytesPerCRD
		if f.APIServerBytes != want || f.APIServerBytesLow >= want || f.APIServerBytesHigh <= want {
			t.Errorf("%s: estimate %d (%d-%d), want %d inside its band", tc.target, f.APIServerBytes, f.APIServerBytesLow, f.APIServerBytesHigh, want)
		}
	}
}
