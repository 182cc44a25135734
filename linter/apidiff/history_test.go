package apidiff_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter/apidiff"
)

// crossplaneCRDs returns the CRDs of a Crossplane release in
// ../shared/crossplane-crds as one package.yaml stream.
func crossplaneCRDs(t *testing.T, version string) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(testcorpus.Dir(t)), "crossplane-crds", version)
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s: %v", dir, err)
	}
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
		b.WriteString(strings.TrimPrefix(string(data), "---\n"))
	}
	return b.String()
}

// TestRealHistory diffs real successive releases of Crossplane's own CRDs
// (its API is a package of CRDs like any Provider's): the minor releases
// draw no breaking change, and the changes their notes announce are found.
// A major release is built from v2.1.0 by undoing what Crossplane v2.0.0
// removed (in its CRDs at v1.20.0 and v2.0.0): ControllerConfig,
// spec.controllerConfigRef of Providers, and the native composition mode's
// spec.resources and mode Resources of Compositions.
func TestRealHistory(t *testing.T) {
	t.Parallel()
	v21, v22, v23 := crossplaneCRDs(t, "v2.1.0"), crossplaneCRDs(t, "v2.2.4"), crossplaneCRDs(t, "v2.3.4")
	type found struct {
		kind apidiff.Kind
		path string // a substring of Change.Path, or of the definition for a definition change
	}
	// Provider spec.controllerConfigRef (v1.20.0 pkg.crossplane.io_providers.yaml).
	providers := docOf(t, v21, "providers.pkg.crossplane.io")
	oldProviders := strings.Replace(providers, "              commonLabels:\n", "              controllerConfigRef:\n                description: ControllerConfigRef references a ControllerConfig.\n                properties:\n                  name:\n                    type: string\n                required:\n                - name\n                type: object\n              commonLabels:\n", 1)
	// Composition mode Resources and spec.resources.
	compositions := docOf(t, v21, "compositions.apiextensions.crossplane.io")
	oldCompositions := strings.NewReplacer(
		"                - Pipeline\n", "                - Resources\n                - Pipeline\n",
		"              pipeline:\n", "              resources:\n                items:\n                  type: object\n                  x-kubernetes-preserve-unknown-fields: true\n                type: array\n              pipeline:\n",
	).Replace(compositions)
	v120 := strings.NewReplacer(providers, oldProviders, compositions, oldCompositions).Replace(v21) + "---\n" +
		strings.NewReplacer("deploymentruntimeconfigs", "controllerconfigs", "DeploymentRuntimeConfig", "ControllerConfig").Replace(docOf(t, v21, "deploymentruntimeconfigs.pkg.crossplane.io"))
	cases := []struct {
		name, old, new       string
		oldVersion, newVersn string
		want                 []found
		breaking             bool
		noWarnings           bool
	}{
		{name: "v2.1.0 to v2.2.4", old: v21, new: v22, oldVersion: "v2.1.0", newVersn: "v2.2.4",
			want: []found{{apidiff.ValidationAdded, "requiredResources"}}},
		{name: "v2.2.4 to v2.3.4", old: v22, new: v23, oldVersion: "v2.2.4", newVersn: "v2.3.4", noWarnings: true,
			want: []found{{apidiff.FieldAdded, "spec.commonAnnotations"}}},
		{name: "v1.20-like to v2.1.0", old: v120, new: v21, oldVersion: "v1.20.0", newVersn: "v2.1.0", breaking: true,
			want: []found{
				{apidiff.DefinitionRemoved, "controllerconfigs.pkg.crossplane.io"},
				{apidiff.FieldRemoved, "spec.controllerConfigRef"},
				{apidiff.FieldRemoved, "spec.resources"},
				{apidiff.EnumNarrowed, "spec.mode"},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := apidiff.Diff(context.Background(), parse(t, "old.yaml", tc.old), parse(t, "new.yaml", tc.new), apidiff.WithVersions(tc.oldVersion, tc.newVersn))
			if err != nil {
				t.Fatal(err)
			}
			if res.Breaking() != tc.breaking {
				t.Errorf("Breaking() = %v, want %v", res.Breaking(), tc.breaking)
			}
			for _, c := range res.Changes {
				t.Logf("%s %s %s", c.Kind, c.Class, c.Message)
				if tc.noWarnings && c.Class != apidiff.Compatible {
					t.Errorf("not compatible: %s", c.Message)
				}
				if c.Class == apidiff.Breaking && !res.Major {
					t.Errorf("a breaking change in a minor release: %s", c.Message)
				}
			}
			for _, w := range tc.want {
				if !slices.ContainsFunc(res.Changes, func(c apidiff.Change) bool {
					return c.Kind == w.kind && (strings.Contains(c.Path, w.path) || strings.Contains(c.Definition, w.path))
				}) {
					t.Errorf("no %s at %s", w.kind, w.path)
				}
			}
		})
	}
}

// docOf returns the document of stream that defines name.
func docOf(t *testing.T, stream, name string) string {
	t.Helper()
	for _, d := range strings.Split(stream, "---\n") {
		if strings.Contains(d, "\n  name: "+name+"\n") {
			return d
		}
	}
	t.Fatalf("no %s", name)
	return ""
}
