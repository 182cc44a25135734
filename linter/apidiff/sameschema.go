package apidiff

import "reflect"

// docKeywords are the keywords of a schema that document it and constrain
// nothing: two schemas that differ only in them accept the same objects.
var docKeywords = map[string]bool{"description": true, "title": true, "example": true, "externalDocs": true}

// sameSchema reports whether two OpenAPI v3 schemas (decoded JSON) accept
// the same objects as far as their keywords say: equal after leaving out
// the documentation keywords at every level of the schema (never a field
// of properties that happens to be named "description"). Its cost is
// linear in the smaller schema.
func sameSchema(a, b any) bool {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		// true/false (additionalProperties), or anything not a schema.
		return reflect.DeepEqual(a, b)
	}
	n := 0
	for k, av := range am {
		if docKeywords[k] {
			continue
		}
		n++
		bv, ok := bm[k]
		if !ok || !sameKeyword(k, av, bv) {
			return false
		}
	}
	for k := range bm {
		if !docKeywords[k] {
			n--
		}
	}
	return n == 0
}

// sameKeyword compares the values of keyword k of two schemas.
func sameKeyword(k string, a, b any) bool {
	switch k {
	case "properties", "patternProperties", "definitions", "dependencies":
		// Maps of names to schemas.
		am, aok := a.(map[string]any)
		bm, bok := b.(map[string]any)
		if !aok || !bok || len(am) != len(bm) {
			return reflect.DeepEqual(a, b)
		}
		for name, av := range am {
			bv, ok := bm[name]
			if !ok || !sameSchema(av, bv) {
				return false
			}
		}
		return true
	case "allOf", "anyOf", "oneOf", "items":
		// A schema, or a list of schemas.
		al, aok := a.([]any)
		bl, bok := b.([]any)
		if !aok || !bok {
			return sameSchema(a, b)
		}
		if len(al) != len(bl) {
			return false
		}
		for i := range al {
			if !sameSchema(al[i], bl[i]) {
				return false
			}
		}
		return true
	case "not", "additionalProperties", "additionalItems":
		return sameSchema(a, b)
	}
	return reflect.DeepEqual(a, b)
}
