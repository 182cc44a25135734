package parser

import (
	"fmt"
	"strings"
)

// ObjectRef identifies an object of a package: what a diagnostic, a
// dependency graph or an API change says it is about.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name,omitempty"`
}

// String returns "Kind name" ("Kind" when there is no name).
func (r *ObjectRef) String() string {
	if r == nil {
		return ""
	}
	if r.Name == "" {
		return r.Kind
	}
	return r.Kind + " " + r.Name
}

// Ref returns the ObjectRef of o; nil when o is nil.
func (o *Object) Ref() *ObjectRef {
	if o == nil {
		return nil
	}
	return &ObjectRef{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.ObjectMeta.Name}
}

// FieldPath formats a field path: FieldPath("spec", "dependsOn", "0",
// "version") is "spec.dependsOn[0].version". Indexes are in brackets, and
// keys holding dots, slashes, brackets, quotes or spaces (or empty keys)
// are quoted in brackets, as in
// metadata.annotations["meta.crossplane.io/license"].
func FieldPath(path ...string) string {
	var b strings.Builder
	for i, e := range path {
		switch {
		case isIndex(e):
			b.WriteString("[" + e + "]")
		case e == "" || strings.ContainsAny(e, `./[]" `):
			b.WriteString("[" + fmt.Sprintf("%q", e) + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e)
		}
	}
	return b.String()
}

// isIndex reports whether s is a list index: decimal digits only.
func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
