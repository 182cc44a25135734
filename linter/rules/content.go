package rules

import (
	"strconv"

	"github.com/xpkgkit/xpkgkit/parser"
)

// outline returns obj's depth-limited outline, or its full content when the
// parser kept no outline.
func outline(obj *parser.Object) map[string]any {
	if m := obj.Outline(); m != nil {
		return m
	}
	u, err := obj.Unstructured()
	if err != nil {
		return nil
	}
	return u.Object
}

// lookup walks m along path (map keys, or decimal indexes into lists).
func lookup(v any, path ...string) (any, bool) {
	for _, e := range path {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[e]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(e)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// str returns the string at path, and whether there is one.
func str(v any, path ...string) (string, bool) {
	x, ok := lookup(v, path...)
	if !ok {
		return "", false
	}
	s, ok := x.(string)
	return s, ok
}

// list returns the list at path.
func list(v any, path ...string) []any {
	x, _ := lookup(v, path...)
	l, _ := x.([]any)
	return l
}

// object returns the map at path.
func object(v any, path ...string) map[string]any {
	x, _ := lookup(v, path...)
	m, _ := x.(map[string]any)
	return m
}

// boolean returns the bool at path (false when absent or not a bool).
func boolean(v any, path ...string) bool {
	x, _ := lookup(v, path...)
	b, _ := x.(bool)
	return b
}

// join appends elems to a copy of path.
func join(path []string, elems ...string) []string {
	out := make([]string, 0, len(path)+len(elems))
	return append(append(out, path...), elems...)
}
