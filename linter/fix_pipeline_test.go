package linter

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
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
