package schema

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/parser"
)

func get(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

func getString(m map[string]any, path ...string) string {
	s, _ := get(m, path...).(string)
	return s
}

func getMap(m map[string]any, path ...string) map[string]any {
	mm, _ := get(m, path...).(map[string]any)
	return mm
}

func getList(m map[string]any, path ...string) []any {
	l, _ := get(m, path...).([]any)
	return l
}

// outlineOf returns the object's outline, or its full content when the
// parser kept none.
func outlineOf(o *parser.Object) map[string]any {
	if m := o.Outline(); m != nil {
		return m
	}
	u, err := o.Unstructured()
	if err != nil {
		return nil
	}
	return u.Object
}

// content decodes an object once per call.
func content(o *parser.Object) (map[string]any, error) {
	u, err := o.Unstructured()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	return u.Object, nil
}

// addCRD indexes every version of a CustomResourceDefinition.
func (v *Validator) addCRD(o *parser.Object) {
	m := outlineOf(o)
	group := getString(m, "spec", "group")
	kind := getString(m, "spec", "names", "kind")
	if group == "" || kind == "" {
		return
	}
	beta := o.GroupVersionKind().Version == "v1beta1"
	def := fmt.Sprintf("CustomResourceDefinition %s", strconv.Quote(bounded(o.ObjectMeta.Name)))
	versions := getList(m, "spec", "versions")
	if len(versions) == 0 && beta {
		if ver := getString(m, "spec", "version"); ver != "" {
			v.add(&entry{
				gvk: schema.GroupVersionKind{Group: group, Version: ver, Kind: kind}, definition: def, served: true,
				build: func() (any, bool, error) { return crdSchema(o, -1, ver) },
			})
		}
		return
	}
	for i, e := range versions {
		em, _ := e.(map[string]any)
		name, _ := em["name"].(string)
		served, _ := em["served"].(bool)
		i, name := i, name
		v.add(&entry{
			gvk: schema.GroupVersionKind{Group: group, Version: name, Kind: kind}, definition: def, served: served,
			build: func() (any, bool, error) { return crdSchema(o, i, name) },
		})
	}
}

// crdSchema returns the openAPIV3Schema of version i (name) of a CRD, and
// whether unknown fields are kept (apiextensions.k8s.io/v1beta1 CRDs keep
// them unless spec.preserveUnknownFields is false).
func crdSchema(o *parser.Object, i int, name string) (any, bool, error) {
	m, err := content(o)
	if err != nil {
		return nil, false, err
	}
	beta := o.GroupVersionKind().Version == "v1beta1"
	preserve := false
	if beta {
		p, ok := get(m, "spec", "preserveUnknownFields").(bool)
		preserve = !ok || p
	}
	if i >= 0 {
		vs := getList(m, "spec", "versions")
		if i < len(vs) {
			if vm, _ := vs[i].(map[string]any); vm != nil && getString(vm, "name") == name {
				if s := get(vm, "schema", "openAPIV3Schema"); s != nil {
					return s, preserve, nil
				}
			}
		}
	}
	if beta {
		if s := get(m, "spec", "validation", "openAPIV3Schema"); s != nil {
			return s, preserve, nil
		}
	}
	return nil, preserve, nil
}
