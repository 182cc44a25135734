package schemaparity

import (
	"context"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

// load returns a linter/schema Validator for the CRDs of a YAML stream and
// the openAPIV3Schema of each CRD's first version, by kind.
func load(t testing.TB, stream []byte) (*schema.Validator, map[string]any) {
	t.Helper()
	pkg, err := parser.Parse(context.Background(), strings.NewReader(string(stream)))
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]any{}
	for _, o := range pkg.Objects {
		u, err := o.Unstructured()
		if err != nil {
			t.Fatal(err)
		}
		spec := u.Object["spec"].(map[string]any)
		kind := spec["names"].(map[string]any)["kind"].(string)
		v0 := spec["versions"].([]any)[0].(map[string]any)
		schemas[spec["group"].(string)+"/"+v0["name"].(string)+"/"+kind] = v0["schema"].(map[string]any)["openAPIV3Schema"]
	}
	return schema.New(pkg.Objects), schemas
}

// verdicts validates obj with both and returns (ours, reference) acceptance,
// and the number of unknown fields each found.
func verdicts(t testing.TB, v *schema.Validator, s any, obj map[string]any) (bool, bool, int, int, string) {
	t.Helper()
	res, err := v.Validate(context.Background(), deepCopy(obj).(map[string]any))
	if err != nil {
		t.Fatalf("ours: %v", err)
	}
	errs, pruned, err := Reference(s, deepCopy(obj).(map[string]any))
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	unknown := 0
	var b strings.Builder
	for _, x := range res.Violations {
		if x.Kind == schema.KindUnknownField {
			unknown++
		}
		b.WriteString("  ours: " + x.String() + "\n")
	}
	for _, e := range errs {
		b.WriteString("  reference: " + e.Error() + "\n")
	}
	for _, p := range pruned {
		b.WriteString("  reference pruned: " + p + "\n")
	}
	return res.Valid(), len(errs) == 0, unknown, len(pruned), b.String()
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// cases are Widget specs, each with the verdict the API server gives.
var cases = []struct {
	name, spec string
	valid      bool
}{
	{"minimal", `region: us-east-1`, true},
	{"missing required", `size: 3`, false},
	{"enum", `region: mars`, false},
	{"enum wrong type", `region: 1`, false},
	{"integer", `{region: us-east-1, size: 5}`, true},
	{"integer as string", `{region: us-east-1, size: "5"}`, false},
	{"integer as float", `{region: us-east-1, size: 5.5}`, false},
	{"integer integral float", `{region: us-east-1, size: 5.0}`, true},
	{"minimum", `{region: us-east-1, size: 0}`, false},
	{"maximum", `{region: us-east-1, size: 101}`, false},
	{"int32 overflow", `{region: us-east-1, size: 3000000000}`, false},
	{"number", `{region: us-east-1, ratio: 1.5}`, true},
	// The API server decodes 2 as an integer, and kube-openapi then
	// truncates the multipleOf factor 0.5 to 0 and refuses the value.
	{"number integer", `{region: us-east-1, ratio: 2}`, false},
	{"exclusive minimum", `{region: us-east-1, ratio: 0}`, false},
	{"multipleOf", `{region: us-east-1, ratio: 0.7}`, false},
	{"int-or-string int", `{region: us-east-1, port: 80}`, true},
	{"int-or-string string", `{region: us-east-1, port: http}`, true},
	{"int-or-string bool", `{region: us-east-1, port: true}`, false},
	{"int-or-string float", `{region: us-east-1, port: 1.5}`, false},
	{"pattern", `{region: us-east-1, name: abc}`, true},
	{"pattern mismatch", `{region: us-east-1, name: ABC}`, false},
	{"minLength", `{region: us-east-1, name: a}`, false},
	{"maxLength", `{region: us-east-1, name: abcdefghijk}`, false},
	{"nullable null", `{region: us-east-1, note: null}`, true},
	{"non-nullable null pruned", `{region: us-east-1, name: null}`, true},
	{"required null", `{region: null}`, false},
	{"default applied", `{region: us-east-1, mode: null}`, true},
	{"boolean", `{region: us-east-1, enabled: false}`, true},
	{"boolean as string", `{region: us-east-1, enabled: "true"}`, false},
	{"set", `{region: us-east-1, tags: [a, b]}`, true},
	{"set duplicate", `{region: us-east-1, tags: [a, a]}`, false},
	{"maxItems", `{region: us-east-1, tags: [a, b, c, d]}`, false},
	{"array as string", `{region: us-east-1, tags: a}`, false},
	{"item type", `{region: us-east-1, tags: [1]}`, false},
	{"map list", `{region: us-east-1, rules: [{name: a}, {name: b}]}`, true},
	{"map list duplicate", `{region: us-east-1, rules: [{name: a}, {name: a}]}`, false},
	{"map list key default", `{region: us-east-1, rules: [{name: a}, {name: a, scope: all}]}`, false},
	{"map list distinct scope", `{region: us-east-1, rules: [{name: a, scope: x}, {name: a, scope: z}]}`, true},
	{"map list required key", `{region: us-east-1, rules: [{value: v}]}`, false},
	{"minItems", `{region: us-east-1, rules: []}`, false},
	{"map list non-object", `{region: us-east-1, rules: [a]}`, false},
	{"additionalProperties", `{region: us-east-1, labels: {a: x, b.c/d: z}}`, true},
	{"additionalProperties type", `{region: us-east-1, labels: {a: 1}}`, false},
	{"maxProperties", `{region: us-east-1, labels: {a: x, b: y, c: z}}`, false},
	{"preserve unknown", `{region: us-east-1, free: {any: [1, {x: y}]}}`, true},
	{"unknown field pruned", `{region: us-east-1, bogus: 1}`, true},
	{"unknown nested pruned", `{region: us-east-1, nested: {deep: {value: v, other: 1}}}`, true},
	{"embedded", `{region: us-east-1, template: {apiVersion: v1, kind: ConfigMap, data: {a: b}}}`, true},
	{"embedded no kind", `{region: us-east-1, template: {apiVersion: v1}}`, false},
	{"embedded bad apiVersion", `{region: us-east-1, template: {apiVersion: a/b/c, kind: X}}`, false},
	{"embedded bad kind", `{region: us-east-1, template: {apiVersion: v1, kind: "no way"}}`, false},
	{"ipv4", `{region: us-east-1, addr: 10.0.0.1}`, true},
	{"ipv4 bad", `{region: us-east-1, addr: nope}`, false},
	{"date-time", `{region: us-east-1, when: "2024-01-02T03:04:05Z"}`, true},
	{"date-time bad", `{region: us-east-1, when: yesterday}`, false},
	{"unknown format ignored", `{region: us-east-1, custom: anything}`, true},
	{"oneOf a", `{region: us-east-1, choice: {a: x}}`, true},
	{"oneOf both", `{region: us-east-1, choice: {a: x, b: y}}`, false},
	{"oneOf none", `{region: us-east-1, choice: {}}`, false},
	{"matrix", `{region: us-east-1, matrix: [[1, 2], [3]]}`, true},
	{"matrix bad", `{region: us-east-1, matrix: [[1, a]]}`, false},
	{"nested nullable", `{region: us-east-1, nested: null}`, true},
	{"object as list", `{region: us-east-1, nested: [1]}`, false},
	{"spec as string", `"spec"`, false},
}

func TestParityTable(t *testing.T) {
	t.Parallel()
	crd, err := os.ReadFile("testdata/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v, schemas := load(t, crd)
	s := schemas["example.org/v1/Widget"]
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var spec any
			if err := yaml.Unmarshal([]byte(c.spec), &spec); err != nil {
				t.Fatal(err)
			}
			obj := map[string]any{"apiVersion": "example.org/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": normalize(spec)}
			ours, ref, ou, ru, detail := verdicts(t, v, s, obj)
			if ref != c.valid {
				t.Errorf("the reference says valid=%v, the table %v:\n%s", ref, c.valid, detail)
			}
			if ours != ref {
				t.Errorf("ours valid=%v, reference valid=%v:\n%s", ours, ref, detail)
			}
			if ou != ru {
				t.Errorf("ours found %d unknown fields, the reference pruned %d:\n%s", ou, ru, detail)
			}
		})
	}
	if len(cases) < 50 {
		t.Errorf("%d cases, want at least 50", len(cases))
	}
}

// normalize turns sigs.k8s.io/yaml's float64 numbers into int64 where
// integral, as the API server's JSON decoding does.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	case float64:
		if x == float64(int64(x)) && x < 1e15 && x > -1e15 {
			return int64(x)
		}
	}
	return v
}
