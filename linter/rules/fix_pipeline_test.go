package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/parser"
)

// TestConvertToPipeline checks the conversion against the rules of
// crossplane beta convert pipeline-composition: merge options, transform
// and connection detail types, resource names, environment patches.
func TestConvertToPipeline(t *testing.T) {
	t.Parallel()
	in := `
compositeTypeRef: {apiVersion: example.org/v1, kind: XR}
environment:
  environmentConfigs: [{type: Reference, ref: {name: e}}]
  patches: [{fromFieldPath: a, toFieldPath: b}]
resources:
- base: {kind: A}
  patches:
  - {fromFieldPath: x, policy: {mergeOptions: {keepMapValues: true, appendSlice: true}}}
  - {fromFieldPath: x, policy: {mergeOptions: {appendSlice: true}}}
  - {fromFieldPath: x, policy: {mergeOptions: {}, fromFieldPath: Required}}
  - type: ToCompositeFieldPath
    transforms: [{string: {fmt: "%s"}}, {math: {clampMin: 1}}, {type: map, map: {a: b}}]
  connectionDetails: [{value: v, name: n}, {fromFieldPath: p, name: f}]
- name: named
  base: {kind: B}
`
	want := `
compositeTypeRef: {apiVersion: example.org/v1, kind: XR}
environment:
  environmentConfigs: [{type: Reference, ref: {name: e}}]
mode: Pipeline
pipeline:
- step: patch-and-transform
  functionRef: {name: function-patch-and-transform}
  input:
    apiVersion: pt.fn.crossplane.io/v1beta1
    kind: Resources
    environment:
      patches: [{fromFieldPath: a, toFieldPath: b, type: FromCompositeFieldPath}]
    resources:
    - name: resource-0
      base: {kind: A}
      patches:
      - {fromFieldPath: x, type: FromCompositeFieldPath, policy: {toFieldPath: MergeObjectsAppendArrays}}
      - {fromFieldPath: x, type: FromCompositeFieldPath, policy: {toFieldPath: ForceMergeObjectsAppendArrays}}
      - {fromFieldPath: x, type: FromCompositeFieldPath, policy: {toFieldPath: ForceMergeObjects, fromFieldPath: Required}}
      - type: ToCompositeFieldPath
        transforms: [{type: string, string: {type: Format, fmt: "%s"}}, {type: math, math: {type: ClampMin, clampMin: 1}}, {type: map, map: {a: b}}]
      connectionDetails: [{type: FromValue, value: v, name: n}, {type: FromFieldPath, fromFieldPath: p, name: f}]
    - name: named
      base: {kind: B}
`
	var spec, wantSpec map[string]any
	if err := yaml.Unmarshal([]byte(in), &spec); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(want), &wantSpec); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantSpec, convertToPipeline(spec)); diff != "" {
		t.Errorf("converted spec (-want +got):\n%s", diff)
	}
}

// TestPipelineFixAddsDependency: XP410's fix converts a Resources-mode
// Composition to a function-patch-and-transform pipeline, so the package
// must depend on that Function: a second fix, of the meta object, adds it
// to spec.dependsOn (issue 34, item 4), wherever spec and dependsOn stand;
// a package that already depends on it gets no second fix; one whose
// dependsOn cannot be edited gets no fix at all, and keeps its finding.
func TestPipelineFixAddsDependency(t *testing.T) {
	t.Parallel()
	const comp = "---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XR}\n  mode: Resources\n  resources:\n  - name: r\n    base: {apiVersion: example.org/v1, kind: R}\n"
	const head = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: c\n"
	for _, tc := range []struct {
		name, meta string
		wantDepFix bool // a second fix adds the dependency
		wantFix    bool // the Composition's fix is offered
	}{
		{"no spec", head, true, true},
		{"spec without dependsOn", head + "spec:\n  crossplane:\n    version: \">=v2.0.0\"\n", true, true},
		{"dependsOn block", head + "spec:\n  dependsOn:\n    - provider: xpkg.crossplane.io/crossplane-contrib/provider-nop\n      version: \">=v0.1.0\"\n", true, true},
		{"already depends", head + "spec:\n  dependsOn:\n  - function: xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.8.2\n    version: v0.8.2\n", false, true},
		{"dependsOn in flow style", head + "spec:\n  dependsOn: [{provider: xpkg.crossplane.io/acme/p, version: v1}]\n", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := tc.meta + comp
			pkg, err := parser.Parse(t.Context(), strings.NewReader(src))
			if err != nil {
				t.Fatal(err)
			}
			res, err := linter.Lint(t.Context(), pkg, linter.WithRuleSet(Builtin()...), linter.WithRuleSet(ruleCompositionMode()))
			if err != nil {
				t.Fatal(err)
			}
			var compFix, depFix *linter.SuggestedFix
			for _, d := range res.Diagnostics {
				switch {
				case d.Object.Kind == "Composition" && len(d.SuggestedFixes) > 0:
					compFix = &d.SuggestedFixes[0]
				case d.Object.Kind == "Configuration" && len(d.SuggestedFixes) > 0:
					depFix = &d.SuggestedFixes[0]
				}
			}
			if (compFix != nil) != tc.wantFix || (depFix != nil) != tc.wantDepFix {
				t.Fatalf("Composition fix %v, dependency fix %v; want %v, %v\n%v", compFix != nil, depFix != nil, tc.wantFix, tc.wantDepFix, res.Diagnostics)
			}
			if depFix == nil {
				return
			}
			e := depFix.TextEdits[0]
			fixed := src[:e.Offset] + e.NewText + src[e.End:]
			metaDoc, _, _ := strings.Cut(fixed, "\n---\n")
			var m struct {
				Spec struct {
					DependsOn []map[string]string `json:"dependsOn"`
				} `json:"spec"`
			}
			if err := yaml.Unmarshal([]byte(metaDoc), &m); err != nil {
				t.Fatalf("the fixed meta object does not decode: %v\n%s", err, fixed)
			}
			b, _ := yaml.Marshal(m)
			found := false
			for _, d := range m.Spec.DependsOn {
				found = found || d["package"] == pntPackage && d["kind"] == "Function" && d["version"] == pntVersion
			}
			if !found {
				t.Errorf("the fixed meta object does not depend on function-patch-and-transform:\n%s", fixed)
			}
			if strings.Count(tc.meta, "provider:") > 0 && !strings.Contains(string(b), "provider-nop") {
				t.Errorf("the fix lost a dependency:\n%s", fixed)
			}
		})
	}
}
