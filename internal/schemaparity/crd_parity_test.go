package schemaparity

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/rules"

	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apiserver"
	"github.com/xpkgkit/xpkgkit/parser"
)

// sharedDir is ../shared beside the repository (the corpus and
// Crossplane's CRDs), or $XPKGKIT_SHARED.
func sharedDir() string {
	if d := os.Getenv("XPKGKIT_SHARED"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared")
}

// splitDocs splits a YAML stream at its "---" lines.
func splitDocs(stream []byte) [][]byte {
	var out [][]byte
	for _, d := range bytes.Split(stream, []byte("\n---")) {
		if i := bytes.IndexByte(d, '\n'); i >= 0 && len(bytes.TrimSpace(d[:i])) == 0 {
			d = d[i+1:]
		}
		if len(bytes.TrimSpace(d)) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// crdCase is one CustomResourceDefinition and, for the tables written here,
// the API server's verdict (valid, or refused); a CRD of a real package is
// valid.
type crdCase struct {
	name  string
	doc   []byte
	valid bool
}

// upjetCRDs returns every step-th CRD of the upjet AWS monolith that has
// "is a required parameter" rules, at most n, with their documents; nil
// without the corpus.
func upjetCRDs(t testing.TB, step, n int) [][]byte {
	t.Helper()
	stream, err := os.ReadFile(filepath.Join(sharedDir(), "corpus", "provider-upjet-aws-monolith", "package.yaml"))
	if err != nil {
		return nil
	}
	var out [][]byte
	i := 0
	for _, d := range splitDocs(stream) {
		if !bytes.Contains(d, []byte("kind: CustomResourceDefinition")) || !bytes.Contains(d, []byte("is a required parameter")) {
			continue
		}
		if i%step == 0 {
			out = append(out, d)
			if len(out) == n {
				break
			}
		}
		i++
	}
	return out
}

// crossplaneCRDs returns the CRDs of ../shared/crossplane-crds, each
// release's, by release/file.
func crossplaneCRDs(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(sharedDir(), "crossplane-crds", "v*", "*.yaml"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f)] = b
	}
	return out
}

// xp420 lints doc alone with XP420 and returns its error diagnostics.
func xp420(t testing.TB, doc []byte) []linter.Diagnostic {
	t.Helper()
	pkg, err := parser.Parse(context.Background(), bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(apiserver.Rules()[0]))
	if err != nil {
		t.Fatal(err)
	}
	var out []linter.Diagnostic
	for _, d := range res.Diagnostics {
		if d.RuleID == "XP420" && d.Severity == linter.SeverityError {
			out = append(out, d)
		}
	}
	for _, d := range pkg.Errors {
		t.Fatalf("the case does not parse: %v", d)
	}
	return out
}

// baseCRD is the CRD the mutations start from: valid, in the style of a
// hand-written operator's CRD (defaults, limits, list types, CEL rules).
const baseCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.org
spec:
  group: example.org
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1, default: 1}
              name: {type: string, maxLength: 63}
              tags:
                type: array
                maxItems: 10
                x-kubernetes-list-type: set
                items: {type: string, maxLength: 20}
              rules:
                type: array
                maxItems: 10
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string, maxLength: 20}
                    value: {type: string, maxLength: 20}
            x-kubernetes-validations:
            - rule: self.size <= 10
              message: size must be at most 10
          status:
            type: object
            properties:
              phase: {type: string}
