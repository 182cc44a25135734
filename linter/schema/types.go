package schema

import (
	"strconv"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// tnode is the type tree TypesOnly checks against: at each field, the JSON
// types allowed. It mirrors kube-openapi's type check (an integral number
// is an integer; an integer is a number) without building validators, so
// that a linter can type-check thousands of objects cheaply. Nodes of
// definitions refer to each other, cycles included.
type tnode struct {
	types      []string // empty: any type
	props      map[string]*tnode
	additional *tnode
	items      *tnode
}

// typeTree builds the type tree of s; defs resolves $refs.
func typeTree(s *spec.Schema, defs map[string]*spec.Schema, memo map[string]*tnode) *tnode {
	if s == nil {
		return nil
	}
	if ref := s.Ref.String(); ref != "" {
		name := ref[strings.LastIndex(ref, "/")+1:]
		if n, ok := memo[name]; ok {
			return n
		}
		d, ok := defs[name]
		if !ok {
			return nil
		}
		n := &tnode{}
		memo[name] = n
		*n = *typeTree(d, defs, memo)
		return n
	}
	n := &tnode{types: s.Type}
	for name, p := range s.Properties {
		if n.props == nil {
			n.props = make(map[string]*tnode, len(s.Properties))
		}
		p := p
		n.props[name] = typeTree(&p, defs, memo)
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		n.additional = typeTree(ap.Schema, defs, memo)
	}
	if it := s.Items; it != nil && it.Schema != nil {
		n.items = typeTree(it.Schema, defs, memo)
	}
	return n
}

func (n *tnode) allows(t string) bool {
	if len(n.types) == 0 {
		return true
	}
	for _, x := range n.types {
		if x == t || t == "integer" && x == "number" || t == "null" {
			return true
		}
	}
	return false
}

// any reports whether n accepts anything at all.
func (n *tnode) any() bool { return len(n.types) == 0 && !n.hasTypedChildren() }

// hasTypedChildren reports whether anything below n is typed.
func (n *tnode) hasTypedChildren() bool {
	return len(n.props) > 0 || n.additional != nil || n.items != nil
}

// typeCheck walks v against n, appending a violation for each value of a
// type n does not allow. It sets *cut when it meets an empty mapping or
// list below the top level where n defines typed fields: v may be an
// outline cut short there.
//
// path is a stack the walk pushes and pops: violations copy it.
func typeCheck(v any, n *tnode, path []string, out *[]Violation, cut *bool) {
	if n == nil || v == nil || n.any() {
		return
	}
	t := jsonType(v)
	if !n.allows(t) {
		exp := strings.Join(n.types, " or ")
		*out = append(*out, Violation{Path: clonePath(path), Kind: KindType, Expected: exp, Found: t, Message: "want " + exp + ", found " + t})
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 && len(path) > 0 && n.hasTypedChildren() {
			*cut = true
		}
		for k, e := range x {
			c, ok := n.props[k]
			if !ok {
				c = n.additional
			}
			typeCheck(e, c, append(path, k), out, cut)
		}
	case []any:
		if len(x) == 0 && len(path) > 0 && n.items != nil {
			*cut = true
		}
		for i, e := range x {
			typeCheck(e, n.items, append(path, strconv.Itoa(i)), out, cut)
		}
	}
}
