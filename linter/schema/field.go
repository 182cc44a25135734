package schema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ErrUnknownField is wrapped by the error of Validator.Field when the
// schema declares no field at the path.
var ErrUnknownField = errors.New("no such field in the schema")

// maxFieldRefs bounds the $ref hops Field follows at one step of a path
// (Kubernetes' published OpenAPI wraps references in allOf).
const maxFieldRefs = 8

// maxFieldEnum bounds the enum values a Field lists.
const maxFieldEnum = 200

// Field describes one field of a kind's schema as the schema declares it
// (KindSchema.Field): what an editor shows on hover and offers on
// completion.
type Field struct {
	// Definition names the definition that serves the kind, as Result's
	// Definition does.
	Definition string
	// Type is the field's JSON type ("string", "object", "array",
	// "integer|string" for int-or-string...); empty when the schema gives
	// none.
	Type string
	// Description is the schema's description of the field.
	Description string
	// Default is the field's default value; nil when there is none.
	Default any
	// Enum lists the values the field may take (at most 200); nil when
	// any value of its type is allowed.
	Enum []any
	// Required is true when the object that holds the field requires it.
	Required bool
	// Validation lists the field's other constraints, one per entry, as
	// keyword and value ("format: date-time", "minLength: 1",
	// "pattern: ^[a-z]+$", "rule: self.size() > 0 (message)").
	Validation []string
	// Properties lists the fields of an object (or of the items of an array
	// of objects), sorted.
	Properties []string
	// RequiredProperties lists those of Properties that are required.
	RequiredProperties []string
	// Preserve is true when the field keeps unknown fields
	// (x-kubernetes-preserve-unknown-fields): any field may be added.
	Preserve bool
	// Embedded is true when the field is an object of its own kind
	// (x-kubernetes-embedded-resource), such as a Composition's composed
	// resource base: its apiVersion and kind say which schema judges it.
	Embedded bool
}

// KindSchema is the schema of one version of a kind, as the definition
// that serves it declares it, read for Field. It is safe for concurrent use.
type KindSchema struct {
	definition string
	root       map[string]any
	r          fieldResolver
}

// Schema returns the schema of the kind gvk (the release's schema for
// PackageKindsAt). The error wraps ErrNoDefinition when no definition serves
// gvk, ErrUnknownField when the definition's version has no schema, and
// ErrInvalidSchema when its schema cannot be read.
//
// Schema reads the definition's schema afresh (a large CRD costs a decode
// of its version); callers that ask often keep the KindSchema.
func (v *Validator) Schema(ctx context.Context, gvk schema.GroupVersionKind) (*KindSchema, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e, ok := v.byGVK[gvk]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoDefinition, bounded(gvk.String()))
	}
	var (
		raw  any
		defs map[string]any
		err  error
	)
	if e.tables {
		// A package kind of the shared tables: its build writes e.defs,
		// which compile reads under v.mu; take the schema directly.
		var b json.RawMessage
		var rawDefs map[string]any
		b, rawDefs, err = kindSchema(gvk)
		if err == nil {
			raw, err = decodeJSON(b)
		}
		defs = make(map[string]any, len(rawDefs))
		for name, d := range rawDefs {
			if rm, ok := d.(json.RawMessage); ok && err == nil {
				d, err = decodeJSON(rm)
			}
			defs[name] = d
		}
	} else {
		raw, _, err = e.build()
	}
	if err != nil {
		return nil, fmt.Errorf("%s version %s: %w", e.definition, bounded(gvk.Version), err)
	}
	r := fieldResolver{defs: defs}
	root := r.resolve(raw)
	if root == nil {
		return nil, fmt.Errorf("%w: %s version %s has no schema", ErrUnknownField, e.definition, bounded(gvk.Version))
	}
	return &KindSchema{definition: e.definition, root: root, r: r}, nil
}

// Definition names the definition that serves the kind, as Result's
// Definition does.
func (k *KindSchema) Definition() string { return k.definition }

// Field returns the schema of the field at path. path holds property
// names; an element that is a non-negative integer or "[]" steps into the
// items of an array. An empty path describes the object itself. The error
// wraps ErrUnknownField when the schema declares no field at path (below a
// field that keeps unknown fields, say).
func (k *KindSchema) Field(path ...string) (*Field, error) {
	cur := k.root
	required := false
	for i, p := range path {
		next, req, ok := k.r.step(cur, p)
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrUnknownField, bounded(strings.Join(path[:i+1], ".")))
		}
		cur, required = next, req
	}
	f := k.r.describe(cur)
	f.Definition = k.definition
	f.Required = required && len(path) > 0
	return f, nil
}

