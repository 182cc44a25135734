package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

// walker does what the API server does to a custom resource besides
// kube-openapi's validation, in the API server's order: it prunes unknown
// fields (reporting each), drops nulls of non-nullable fields without a
// default, applies defaults, and checks patterns, list types (set and map
// uniqueness) and embedded resources. It returns the pruned, defaulted copy
// that kube-openapi then validates; the input is not modified.
type walker struct {
	out      []Violation
	patterns bool // check patterns (off in types-only mode)
}

func (w *walker) add(path []string, kind ViolationKind, expected, found, msg string) {
	w.out = append(w.out, Violation{Path: clonePath(path), Kind: kind, Expected: expected, Found: found, Message: msg})
}

func clonePath(p []string) []string { return append([]string(nil), p...) }

func join(path []string, e string) []string {
	return append(path[:len(path):len(path)], e)
}

// walk returns v as the API server would keep it under n. root marks the
// object's top level, whose apiVersion, kind and metadata are kept.
func (w *walker) walk(v any, n *node, path []string, root bool) any {
	if n == nil {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		return w.object(x, n, path, root)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = w.walk(e, n.items, join(path, strconv.Itoa(i)), false)
		}
		w.listType(out, n, path)
		return out
	case string:
		if w.patterns && hasType(n, "string") {
			for _, re := range n.patterns {
				if !re.MatchString(x) {
					w.add(path, KindPattern, "match "+re.String(), quoteValue(x),
						fmt.Sprintf("must match the pattern %s", bounded(re.String())))
				}
			}
		}
	}
	return v
}

func hasType(n *node, t string) bool {
	if len(n.types) == 0 {
		return true
	}
	for _, x := range n.types {
		if x == t {
			return true
		}
	}
	return false
}

func (w *walker) object(x map[string]any, n *node, path []string, root bool) any {
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(x))
	meta := root || n.embedded
	for _, k := range keys {
		v := x[k]
		if meta && (k == "apiVersion" || k == "kind" || k == "metadata") {
			if _, defined := n.props[k]; !defined || k == "metadata" {
				// Kept as they are: ObjectMeta is validated on its own.
				out[k] = v
				continue
			}
		}
		child, ok := n.props[k]
		if !ok && n.addAny {
			child, ok = n.additional, true
		}
		if !ok {
			if n.preserve {
				out[k] = v
				continue
			}
			w.add(join(path, k), KindUnknownField, "", "", "unknown field: the API server prunes it")
			continue
		}
		if v == nil && child != nil && !child.nullable && !child.hasDefault {
			// The API server drops non-nullable nulls that have no default.
			continue
		}
		if child == nil {
			out[k] = v
			continue
		}
		out[k] = w.walk(v, child, join(path, k), false)
	}
	// Defaults, after pruning, as the API server applies them.
	for k, p := range n.props {
		if p == nil || !p.hasDefault {
			continue
		}
		if cur, present := out[k]; !present || cur == nil && !p.nullable {
			out[k] = deepCopy(p.def)
		}
	}
	if n.embedded {
		w.embedded(out, path)
	}
	return out
}

// embedded checks what the API server requires of an embedded resource:
// an apiVersion and a kind.
func (w *walker) embedded(x map[string]any, path []string) {
	for _, k := range []string{"apiVersion", "kind"} {
		v, ok := x[k]
		if !ok {
			w.add(join(path, k), KindRequired, "required", "missing", "required: an embedded resource needs "+k)
			continue
		}
		s, ok := v.(string)
		switch {
		case !ok:
			w.add(join(path, k), KindType, "string", jsonType(v), "must be a string")
		case s == "":
			w.add(join(path, k), KindInvalid, "non-empty", `""`, "must not be empty")
		case k == "apiVersion":
			if _, err := schema.ParseGroupVersion(s); err != nil {
				w.add(join(path, k), KindInvalid, "group/version", quoteValue(s), bounded(err.Error()))
			}
		case k == "kind":
			if errs := validation.IsDNS1035Label(strings.ToLower(s)); len(errs) > 0 {
				w.add(join(path, k), KindInvalid, "DNS-1035 label, any case", quoteValue(s), bounded(strings.Join(errs, ", ")))
			}
		}
	}
}

// listType checks the uniqueness x-kubernetes-list-type asks of a list.
func (w *walker) listType(l []any, n *node, path []string) {
	switch n.listType {
	case "set":
		seen := make(map[string]bool, len(l))
		reported := map[string]bool{}
		for i, e := range l {
			k := canonical(e)
			if seen[k] && !reported[k] {
				reported[k] = true
				w.add(join(path, strconv.Itoa(i)), KindDuplicate, "unique items (list-type set)", bounded(k), "duplicate value in a list-type set")
			}
			seen[k] = true
		}
	case "map":
		for i, e := range l {
			if _, ok := e.(map[string]any); e != nil && !ok {
				w.add(join(path, strconv.Itoa(i)), KindInvalid, "object", jsonType(e), "must be an object for an array of list-type map")
				return
			}
		}
		seen := make(map[string]bool, len(l))
		reported := map[string]bool{}
		for i, e := range l {
			m, _ := e.(map[string]any)
			key := make(map[string]any, len(n.mapKeys))
			for _, f := range n.mapKeys {
				if v, ok := m[f]; ok {
					key[f] = v
				}
			}
			k := canonical(key)
			if seen[k] && !reported[k] {
				reported[k] = true
				w.add(join(path, strconv.Itoa(i)), KindDuplicate, "unique keys "+strings.Join(n.mapKeys, ",")+" (list-type map)", bounded(k), "duplicate entry in a list-type map")
			}
			seen[k] = true
		}
	}
}

// canonical is a value's JSON form (maps with sorted keys).
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
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

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case int, int32, int64, uint, uint32, uint64:
		return "integer"
	case float32:
		return "number"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

const maxValueLen = 80

// bounded shortens s for a message.
func bounded(s string) string {
	if len(s) <= maxValueLen {
		return s
	}
	cut := maxValueLen
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// quoteValue quotes and shortens a string value for a message.
func quoteValue(s string) string { return strconv.Quote(bounded(s)) }
