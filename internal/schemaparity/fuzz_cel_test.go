package schemaparity

import (
	"context"
	"slices"
	"sort"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/linter/apiserver"
	"github.com/xpkgkit/xpkgkit/linter/schema"
)

// celSchema is the schema FuzzParity's CEL rules are generated over: one
// field of each type, bounded so that most rules fit the cost limits.
func celSchema() map[string]any {
	str := func(n int) map[string]any { return map[string]any{"type": "string", "maxLength": int64(n)} }
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"spec": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"a": map[string]any{"type": "integer", "minimum": int64(-5), "maximum": int64(100)},
					"n": map[string]any{"type": "number"},
					"s": str(10),
					"b": map[string]any{"type": "boolean"},
					"l": map[string]any{"type": "array", "maxItems": int64(5), "items": str(5)},
					"m": map[string]any{"type": "object", "maxProperties": int64(5), "additionalProperties": str(5)},
					"o": map[string]any{"type": "object", "properties": map[string]any{"x": str(5), "y": map[string]any{"type": "integer"}}},
					"u": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
				},
			},
		},
	}
}

// celGen draws CEL expressions from the fuzz input.
type celGen struct{ *gen }

func (g celGen) pick(xs ...string) string { return xs[int(g.byte())%len(xs)] }

// boolExpr is a boolean expression over self (the spec), of depth at
// most d.
func (g celGen) boolExpr(d int) string {
	if d <= 0 {
		return g.atom()
	}
	switch g.byte() % 8 {
	case 0:
		return g.boolExpr(d-1) + " && " + g.boolExpr(d-1)
	case 1:
		return "(" + g.boolExpr(d-1) + " || " + g.boolExpr(d-1) + ")"
	case 2:
		return "!(" + g.boolExpr(d-1) + ")"
	case 3:
		return "(" + g.boolExpr(d-1) + " ? " + g.boolExpr(d-1) + " : " + g.boolExpr(d-1) + ")"
	case 4:
		f := g.pick("a", "s", "b", "l", "m", "o", "n", "zz")
		return "(!has(self." + f + ") || " + g.boolExpr(d-1) + ")"
	}
	return g.atom()
}

func (g celGen) atom() string {
	switch g.byte() % 16 {
	case 0:
		return "self.a " + g.pick("<", "<=", ">", "==", "!=") + " " + g.pick("0", "3", "50", "-1", "self.a")
	case 1:
		return "self.s.size() " + g.pick("<", ">") + " " + g.pick("0", "3", "9")
	case 2:
		return "self.s.matches('" + g.pick("^a", "[0-9]+", "^$", "x|y", "(") + "')"
	case 3:
		return "self.s." + g.pick("startsWith", "endsWith", "contains") + "('" + g.pick("a", "", "Z") + "')"
	case 4:
		return "self.l." + g.pick("all", "exists", "exists_one") + "(x, x " + g.pick("==", "!=") + " '" + g.pick("a", "b") + "')"
	case 5:
		return "self.l.size() <= " + g.pick("0", "2", "5")
	case 6:
		return "'" + g.pick("k", "a") + "' in self.m"
	case 7:
		return "self.m.all(k, self.m[k].size() < 3)"
	case 8:
		return "self.b"
	case 9:
		return "self.o.x == '" + g.pick("a", "") + "'"
	case 10:
		return "self.n " + g.pick("<", ">") + " " + g.pick("0.5", "1.0", "2")
	case 11:
		return "self.a == oldSelf.a" // a transition rule
	case 12:
		return "isQuantity(self.s)"
	case 13:
		return "self.u.all(x, self.u.all(y, x.matches(y)))" // over the cost limit
	case 14:
		return g.pick("true", "false", "1 == 1", "self.nope > 0", "self.a +")
	}
	return "self.s.lowerAscii() == self.s"
}

// celRule draws one x-kubernetes-validations entry.
func (g celGen) celRule() map[string]any {
	r := map[string]any{"rule": g.boolExpr(int(g.byte() % 3))}
	switch g.byte() % 6 {
	case 0:
		r["message"] = "m " + g.pick("a", "b")
	case 1:
		r["messageExpression"] = g.pick("'bad: ' + self.s", "'a is ' + string(self.a)", "self.a", "'x'")
	}
	if g.byte()%4 == 0 {
		r["fieldPath"] = g.pick(".a", ".s", ".l", ".nope", ".o.x")
	}
	if g.byte()%4 == 0 {
		r["reason"] = g.pick("FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate", "Bogus")
	}
	return r
}

// fuzzCEL checks XP420's verdict on a CRD with generated rules, and,
// when the API server would create it, the verdict and CEL violations of
// linter/schema with the CEL extension on a generated object.
func fuzzCEL(t *testing.T, data []byte) {
	g := celGen{&gen{data: data}}
	s := celSchema()
	spec := s["properties"].(map[string]any)["spec"].(map[string]any)
	var rules []any
	for range 1 + int(g.byte()%3) {
		rules = append(rules, g.celRule())
	}
	spec["x-kubernetes-validations"] = rules
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "fuzzes.example.org"},
		"spec": map[string]any{
			"group": "example.org",
			"names": map[string]any{"kind": "Fuzz", "plural": "fuzzes"},
			"scope": "Cluster",
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": s},
			}},
		},
	}
	doc, err := yaml.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	ref := ReferenceCRD(doc)
	ours := xp420(t, doc)
	if (len(ref) == 0) != (len(ours) == 0) {
		t.Fatalf("CRD: XP420 valid=%v, reference valid=%v\nrules: %v\nreference: %v\nours: %v", len(ours) == 0, len(ref) == 0, rules, ref, ours)
	}
	if len(ref) > 0 {
		return
	}
	obj, _ := g.value(s, 0).(map[string]any)
	if obj == nil {
		obj = map[string]any{}
	}
	obj["apiVersion"], obj["kind"], obj["metadata"] = "example.org/v1", "Fuzz", map[string]any{"name": "fuzz"}
	schemaErrs, celErrs, err := ReferenceCEL(s, deepCopy(obj).(map[string]any))
	if err != nil {
		t.Fatal(err)
	}
	v := schema.New(mustObjects(t, doc), schema.WithExtension(apiserver.CEL()))
	res, err := v.Validate(context.Background(), deepCopy(obj).(map[string]any))
	if err != nil {
		t.Fatal(err)
	}
	refValid := len(schemaErrs)+len(celErrs) == 0
	var refCEL, oursCEL []string
	for _, e := range celErrs {
		detail := e.Detail
		if detail == "" {
			detail = e.Type.String() // a reason such as FieldValueDuplicate carries no detail
		}
		refCEL = append(refCEL, e.Field+": "+detail)
	}
	for _, x := range res.Violations {
		if x.Kind == schema.KindCEL {
			oursCEL = append(oursCEL, x.Field()+": "+x.Message)
		}
	}
	sort.Strings(refCEL)
	sort.Strings(oursCEL)
	if res.Valid() != refValid || !slices.Equal(refCEL, oursCEL) {
		t.Fatalf("object: ours valid=%v, reference valid=%v\nrules: %v\nobject: %v\nreference: %v %v\nours: %v", res.Valid(), refValid, rules, obj, schemaErrs, celErrs, res.Violations)
	}
}
