package deepcopytest

import (
	"reflect"
	"testing"
)

// metav1Path is the package of TypeMeta and ObjectMeta, whose deep copies
// apimachinery owns; Filled does not look inside them.
const metav1Path = "k8s.io/apimachinery/pkg/apis/meta/v1"

// Filled fails t for every exported field reachable from v (through
// pointers, slices and structs) that holds its zero value, outside the
// apimachinery metadata types.
func Filled(t testing.TB, v any) {
	t.Helper()
	for _, p := range zeroFields(reflect.ValueOf(v), "") {
		t.Errorf("fixture leaves %s unset; set it so the deep copy test covers it", p)
	}
}

func zeroFields(v reflect.Value, path string) []string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return []string{path}
		}
		return zeroFields(v.Elem(), path)
	case reflect.Slice, reflect.Map:
		if v.Len() == 0 {
			return []string{path}
		}
		if v.Kind() == reflect.Slice {
			var out []string
			for i := 0; i < v.Len(); i++ {
				out = append(out, zeroFields(v.Index(i), path+"[i]")...)
			}
			return out
		}
		return nil
	case reflect.Struct:
		if v.Type().PkgPath() == metav1Path {
			return nil
		}
		var out []string
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			out = append(out, zeroFields(v.Field(i), path+"."+f.Name)...)
		}
		return out
	default:
		if v.IsZero() {
			return []string{path}
		}
		return nil
	}
}

// Independent fails t for every pointer, slice or map of the copy c that
// shares memory with the original o, and for every place where c does not
// mirror o's shape (nil against non-nil).
func Independent(t testing.TB, o, c any) {
	t.Helper()
	for _, p := range shared(reflect.ValueOf(o), reflect.ValueOf(c), "") {
		t.Errorf("deep copy shares or drops %s", p)
	}
}

func shared(a, b reflect.Value, path string) []string {
	if a.Kind() != b.Kind() {
		return []string{path}
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return []string{path}
			}
			return nil
		}
		if a.Pointer() == b.Pointer() {
			return []string{path}
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return []string{path}
			}
			return nil
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return []string{path}
		}
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			return []string{path}
		}
		var out []string
		for i := 0; i < a.Len(); i++ {
			out = append(out, shared(a.Index(i), b.Index(i), path+"[i]")...)
		}
		return out
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return []string{path}
		}
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			return []string{path}
		}
		var out []string
		for _, k := range a.MapKeys() {
			out = append(out, shared(a.MapIndex(k), b.MapIndex(k), path+"[k]")...)
		}
		return out
	case reflect.Struct:
		var out []string
		for i := 0; i < a.NumField(); i++ {
			if !a.Type().Field(i).IsExported() {
				continue
			}
			out = append(out, shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)...)
		}
		return out
	default:
		return nil
	}
}
