package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/jsonfields"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/meta"
	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
	"github.com/xpkgkit/xpkgkit/meta/v1alpha1"
	"github.com/xpkgkit/xpkgkit/meta/v1beta1"
	"github.com/xpkgkit/xpkgkit/parser"
)

// metaType returns the Go type of the meta object of the given version and
// kind, or nil when there is none.
func metaType(version string, kind meta.Kind) reflect.Type {
	var v any
	switch {
	case version == "v1" && kind == meta.KindProvider:
		v = v1.Provider{}
	case version == "v1" && kind == meta.KindConfiguration:
		v = v1.Configuration{}
	case version == "v1" && kind == meta.KindFunction:
		v = v1.Function{}
	case version == "v1alpha1" && kind == meta.KindProvider:
		v = v1alpha1.Provider{}
	case version == "v1alpha1" && kind == meta.KindConfiguration:
		v = v1alpha1.Configuration{}
	case version == "v1beta1" && kind == meta.KindFunction:
		v = v1beta1.Function{}
	default:
		return nil
	}
	return reflect.TypeOf(v)
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// crossplaneConstraintsType decodes itself (it also accepts a bare string)
// but its object form is checked like any struct.
var crossplaneConstraintsType = reflect.TypeFor[v1.CrossplaneConstraints]()

// opaque reports whether values of t decode themselves, so their content
// cannot be checked against struct fields.
func opaque(t reflect.Type) bool {
	if t == crossplaneConstraintsType {
		return false
	}
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || p.Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || p.Implements(textUnmarshaler)
}

type unknownField struct {
	path   []string
	fields map[string]reflect.Type // those of the struct the key is in
}

// unknownFields calls report with each key of v that t does not define,
// depth first in key order, until report returns false; it returns false
// when it stopped.
func unknownFields(v any, t reflect.Type, path []string, report func(unknownField) bool) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if opaque(t) {
		return true
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return true
		}
		fields := jsonfields.Of(t)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				if !report(unknownField{path: join(path, k), fields: fields}) {
					return false
				}
				continue
			}
			if !unknownFields(m[k], ft, join(path, k), report) {
				return false
			}
		}
	case reflect.Map:
		if m, ok := v.(map[string]any); ok {
			// In key order, so that which diagnostics a capped rule keeps
			// does not depend on map iteration.
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if !unknownFields(m[k], t.Elem(), join(path, k), report) {
					return false
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if l, ok := v.([]any); ok {
			for i, e := range l {
				if !unknownFields(e, t.Elem(), join(path, strconv.Itoa(i)), report) {
					return false
				}
			}
		}
	}
	return true
}

// suggestField returns the defined field k was most likely meant to be:
// one equal but for case, or the closest within two edits (ties broken by
// name); "" when none is close.
func suggestField(k string, fields map[string]reflect.Type) string {
	if len(k) > 64 {
		return ""
	}
	best, bestDist := "", 3
	lk := strings.ToLower(k)
	for f := range fields {
		if strings.EqualFold(f, k) {
			return f
		}
		d := editDistance(lk, strings.ToLower(f))
		if d < bestDist || d == bestDist && f < best {
			best, bestDist = f, d
		}
	}
	return best
}

// editDistance returns the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func ruleUnknownField() *linter.Rule {
	return &linter.Rule{
		ID: "XP106", Name: "unknown-field", Severity: linter.SeverityWarning,
		Doc: `A field the meta schema does not define

Crossplane decodes the meta object leniently and drops fields it does not
know, so a typo such as dependson or a field at the wrong level is silently
ignored: the dependency is never installed. This rule compares the meta
object with the fields of its Go type (meta/v1, v1alpha1 or v1beta1),
metadata included, points at each unknown key and suggests the field it
was probably meant to be.`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\nspec:\n  dependson:\n  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: \">=v0.4.0\"\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\nspec:\n  dependsOn:\n  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: \">=v0.4.0\"\n",
		Run: func(p *linter.Pass) error {
			for o := range each(p, p.Package.Meta) {
				gv := schema.FromAPIVersionAndKind(o.APIVersion, o.Kind)
				t := metaType(gv.Version, meta.Kind(gv.Kind))
				if t == nil {
					continue
				}
				var content map[string]any
				if o == p.Meta() {
					m, err := metaMap(p)
					if err != nil {
						return fmt.Errorf("decoding %s: %w", o.Kind, err)
					}
					content = m
				} else {
					u, err := o.Unstructured()
					if err != nil {
						return fmt.Errorf("decoding %s: %w", o.Kind, err)
					}
					content = u.Object
				}
				unknownFields(content, t, nil, func(f unknownField) bool {
					if canceled(p) {
						return false // Lint returns the context's error
					}
					if p.AtCap() {
						p.Reportf(o, f.path, "") // counted, not kept: no need for a message
						return true
					}
					key := f.path[len(f.path)-1]
					parent := "the top level"
					if len(f.path) > 1 {
						parent = parser.FieldPath(f.path[:len(f.path)-1]...)
					}
					msg := fmt.Sprintf("unknown field %s in %s: Crossplane ignores it", quote(key), parent)
					if s := suggestField(key, f.fields); s != "" {
						msg += fmt.Sprintf("; did you mean %s?", quote(s))
					}
					p.Reportf(o, f.path, "%s", msg)
					return true
				})
			}
			return nil
		},
	}
}
