// Package jsonfields maps the JSON names of a Go struct's fields to their
// types, as encoding/json names them, for the checks that walk YAML values
// against Go types (the parser's meta type check, the linter's
// unknown-field rule).
package jsonfields

import (
	"reflect"
	"strings"
	"sync"
)

// cache holds Of's results: reflect.Type -> map[string]reflect.Type.
var cache sync.Map

// Of maps the JSON names of the fields of struct type t (inline and
// embedded structs flattened) to their types. Fields tagged "-" and
// unexported fields are left out. The result is cached and shared: callers
// must not change it.
func Of(t reflect.Type) map[string]reflect.Type {
	if m, ok := cache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && (name == "" || strings.Contains(","+opts+",", ",inline,")) {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range Of(ft) {
					m[k] = v
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	cache.Store(t, m)
	return m
}
