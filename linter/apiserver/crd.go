package apiserver

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A finding is one reason the API server refuses a definition: the
// field's path in the source object and the API server's message.
type finding struct {
	path []string
	msg  string
}

// decodeFinding turns a decoding error into a finding at the field it
// names, found in content.
func decodeFinding(content map[string]any, err error) finding {
	msg := "the API server cannot decode it: " + err.Error()
	// The decoder's error names the field as "Go struct field
	// Type.a.b.c of type T", without list indexes or map keys.
	text := err.Error()
	if _, rest, ok := strings.Cut(text, "Go struct field "); ok {
		if f, _, ok := strings.Cut(rest, " of type "); ok {
			if _, f, ok = strings.Cut(f, "."); ok && f != "" {
				return finding{path: findField(content, strings.Split(f, ".")), msg: msg}
			}
		}
	}
	return finding{msg: msg}
}

// findField finds, in obj, the first path whose keys are keys (the
// lists along the way indexed): encoding/json names a field without the
// list indexes.
func findField(obj any, keys []string) []string {
	var walk func(cur any, keys []string, path []string) ([]string, bool)
	budget := 100000
	walk = func(cur any, keys []string, path []string) ([]string, bool) {
		budget--
		if budget < 0 {
			return nil, false
		}
		if len(keys) == 0 {
			return path, true
		}
		switch c := cur.(type) {
		case map[string]any:
			if v, ok := c[keys[0]]; ok {
				return walk(v, keys[1:], append(path, keys[0]))
			}
			// A map's keys are left out of the path: try each value.
			ks := make([]string, 0, len(c))
			for k := range c {
				ks = append(ks, k)
			}
			sort.Strings(ks)
			for _, k := range ks {
				if _, ok := c[k].(map[string]any); !ok {
					continue
				}
				if p, ok := walk(c[k], keys, append(path, k)); ok {
					return p, true
				}
			}
			return nil, false
		case []any:
			for i, e := range c {
				if p, ok := walk(e, keys, append(path, fmt.Sprint(i))); ok {
					return p, true
				}
			}
		}
		return nil, false
	}
	p, _ := walk(obj, keys, nil)
	if p == nil {
		// The deepest prefix present.
		for n := len(keys) - 1; n > 0; n-- {
			if q, ok := walk(obj, keys[:n], nil); ok {
				return q
			}
		}
	}
	return p
}

// crdPath maps a path of the internal CRD type to the v1 object's.
func crdPath(content map[string]any, p []string) []string {
	if present(content, p) || len(p) < 2 || p[0] != "spec" {
		return p
	}
	var moved string
	switch p[1] {
	case "validation":
		moved = "schema"
	case "subresources", "additionalPrinterColumns", "selectableFields":
		moved = p[1]
	case "version":
		return []string{"spec", "versions", "0", "name"}
	default:
		return p
	}
	return append([]string{"spec", "versions", "0", moved}, p[2:]...)
}

// findingsOf converts the API server's errors to findings, each with its
// field's path in content.
func findingsOf(content map[string]any, errs field.ErrorList, mapPath func(map[string]any, []string) []string) []finding {
	out := make([]finding, 0, len(errs))
	for _, e := range errs {
		p := splitFieldPath(e.Field)
		if mapPath != nil {
			p = mapPath(content, p)
		}
		out = append(out, finding{path: p, msg: errorText(e)})
	}
	return out
}

// errorText is the API server's message for e, without the value when
// the error has a detail (the value of a rule or a schema is long), and
// only the first line of the detail (a CEL compile error goes on with the
// expression and a caret under the error).
func errorText(e *field.Error) string {
	if e.Detail == "" {
		return e.ErrorBody()
	}
	detail, _, _ := strings.Cut(e.Detail, "\n")
	return e.Type.String() + ": " + detail
}

// maxUntypedFields is how many fields without a type a CRD's schemas may
// have for XP420 to run the API server's validation on it.
const maxUntypedFields = 500

// untypedFields returns, as findings, up to max+1 fields of the CRD's
// version schemas that have no type where a structural schema needs one
// (k8s.io/apiextensions-apiserver pkg/apiserver/schema validateStructuralInvariants:
// "must not be empty for specified object fields"): properties, items and
// additionalProperties schemas, outside x-kubernetes-int-or-string and
// x-kubernetes-preserve-unknown-fields. It returns none when there are at
// most max.
func untypedFields(content map[string]any, max int) []finding {
	// Most schemas have none: count them first, without sorting keys,
	// and list them in order only when there are too many.
	if countUntyped(content, max) <= max {
		return nil
	}
	var out []finding
	var walk func(s map[string]any, path []string)
	walk = func(s map[string]any, path []string) {
		if len(out) > max || s == nil {
			return
		}
		if t, _ := s["type"].(string); t == "" {
			if b, _ := s["x-kubernetes-int-or-string"].(bool); !b {
				if b, _ := s["x-kubernetes-preserve-unknown-fields"].(bool); !b {
					out = append(out, finding{path: slices.Clone(append(path, "type")), msg: "Required value: must not be empty for specified object fields"})
				}
			}
		}
		if props, _ := s["properties"].(map[string]any); props != nil {
			for _, k := range slices.Sorted(maps.Keys(props)) {
				m, _ := props[k].(map[string]any)
				walk(m, append(path, "properties", k))
			}
		}
		if m, _ := s["items"].(map[string]any); m != nil {
			walk(m, append(path, "items"))
		}
		if m, _ := s["additionalProperties"].(map[string]any); m != nil {
			walk(m, append(path, "additionalProperties"))
		}
	}
	spec, _ := content["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	for i, v := range versions {
		vm, _ := v.(map[string]any)
		sm, _ := vm["schema"].(map[string]any)
		root, _ := sm["openAPIV3Schema"].(map[string]any)
		if root == nil {
			continue
		}
		path := []string{"spec", "versions", strconv.Itoa(i), "schema", "openAPIV3Schema"}
		// The root's own type is checked by the API server (it must be
		// object); only its fields are counted here.
		if props, _ := root["properties"].(map[string]any); props != nil {
			for _, k := range slices.Sorted(maps.Keys(props)) {
				m, _ := props[k].(map[string]any)
				walk(m, append(slices.Clone(path), "properties", k))
			}
		}
	}
	return out
}

// countUntyped counts, up to max+1, the fields untypedFields lists.
func countUntyped(content map[string]any, max int) int {
	n := 0
	var walk func(s map[string]any)
	walk = func(s map[string]any) {
		if n > max || s == nil {
			return
		}
		if t, _ := s["type"].(string); t == "" {
			if b, _ := s["x-kubernetes-int-or-string"].(bool); !b {
				if b, _ := s["x-kubernetes-preserve-unknown-fields"].(bool); !b {
					n++
				}
			}
		}
		if props, _ := s["properties"].(map[string]any); props != nil {
			for _, p := range props {
				m, _ := p.(map[string]any)
				walk(m)
			}
		}
		if m, _ := s["items"].(map[string]any); m != nil {
			walk(m)
		}
		if m, _ := s["additionalProperties"].(map[string]any); m != nil {
			walk(m)
		}
	}
	spec, _ := content["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		sm, _ := vm["schema"].(map[string]any)
		root, _ := sm["openAPIV3Schema"].(map[string]any)
		if props, _ := root["properties"].(map[string]any); props != nil {
			for _, p := range props {
				m, _ := p.(map[string]any)
				walk(m)
			}
		}
	}
	return n
}
