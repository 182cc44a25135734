package schema

import (
	"strconv"
	"strings"
	"sync"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// tnode is the type tree WithTypesOnly checks against: at each field, the JSON
// types allowed. It mirrors kube-openapi's type check (an integral number
// is an integer; an integer is a number) without building validators, so
// that a linter can type-check thousands of objects cheaply. Nodes of
// definitions refer to each other, cycles included.
//
// The tree is built once per kind (entry.compile) and walked for every
// object: the walk compares bit masks rather than type names, and builds
// no path unless it reports a violation.
type tnode struct {
	types      []string // empty: any type
	mask       jsonKind // the kinds types allows (integer within number); 0 when types is empty
	props      map[string]*tnode
	additional *tnode
	items      *tnode
	typed      bool // props, additional or items is set
	isAny      bool // no types and nothing typed below: accepts anything
}

// jsonKind is a set of JSON types, one bit each.
type jsonKind uint8

const (
	kindNull jsonKind = 1 << iota
	kindBoolean
	kindString
	kindInteger
	kindNumber // a non-integral number
	kindObject
	kindArray
	kindOther // a Go value of no JSON type
)

// kindsOf returns the kinds a schema's type names allow.
func kindsOf(types []string) jsonKind {
	var m jsonKind
	for _, t := range types {
		switch t {
		case "null":
			m |= kindNull
		case "boolean":
			m |= kindBoolean
		case "string":
			m |= kindString
		case "integer":
			m |= kindInteger
		case "number":
			m |= kindNumber | kindInteger
		case "object":
			m |= kindObject
		case "array":
			m |= kindArray
		}
	}
	return m
}

// kindOf returns the JSON kind of a decoded value; jsonType names it.
func kindOf(v any) jsonKind {
	switch x := v.(type) {
	case nil:
		return kindNull
	case bool:
		return kindBoolean
	case string:
		return kindString
	case int, int32, int64, uint, uint32, uint64:
		return kindInteger
	case float32:
		return kindNumber
	case float64:
		if x == float64(int64(x)) {
			return kindInteger
		}
		return kindNumber
	case map[string]any:
		return kindObject
	case []any:
		return kindArray
	}
	return kindOther
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
	n := &tnode{types: s.Type, mask: kindsOf(s.Type)}
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
	n.typed = len(n.props) > 0 || n.additional != nil || n.items != nil
	n.isAny = len(n.types) == 0 && !n.typed
	return n
}

// allows reports whether n allows a value of kind k: null always is.
func (n *tnode) allows(k jsonKind) bool {
	return len(n.types) == 0 || k == kindNull || n.mask&k != 0
}

// pathElem is one step of the path a type check walks: a mapping key when
// index is negative, else a list index.
type pathElem struct {
	key   string
	index int
}

// typeChecker walks values against a type tree. path is a stack the walk
// pushes and pops; it is turned into a Violation's path only when one is
// reported.
type typeChecker struct {
	path []pathElem
	out  *[]Violation
	cut  bool
}

// typeCheck walks v against n, appending a violation for each value of a
// type n does not allow. It sets *cut when it meets an empty mapping or
// list below the top level where n defines typed fields: v may be an
// outline cut short there.
func typeCheck(v any, n *tnode, out *[]Violation, cut *bool) {
	if n == nil || v == nil || n.isAny {
		return
	}
	c := checkers.Get().(*typeChecker)
	c.out, c.cut = out, false
	c.check(v, n)
	if c.cut {
		*cut = true
	}
	c.path, c.out = c.path[:0], nil
	checkers.Put(c)
}

// checkers keeps the path stacks of type walks, so that a walk allocates
// nothing unless it reports a violation.
var checkers = sync.Pool{New: func() any { return &typeChecker{path: make([]pathElem, 0, 16)} }}

// check walks v against n, neither nil, n not any. One type switch decides
// both the value's kind and how to descend: the walk visits every node of
// thousands of outlines per lint.
func (c *typeChecker) check(v any, n *tnode) {
	switch x := v.(type) {
	case map[string]any:
		if len(n.types) != 0 && n.mask&kindObject == 0 {
			c.report(v, n)
			return
		}
		if !n.typed {
			return // nothing below is typed
		}
		if len(x) == 0 {
			c.cut = c.cut || len(c.path) > 0
			return
		}
		for key, e := range x {
			s, ok := n.props[key]
			if !ok {
				s = n.additional
			}
			if s == nil || e == nil || s.isAny {
				continue
			}
			c.path = append(c.path, pathElem{key: key, index: -1})
			c.check(e, s)
			c.path = c.path[:len(c.path)-1]
		}
	case []any:
		if len(n.types) != 0 && n.mask&kindArray == 0 {
			c.report(v, n)
			return
		}
		if n.items == nil {
			return
		}
		if len(x) == 0 && len(c.path) > 0 {
			c.cut = true
		}
		if n.items.isAny {
			return
		}
		for i, e := range x {
			if e == nil {
				continue
			}
			c.path = append(c.path, pathElem{index: i})
			c.check(e, n.items)
			c.path = c.path[:len(c.path)-1]
		}
	case string:
		if len(n.types) != 0 && n.mask&kindString == 0 {
			c.report(v, n)
		}
	default:
		if !n.allows(kindOf(v)) {
			c.report(v, n)
		}
	}
}

// report records that v is not of a type n allows, at the current path.
func (c *typeChecker) report(v any, n *tnode) {
	path := make([]string, len(c.path))
	for i, p := range c.path {
		if p.index < 0 {
			path[i] = p.key
		} else {
			path[i] = strconv.Itoa(p.index)
		}
	}
	exp := strings.Join(n.types, " or ")
	t := jsonType(v)
	*c.out = append(*c.out, Violation{Path: path, Kind: KindType, Expected: exp, Found: t, Message: "want " + exp + ", found " + t})
}
