package parser

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
)

// viaSigsYAML decodes a document the way Crossplane and kubectl do: YAML to
// JSON with sigs.k8s.io/yaml, then JSON to unstructured values.
func viaSigsYAML(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	j, err := sigsyaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatalf("YAMLToJSON: %v", err)
	}
	var m map[string]any
	if err := utiljson.Unmarshal(j, &m); err != nil {
		t.Fatalf("json: %v", err)
	}
	return m
}

// TestUnstructuredMatchesSigsYAML checks that Object.Unstructured gives the
// same values as the sigs.k8s.io/yaml path, on a table of tricky scalars and
// on every object of the corpus packages (the monolith aside).
func TestUnstructuredMatchesSigsYAML(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, p *Package) {
		t.Helper()
		if len(p.Errors) != 0 {
			t.Fatal(p.Errors)
		}
		for _, o := range allObjects(p) {
			u, err := o.Unstructured()
			if err != nil {
				t.Fatalf("%v: %v", o.Pos, err)
			}
			if diff := cmp.Diff(viaSigsYAML(t, o.Raw()), u.Object); diff != "" {
				t.Errorf("%v %s: differs from sigs.k8s.io/yaml (-sigs +ours):\n%s", o.Pos, o.Kind, diff)
			}
		}
	}
	t.Run("scalars", func(t *testing.T) {
		t.Parallel()
		check(t, mustParse(t, `apiVersion: v1
kind: Scalars
spec:
  bools: [y, Y, yes, Yes, YES, n, NO, on, On, off, OFF, true, False]
  notBools: [yES, oN, "yes", 'no', tRUE]
  nulls: [~, null, Null, NULL, ]
  ints: [0, -0, +5, 1_000, 0x1f, 0o17, 017, 0b11, -0b11, 9223372036854775807, -9223372036854775808]
  floats: [1.5, -2.25, .5, 1e3, 1.5e-7, 6.02e23, 2.0, 1e21, 08, 09.5, 1_0.5]
  big: [9223372036854775808, 18446744073709551616]
  strings: [1.0.0, v1, 2024-01-02, 2024-01-02T10:00:00Z, "0x1f", 0x, 1e, -, +, ., 0b, 0o8, 1__0]
  blocks:
    literal: |
      a
      b
    folded: >
      a
      b
    keep: |+
      a

    strip: |-
      a
  keys:
    1: a
    0x10: b
    1.5: c
    2.0: d
    on: e
    no: f
    "quoted": g
  anchors:
    base: &base {x: 1, y: [1, 2]}
    copy: *base
    merged:
      <<: *base
      y: overridden
    multi:
      <<: [{a: 1}, {a: 2, b: 2}]
  tagged: [!!str 5, !!float 5, !!int "7", !custom x]
`))
	})
	for _, name := range testcorpus.Names() {
		if name == monolith || (name == "provider-aws" && (raceEnabled || testing.Short())) {
			continue // sigs.k8s.io/yaml is slow on 7 MB, under the race detector above all
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(filepath.Join(testcorpus.Path(t, name), "package.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p, err := Parse(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			check(t, p)
		})
	}
}