`

// node returns the map at a dotted path of m (list indexes as numbers).
func node(m map[string]any, path string) map[string]any {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[k]
		case []any:
			var i int
			fmt.Sscan(k, &i)
			cur = c[i]
		}
	}
	return cur.(map[string]any)
}

const (
	root     = "spec.versions.0.schema.openAPIV3Schema"
	specNode = root + ".properties.spec"
	props    = specNode + ".properties"
)

// mutations change baseCRD, each into what the table says the API server
// makes of it.
var mutations = []struct {
	name   string
	mutate func(crd map[string]any)
	valid  bool
}{
	{"base", func(map[string]any) {}, true},
	// CEL rules.
	{"rule does not compile", func(c map[string]any) { rule(c, map[string]any{"rule": "self.size >"}) }, false},
	{"rule names an unknown field", func(c map[string]any) { rule(c, map[string]any{"rule": "self.sise > 0"}) }, false},
	{"rule not boolean", func(c map[string]any) { rule(c, map[string]any{"rule": "self.size"}) }, false},
	{"rule empty", func(c map[string]any) { rule(c, map[string]any{"rule": ""}) }, false},
	{"rule with has", func(c map[string]any) { rule(c, map[string]any{"rule": "!has(self.name) || self.name.size() > 2"}) }, true},
	{"rule with a regex", func(c map[string]any) {
		rule(c, map[string]any{"rule": "!has(self.name) || self.name.matches('^[a-z]+$')"})
	}, true},
	{"rule with a bad regex", func(c map[string]any) { rule(c, map[string]any{"rule": "!has(self.name) || self.name.matches('[a-')"}) }, false},
	{"rule with the quantity library", func(c map[string]any) {
		node(c, props)["q"] = map[string]any{"type": "string", "maxLength": 10}
		rule(c, map[string]any{"rule": "!has(self.q) || isQuantity(self.q)"})
	}, true},
	{"rule with the url library", func(c map[string]any) { rule(c, map[string]any{"rule": "!has(self.name) || isURL(self.name)"}) }, true},
	{"rule with the format library", func(c map[string]any) {
		rule(c, map[string]any{"rule": "!has(self.name) || format.dns1123Label().validate(self.name).hasValue() == false"})
	}, true},
	{"rule with a list macro", func(c map[string]any) {
		rule(c, map[string]any{"rule": "!has(self.rules) || self.rules.all(r, r.name.startsWith('r'))"})
	}, true},
	{"rule on list items", func(c map[string]any) {
		node(c, props+".rules.items")["x-kubernetes-validations"] = []any{map[string]any{"rule": "!has(self.value) || self.value != self.name"}}
	}, true},
	{"rule on the root with metadata", func(c map[string]any) {
		node(c, root)["x-kubernetes-validations"] = []any{map[string]any{"rule": "self.metadata.name.size() < 40"}}
	}, true},
	{"rule on the root with an unknown metadata field", func(c map[string]any) {
		node(c, root)["x-kubernetes-validations"] = []any{map[string]any{"rule": "self.metadata.labels.size() < 40"}}
	}, false},
	{"messageExpression", func(c map[string]any) {
		rule(c, map[string]any{"rule": "self.size > 0", "messageExpression": "'size ' + (self.size > 5 ? 'large' : 'small')"})
	}, true},
	{"messageExpression over the cost limit", func(c map[string]any) {
		rule(c, map[string]any{"rule": "self.size > 0", "messageExpression": "'size is ' + string(self.size)"})
	}, false},
	{"messageExpression not a string", func(c map[string]any) {
		rule(c, map[string]any{"rule": "self.size > 0", "messageExpression": "self.size"})
	}, false},
	{"messageExpression does not compile", func(c map[string]any) {
		rule(c, map[string]any{"rule": "self.size > 0", "messageExpression": "'a' +"})
	}, false},
	{"message with a line break", func(c map[string]any) { rule(c, map[string]any{"rule": "self.size > 0", "message": "a\nb"}) }, false},
	{"fieldPath", func(c map[string]any) { rule(c, map[string]any{"rule": "self.size > 0", "fieldPath": ".size"}) }, true},
	{"fieldPath into a list map", func(c map[string]any) {
		rule(c, map[string]any{"rule": "true", "fieldPath": ".rules"})
	}, true},
	{"fieldPath unknown", func(c map[string]any) { rule(c, map[string]any{"rule": "self.size > 0", "fieldPath": ".nope"}) }, false},
	{"fieldPath malformed", func(c map[string]any) { rule(c, map[string]any{"rule": "self.size > 0", "fieldPath": "size["}) }, false},
	{"reason", func(c map[string]any) {
		rule(c, map[string]any{"rule": "self.size > 0", "reason": "FieldValueForbidden"})
	}, true},
	{"reason unknown", func(c map[string]any) { rule(c, map[string]any{"rule": "self.size > 0", "reason": "FieldValueBogus"}) }, false},
	{"transition rule", func(c map[string]any) {
		rule(c, map[string]any{"rule": "self.size >= oldSelf.size", "message": "size cannot shrink"})
	}, true},
	{"transition rule optionalOldSelf", func(c map[string]any) {
		rule(c, map[string]any{"rule": "!oldSelf.hasValue() || self.size >= oldSelf.value().size", "optionalOldSelf": true})
	}, true},
	{"optionalOldSelf without oldSelf", func(c map[string]any) {
		rule(c, map[string]any{"rule": "self.size > 0", "optionalOldSelf": true})
	}, false},
	{"transition rule under an atomic list", func(c map[string]any) {
		node(c, props)["atomic"] = map[string]any{"type": "array", "maxItems": 5, "items": map[string]any{
			"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string", "maxLength": 5}},
			"x-kubernetes-validations": []any{map[string]any{"rule": "self == oldSelf"}}}}
	}, false},
	{"transition rule under a map list", func(c map[string]any) {
		node(c, props+".rules.items")["x-kubernetes-validations"] = []any{map[string]any{"rule": "self == oldSelf", "message": "immutable"}}
	}, true},
	{"cost over the per-rule limit", func(c map[string]any) {
		node(c, props)["big"] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		rule(c, map[string]any{"rule": "!has(self.big) || self.big.all(a, self.big.all(b, a.matches(b)))"})
	}, false},
	{"cost within limits with maxItems and maxLength", func(c map[string]any) {
		node(c, props)["big"] = map[string]any{"type": "array", "maxItems": 5, "items": map[string]any{"type": "string", "maxLength": 10}}
		rule(c, map[string]any{"rule": "!has(self.big) || self.big.all(a, self.big.all(b, a.matches(b)))"})
	}, true},
	{"cost over the per-CRD limit", func(c map[string]any) {
		node(c, props)["many"] = map[string]any{"type": "array", "items": map[string]any{"type": "string", "maxLength": 500,
			"x-kubernetes-validations": []any{map[string]any{"rule": "self.matches('^[a-z]+(-[a-z]+)*$')"}}}}
	}, false},
	// Defaults.
	{"default of the wrong type", func(c map[string]any) { node(c, props+".size")["default"] = "1" }, false},
	{"default below the minimum", func(c map[string]any) { node(c, props+".size")["default"] = int64(0) }, false},
	{"default of an object with unknown fields", func(c map[string]any) {
		node(c, specNode)["default"] = map[string]any{"size": int64(2), "zzz": true}
	}, false},
	{"default of an object", func(c map[string]any) { node(c, specNode)["default"] = map[string]any{"size": int64(2)} }, true},
	{"default breaking a CEL rule", func(c map[string]any) { node(c, props+".size")["default"] = int64(11) }, true},
	{"default in metadata", func(c map[string]any) {
		node(c, root+".properties")["metadata"] = map[string]any{"type": "object", "default": map[string]any{"name": "x"}}
	}, false},
	// List types.
	{"list map without keys", func(c map[string]any) { delete(node(c, props+".rules"), "x-kubernetes-list-map-keys") }, false},
	{"list map key neither required nor defaulted", func(c map[string]any) { delete(node(c, props+".rules.items"), "required") }, false},
	{"list map key defaulted", func(c map[string]any) {
		delete(node(c, props+".rules.items"), "required")
		node(c, props+".rules.items.properties.name")["default"] = "n"
	}, true},
	{"list map key not a property", func(c map[string]any) {
		node(c, props+".rules")["x-kubernetes-list-map-keys"] = []any{"nope"}
	}, false},
	{"list map of scalars", func(c map[string]any) {
		node(c, props+".tags")["x-kubernetes-list-type"] = "map"
		node(c, props+".tags")["x-kubernetes-list-map-keys"] = []any{"name"}
	}, false},
	{"list set of objects", func(c map[string]any) { node(c, props+".rules")["x-kubernetes-list-type"] = "set" }, false},
	{"list type unknown", func(c map[string]any) { node(c, props+".tags")["x-kubernetes-list-type"] = "bag" }, false},
	{"map keys without map type", func(c map[string]any) {
		node(c, props+".tags")["x-kubernetes-list-map-keys"] = []any{"name"}
	}, false},
	// Structural schemas.
	{"field without a type", func(c map[string]any) { delete(node(c, props+".name"), "type") }, false},
	{"type inside anyOf", func(c map[string]any) {
		node(c, props+".name")["anyOf"] = []any{map[string]any{"type": "string"}}
	}, false},
	{"anyOf without types", func(c map[string]any) {
		node(c, props+".name")["anyOf"] = []any{map[string]any{"maxLength": 5}, map[string]any{"pattern": "^a"}}
	}, true},
	{"additionalProperties with properties", func(c map[string]any) {
		node(c, specNode)["additionalProperties"] = map[string]any{"type": "string"}
	}, false},
	{"additionalProperties false", func(c map[string]any) {
		node(c, props)["labels"] = map[string]any{"type": "object", "additionalProperties": false}
	}, true},
	{"metadata with more than name", func(c map[string]any) {
		node(c, root+".properties")["metadata"] = map[string]any{"type": "object", "properties": map[string]any{"labels": map[string]any{"type": "object"}}}
	}, false},
	// Descriptions: the API server reads them in two places (an
	// optimisation that leaves schema descriptions out of its input
	// would miss these).
	{"metadata with a description", func(c map[string]any) {
		node(c, root+".properties")["metadata"] = map[string]any{"type": "object", "description": "the object's metadata"}
	}, false},
	{"description in allOf", func(c map[string]any) {
		node(c, props)["extra"] = map[string]any{"type": "string", "allOf": []any{map[string]any{"description": "x"}}}
	}, false},
	{"descriptions on the root and fields", func(c map[string]any) {
		node(c, root)["description"] = "a widget"
		node(c, props)["extra"] = map[string]any{"type": "array", "description": "a list", "items": map[string]any{"type": "string", "description": "an entry"}}
	}, true},
	{"metadata name restricted", func(c map[string]any) {
		node(c, root+".properties")["metadata"] = map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string", "maxLength": 20}}}
	}, true},
	{"root not an object", func(c map[string]any) { node(c, root)["type"] = "string" }, false},
	{"int-or-string", func(c map[string]any) {
		node(c, props)["port"] = map[string]any{"x-kubernetes-int-or-string": true, "anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}}
	}, true},
	{"int-or-string with a type", func(c map[string]any) {
		node(c, props)["port"] = map[string]any{"x-kubernetes-int-or-string": true, "type": "string"}
	}, true},
	{"embedded resource", func(c map[string]any) {
		node(c, props)["template"] = map[string]any{"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}
	}, true},
	{"embedded resource not an object", func(c map[string]any) {
		node(c, props)["template"] = map[string]any{"type": "string", "x-kubernetes-embedded-resource": true}
	}, false},
	{"embedded resource without fields", func(c map[string]any) {
		node(c, props)["template"] = map[string]any{"type": "object", "x-kubernetes-embedded-resource": true}
	}, false},
	{"enum of the wrong type", func(c map[string]any) { node(c, props+".name")["enum"] = []any{int64(1)} }, true},
	{"pattern that does not compile", func(c map[string]any) { node(c, props+".name")["pattern"] = "[a-" }, false},
	{"format unknown", func(c map[string]any) { node(c, props+".name")["format"] = "no-such-format" }, true},
	{"$ref", func(c map[string]any) { node(c, props+".name")["$ref"] = "#/definitions/x" }, false},
	{"uniqueItems", func(c map[string]any) { node(c, props+".tags")["uniqueItems"] = true }, false},
	// Preserve unknown fields.
	{"preserve-unknown-fields false", func(c map[string]any) { node(c, specNode)["x-kubernetes-preserve-unknown-fields"] = false }, false},
	{"preserve-unknown-fields on an object", func(c map[string]any) { node(c, specNode)["x-kubernetes-preserve-unknown-fields"] = true }, true},
	{"preserve-unknown-fields on a string", func(c map[string]any) { node(c, props+".name")["x-kubernetes-preserve-unknown-fields"] = true }, true},
	{"spec.preserveUnknownFields true", func(c map[string]any) { c["spec"].(map[string]any)["preserveUnknownFields"] = true }, false},
	// Values of the wrong type.
	{"maxLength 1.5", func(c map[string]any) { node(c, props+".name")["maxLength"] = 1.5 }, false},
	{"maxLength as a string", func(c map[string]any) { node(c, props+".name")["maxLength"] = "5" }, false},
	{"type [string]", func(c map[string]any) { node(c, props+".name")["type"] = []any{"string"} }, false},
	{"type unknown", func(c map[string]any) { node(c, props+".name")["type"] = "text" }, false},
	{"required not a list", func(c map[string]any) { node(c, specNode)["required"] = "size" }, false},
	{"minimum as a string", func(c map[string]any) { node(c, props+".size")["minimum"] = "1" }, false},
	{"served as a string", func(c map[string]any) { node(c, "spec.versions.0")["served"] = "true" }, false},
	// Conversion.
	{"conversion webhook without conversionReviewVersions", func(c map[string]any) {
		c["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "Webhook"}
	}, false},
	{"conversion webhook", func(c map[string]any) {
		c["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{"conversionReviewVersions": []any{"v1"}}}
	}, true},
	{"conversion webhook with an unknown review version", func(c map[string]any) {
		c["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{"conversionReviewVersions": []any{"v3"}}}
	}, false},
	{"conversion None with a webhook", func(c map[string]any) {
		c["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "None", "webhook": map[string]any{"conversionReviewVersions": []any{"v1"}}}
	}, false},
	{"conversion strategy unknown", func(c map[string]any) {
		c["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "Magic"}
	}, false},
	// Group approval.
	{"k8s.io group without approval", func(c map[string]any) { group(c, "example.k8s.io") }, false},
	{"kubernetes.io group without approval", func(c map[string]any) { group(c, "x.kubernetes.io") }, false},
	{"k8s.io group approved", func(c map[string]any) {
		group(c, "example.k8s.io")
		node(c, "metadata")["annotations"] = map[string]any{"api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/78458"}
	}, true},
	{"k8s.io group unapproved", func(c map[string]any) {
		group(c, "example.k8s.io")
		node(c, "metadata")["annotations"] = map[string]any{"api-approved.kubernetes.io": "unapproved, experimental-only"}
	}, true},
	{"k8s.io group with a bad approval", func(c map[string]any) {
		group(c, "example.k8s.io")
		node(c, "metadata")["annotations"] = map[string]any{"api-approved.kubernetes.io": "yes"}
	}, false},
	{"approval outside k8s.io", func(c map[string]any) {
		node(c, "metadata")["annotations"] = map[string]any{"api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/78458"}
	}, true},
	// Names, versions, scope.
	{"group without a dot", func(c map[string]any) { group(c, "example") }, false},
	{"kind lower case", func(c map[string]any) { node(c, "spec.names")["kind"] = "widget" }, true},
	{"listKind equal to kind", func(c map[string]any) { node(c, "spec.names")["listKind"] = "Widget" }, false},
	{"singular upper case", func(c map[string]any) { node(c, "spec.names")["singular"] = "Widget" }, false},
	{"short names", func(c map[string]any) { node(c, "spec.names")["shortNames"] = []any{"wd", "wd"} }, true},
	{"categories", func(c map[string]any) { node(c, "spec.names")["categories"] = []any{"all", "crossplane"} }, true},
	{"scope unknown", func(c map[string]any) { c["spec"].(map[string]any)["scope"] = "Global" }, false},
	{"two storage versions", func(c map[string]any) { secondVersion(c, true) }, false},
	{"second version", func(c map[string]any) { secondVersion(c, false) }, true},
	{"no storage version", func(c map[string]any) { node(c, "spec.versions.0")["storage"] = false }, false},
	{"version name not DNS", func(c map[string]any) { node(c, "spec.versions.0")["name"] = "V1" }, false},
	{"no versions", func(c map[string]any) { c["spec"].(map[string]any)["versions"] = []any{} }, false},
	{"no schema", func(c map[string]any) { delete(node(c, "spec.versions.0"), "schema") }, false},
	{"deprecation warning", func(c map[string]any) {
		node(c, "spec.versions.0")["deprecated"] = true
		node(c, "spec.versions.0")["deprecationWarning"] = "use v2"
	}, true},
	{"printer column with a bad JSONPath", func(c map[string]any) {
		node(c, "spec.versions.0")["additionalPrinterColumns"] = []any{map[string]any{"name": "Size", "type": "integer", "jsonPath": ".spec.size["}}
	}, true},
	{"printer column", func(c map[string]any) {
		node(c, "spec.versions.0")["additionalPrinterColumns"] = []any{map[string]any{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}}
	}, true},
	{"scale subresource", func(c map[string]any) {
		node(c, "spec.versions.0.subresources")["scale"] = map[string]any{"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.replicas"}
	}, true},
	{"scale subresource path outside spec", func(c map[string]any) {
		node(c, "spec.versions.0.subresources")["scale"] = map[string]any{"specReplicasPath": ".size", "statusReplicasPath": ".status.replicas"}
	}, false},
	{"selectable field", func(c map[string]any) {
		node(c, "spec.versions.0")["selectableFields"] = []any{map[string]any{"jsonPath": ".spec.name"}}
	}, true},
	{"selectable field not a scalar", func(c map[string]any) {
		node(c, "spec.versions.0")["selectableFields"] = []any{map[string]any{"jsonPath": ".spec.tags"}}
	}, false},
	{"status in the package", func(c map[string]any) {
		c["status"] = map[string]any{"storedVersions": []any{"v9"}, "acceptedNames": map[string]any{"kind": "", "plural": ""}}
	}, true},
}

func rule(c map[string]any, r map[string]any) {
	n := node(c, specNode)
	rs, _ := n["x-kubernetes-validations"].([]any)
	n["x-kubernetes-validations"] = append(rs, r)
}

func group(c map[string]any, g string) {
	node(c, "spec")["group"] = g
	node(c, "metadata")["name"] = "widgets." + g
}

func secondVersion(c map[string]any, storage bool) {
	vs := node(c, "spec")["versions"].([]any)
	v2 := deepCopy(vs[0]).(map[string]any)
	v2["name"] = "v2"
	v2["storage"] = storage
	node(c, "spec")["versions"] = append(vs, v2)
}

// crdCases returns the table of CRD validation cases: the mutations of
// baseCRD, the CRDs of testdata/crds (CEL in the style of other
// projects' CRDs, written here), Crossplane's CRDs and CRDs of the
// upjet AWS provider (when ../shared is there).
func crdCases(t testing.TB) []crdCase {
	t.Helper()
	var out []crdCase
	for _, m := range mutations {
		var c map[string]any
		if err := yaml.Unmarshal([]byte(baseCRD), &c); err != nil {
			t.Fatal(err)
		}
		c = normalize(c).(map[string]any)
		m.mutate(c)
		b, err := yaml.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, crdCase{name: "mutation/" + m.name, doc: b, valid: m.valid})
	}
	files, _ := filepath.Glob("testdata/crds/*.yaml")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range splitDocs(b) {
			var head struct {
				Metadata struct {
					Name        string            `json:"name"`
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal(d, &head); err != nil {
				t.Fatal(err)
			}
			// A case says its verdict in an annotation; valid without.
			valid := head.Metadata.Annotations["schemaparity/verdict"] != "refused"
			out = append(out, crdCase{name: fmt.Sprintf("projects/%s/%d-%s", filepath.Base(f), i, head.Metadata.Name), doc: d, valid: valid})
		}
	}
	cp := crossplaneCRDs(t)
	for _, k := range slices.Sorted(maps.Keys(cp)) {
		out = append(out, crdCase{name: "crossplane/" + k, doc: cp[k], valid: true})
	}
	for i, d := range upjetCRDs(t, 40, 40) {
		name := fmt.Sprint(i)
		var head struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		if yaml.Unmarshal(d, &head) == nil {
			name = head.Metadata.Name
		}
		out = append(out, crdCase{name: "upjet/" + name, doc: d, valid: true})
	}
	return out
}

// TestParityCRD compares XP420's verdict on each CRD with the API
// server's (ReferenceCRD).
func TestParityCRD(t *testing.T) {
	t.Parallel()
	cases := crdCases(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ref := ReferenceCRD(c.doc)
			ours := xp420(t, c.doc)
			var detail strings.Builder
			for _, d := range ours {
				fmt.Fprintf(&detail, "  ours: %s: %s\n", d.Field, d.Message)
			}
			for _, e := range ref {
				fmt.Fprintf(&detail, "  reference: %s\n", e.Error())
			}
			if (len(ref) == 0) != c.valid {
				t.Errorf("the reference says valid=%v, the table %v:\n%s", len(ref) == 0, c.valid, detail.String())
			}
			if (len(ours) == 0) != (len(ref) == 0) {
				t.Errorf("ours valid=%v, reference valid=%v:\n%s", len(ours) == 0, len(ref) == 0, detail.String())
			}
		})
	}
	if len(crossplaneCRDs(t)) == 0 || upjetCRDs(t, 40, 1) == nil {
		t.Logf("%d cases (../shared not found: Crossplane's and upjet's CRDs left out)", len(cases))
		return
	}
	if len(cases) < 100 {
		t.Errorf("%d cases, want at least 100", len(cases))
	}
}
