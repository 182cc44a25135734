package parser

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/jsonfields"

	"go.yaml.in/yaml/v3"
)

// This file finds which field made a typed decode fail. apimachinery's
// unstructured converter says only "cannot restore slice from map" or
// "cannot convert int64 to string", with no field; walking the converted
// value against the Go type once more finds the field, so the error can
// point at it and say what was found and what was wanted.

// maxTypeCheckDepth bounds the walk; the parser's limits bound documents'
// depth well below it.
const maxTypeCheckDepth = 256

// mistypedError returns a *DocumentError at the first field of v (the
// converted document, or the part of it at prefix) whose value cannot
// fill its place in a value of type t; nil when there is none.
func mistypedError(v any, t reflect.Type, kind string, prefix []string, root *yaml.Node, loc locator) error {
	path, want, found, ok := mistyped(v, t, prefix, 0)
	if !ok {
		return nil
	}
	pos, err := fieldPositionIn(root, loc, path)
	if err != nil {
		pos = loc.base
	}
	what := "field"
	if len(path) == 0 {
		what = "document"
	}
	msg := fmt.Sprintf("%s %s is %s, but %s wants %s there", what, fieldPathString(path), found, article(kind), want)
	var unquoted *Scalar
	if want == "a string" && (strings.HasPrefix(found, "a number") || strings.HasPrefix(found, "a boolean")) {
		msg += ": quote the value to make it a string"
		if n := valueNodeAt(root, path); n != nil && n.Kind == yaml.ScalarNode && n.Style == 0 && !strings.ContainsAny(n.Value, "\n\r") {
			unquoted = &Scalar{Pos: loc.node(n), Text: n.Value}
		}
	}
	return &DocumentError{Pos: pos, Err: fmt.Errorf("%w: %s", ErrDecode, msg), Unquoted: unquoted}
}

// valueNodeAt returns the node at path under root, nil when there is none.
func valueNodeAt(root *yaml.Node, path []string) *yaml.Node {
	n := root
	for _, elem := range path {
		n = deref(n)
		switch n.Kind {
		case yaml.MappingNode:
			_, n = findKey(n, elem)
		case yaml.SequenceNode:
			idx, err := strconv.Atoi(elem)
			if err != nil || idx < 0 || idx >= len(n.Content) {
				return nil
			}
			n = n.Content[idx]
		default:
			return nil
		}
		if n == nil {
			return nil
		}
	}
	return n
}

// article returns "a Kind" or "an Kind".
func article(kind string) string {
	if kind == "" {
		return "the object"
	}
	if strings.ContainsRune("AEIOU", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// mistyped walks v against t as the unstructured converter fills t, and
// returns the path of the first value that does not fit, what t wants
// there and what v holds; ok is false when everything fits. Map keys are
// visited in order, so the answer does not depend on map iteration.
func mistyped(v any, t reflect.Type, path []string, depth int) (at []string, want, found string, ok bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil || depth > maxTypeCheckDepth || t.Kind() == reflect.Interface {
		return nil, "", "", false
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || t.Implements(jsonUnmarshaler) {
		// The type decodes itself from whatever JSON it accepts; only its
		// object form can be checked field by field.
		if _, isMap := v.(map[string]any); !isMap || t.Kind() != reflect.Struct {
			return nil, "", "", false
		}
	}
	bad := func(w string) ([]string, string, string, bool) { return path, w, describeValue(v), true }
	switch t.Kind() {
	case reflect.Struct:
		m, isMap := v.(map[string]any)
		if !isMap {
			return bad("an object")
		}
		fields := jsonfields.Of(t)
		for _, k := range sortedMapKeys(m) {
			ft, known := fields[k]
			if !known {
				continue
			}
			if at, w, f, ok := mistyped(m[k], ft, appendPath(path, k), depth+1); ok {
				return at, w, f, ok
			}
		}
	case reflect.Map:
		m, isMap := v.(map[string]any)
		if !isMap {
			return bad("an object")
		}
		for _, k := range sortedMapKeys(m) {
			if at, w, f, ok := mistyped(m[k], t.Elem(), appendPath(path, k), depth+1); ok {
				return at, w, f, ok
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			if _, isStr := v.(string); !isStr {
				return bad("a string (base64)")
			}
			return nil, "", "", false
		}
		l, isList := v.([]any)
		if !isList {
			return bad("a list")
		}
		for i, e := range l {
			if at, w, f, ok := mistyped(e, t.Elem(), appendPath(path, strconv.Itoa(i)), depth+1); ok {
				return at, w, f, ok
			}
		}
	case reflect.String:
		if _, isStr := v.(string); !isStr {
			return bad("a string")
		}
	case reflect.Bool:
		if _, isBool := v.(bool); !isBool {
			return bad("a boolean")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if _, isInt := v.(int64); !isInt {
			return bad("an integer")
		}
	case reflect.Float32, reflect.Float64:
		switch v.(type) {
		case int64, float64:
		default:
			return bad("a number")
		}
	}
	return nil, "", "", false
}

// describeValue says what kind of JSON value v is, with a short scalar's
// text.
func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 32 {
			x = x[:32] + "..."
		}
		return "a string (" + strconv.Quote(x) + ")"
	case bool:
		return "a boolean (" + strconv.FormatBool(x) + ")"
	case int64:
		return "a number (" + strconv.FormatInt(x, 10) + ")"
	case float64:
		return "a number (" + strconv.FormatFloat(x, 'g', 10, 64) + ")"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("a %T", v)
}

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func appendPath(path []string, elem string) []string {
	return append(path[:len(path):len(path)], elem)
}

// fieldPathString formats a path as spec.dependsOn[0].version, quoting
// keys that hold '.', '/' or other separators.
func fieldPathString(path []string) string {
	var b strings.Builder
	for i, e := range path {
		if _, err := strconv.Atoi(e); err == nil && e != "" && e[0] != '-' && e[0] != '+' {
			b.WriteString("[" + e + "]")
			continue
		}
		if e == "" || strings.ContainsAny(e, `./[]" `) {
			b.WriteString("[" + strconv.Quote(e) + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e)
	}
	return b.String()
}