// decodeJSON decodes a JSON schema.
func decodeJSON(b []byte) (any, error) {
	var s any
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	return s, nil
}

// fieldResolver walks a decoded JSON schema, resolving $refs into defs.
type fieldResolver struct {
	defs map[string]any
}

// resolve returns the schema s stands for: its $ref's target, or the
// target of its allOf's one $ref, merged with s's own keywords.
func (r fieldResolver) resolve(s any) map[string]any {
	m, _ := s.(map[string]any)
	for i := 0; i < maxFieldRefs && m != nil; i++ {
		ref, _ := m["$ref"].(string)
		if ref == "" {
			if all, _ := m["allOf"].([]any); len(all) == 1 {
				if am, _ := all[0].(map[string]any); am != nil {
					ref, _ = am["$ref"].(string)
				}
			}
		}
		if ref == "" {
			return m
		}
		target, _ := r.defs[refName(ref)].(map[string]any)
		if target == nil {
			return m
		}
		merged := make(map[string]any, len(target)+len(m))
		for k, v := range target {
			merged[k] = v
		}
		for k, v := range m {
			if k != "$ref" && k != "allOf" {
				merged[k] = v
			}
		}
		m = merged
	}
	return m
}

// refName returns the definition a $ref names: "#/definitions/NAME" or
// OpenAPI v3's "#/components/schemas/NAME".
func refName(ref string) string {
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		return ref[i+1:]
	}
	return ref
}

// step returns the schema of child p of s, and whether s requires it.
func (r fieldResolver) step(s map[string]any, p string) (map[string]any, bool, bool) {
	if s == nil {
		return nil, false, false
	}
	if items, ok := s["items"]; ok && isItem(p) {
		m := r.resolve(items)
		return m, false, m != nil
	}
	if props, _ := s["properties"].(map[string]any); props != nil {
		if c, ok := props[p]; ok {
			m := r.resolve(c)
			return m, hasString(s["required"], p), m != nil
		}
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		m := r.resolve(ap)
		return m, false, m != nil
	}
	return nil, false, false
}

// isItem reports whether a path element steps into an array's items.
func isItem(p string) bool {
	if p == "[]" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 0
}

// hasString reports whether list, a JSON array, holds the string s.
func hasString(list any, s string) bool {
	l, _ := list.([]any)
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// describe returns the Field of schema s.
func (r fieldResolver) describe(s map[string]any) *Field {
	f := &Field{}
	switch t := s["type"].(type) {
	case string:
		f.Type = t
	case []any:
		var ts []string
		for _, x := range t {
			if xs, ok := x.(string); ok {
				ts = append(ts, xs)
			}
		}
		f.Type = strings.Join(ts, "|")
	}
	if b, _ := s["x-kubernetes-int-or-string"].(bool); b {
		f.Type = "integer|string"
	}
	f.Description, _ = s["description"].(string)
	f.Default = s["default"]
	if enum, _ := s["enum"].([]any); len(enum) > 0 {
		f.Enum = enum[:min(len(enum), maxFieldEnum)]
	}
	for _, k := range []string{"format", "pattern", "minLength", "maxLength", "minimum", "maximum",
		"exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems",
		"minProperties", "maxProperties", "nullable", "x-kubernetes-list-type", "x-kubernetes-map-type"} {
		if v, ok := s[k]; ok {
			f.Validation = append(f.Validation, fmt.Sprintf("%s: %v", k, v))
		}
	}
	if keys, _ := s["x-kubernetes-list-map-keys"].([]any); len(keys) > 0 {
		f.Validation = append(f.Validation, fmt.Sprintf("x-kubernetes-list-map-keys: %v", keys))
	}
	if rules, _ := s["x-kubernetes-validations"].([]any); len(rules) > 0 {
		for _, x := range rules {
			rm, _ := x.(map[string]any)
			rule, _ := rm["rule"].(string)
			msg, _ := rm["message"].(string)
			if msg != "" {
				rule += " (" + msg + ")"
			}
			f.Validation = append(f.Validation, "rule: "+rule)
		}
	}
	f.Preserve, _ = s["x-kubernetes-preserve-unknown-fields"].(bool)
	f.Embedded, _ = s["x-kubernetes-embedded-resource"].(bool)
	obj := s
	if items, ok := s["items"]; ok {
		if m := r.resolve(items); m != nil {
			obj = m
		}
	}
	if props, _ := obj["properties"].(map[string]any); props != nil {
		for k := range props {
			f.Properties = append(f.Properties, k)
			if hasString(obj["required"], k) {
				f.RequiredProperties = append(f.RequiredProperties, k)
			}
		}
		sort.Strings(f.Properties)
		sort.Strings(f.RequiredProperties)
	}
	return f
}
