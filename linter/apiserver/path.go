package apiserver

import (
	"strings"
)

// splitFieldPath splits a field path as k8s.io/apimachinery's field.Path
// prints it (children joined by '.', keys and indexes in brackets) into
// its segments: "spec.versions[0].schema.openAPIV3Schema.properties[a.b]"
// gives spec, versions, 0, schema, openAPIV3Schema, properties, a.b.
func splitFieldPath(p string) []string {
	var out []string
	for p != "" {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			j := strings.IndexByte(p, ']')
			if j < 0 {
				return append(out, p[1:])
			}
			// A key may hold brackets itself: take up to the ']' that
			// is followed by '.', '[' or the end.
			for j >= 0 && j+1 < len(p) && p[j+1] != '.' && p[j+1] != '[' {
				k := strings.IndexByte(p[j+1:], ']')
				if k < 0 {
					break
				}
				j += 1 + k
			}
			out = append(out, p[1:j])
			p = p[j+1:]
		default:
			j := strings.IndexAny(p, ".[")
			if j < 0 {
				return append(out, p)
			}
			out = append(out, p[:j])
			p = p[j:]
		}
	}
	return out
}

// present reports whether path names a field of obj (decoded JSON).
func present(obj any, path []string) bool {
	cur := obj
	for _, seg := range path {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[seg]
			if !ok {
				return false
			}
			cur = v
		case []any:
			i, ok := index(seg)
			if !ok || i >= len(c) {
				return false
			}
			cur = c[i]
		default:
			return false
		}
	}
	return true
}

func index(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}
