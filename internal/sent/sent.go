// Package sent models what Crossplane's package manager sends to the API
// server for an object of one of Crossplane's own kinds: not the YAML the
// author wrote, but that YAML decoded into the release's Go type
// (crossplane-runtime pkg/xpkg/parser decodes with the object scheme,
// case-sensitive and dropping fields the type has not) and encoded again
// when the establisher creates it (crossplane
// internal/controller/pkg/revision/establisher.go, APIEstablisher.create;
// the client encodes with encoding/json). A field the YAML leaves out
// whose Go type has no omitempty arrives as its zero value: "" for a
// string, 0, false, {} (with the struct's own zero fields) for a struct,
// null for a nil pointer, slice or map.
//
// The shapes of the Go types are generated from Crossplane's own types at
// each release line (see gen/, run by go generate), never written by hand.
package sent

//go:generate go run -C gen . -o ../zz_generated_types.go

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// nodeKind is how encoding/json treats a Go type.
type nodeKind uint8

const (
	// kindOpaque: a type with its own JSON methods, or any: the value is
	// sent as written.
	kindOpaque nodeKind = iota
	// kindLeaf: a string, bool or number.
	kindLeaf
	// kindPtr: a pointer to elem.
	kindPtr
	// kindSlice: a slice or array of elem.
	kindSlice
	// kindMap: a map of elem.
	kindMap
	// kindStruct: a struct with fields.
	kindStruct
)

// node is one Go type.
type node struct {
	kind   nodeKind
	scalar string // a leaf's JSON type
	elem   int32
	fields []field
}

// field is one JSON field of a struct.
type field struct {
	name      string
	node      int32
	omitEmpty bool
	// omitZero: the field is left out when it holds its zero value
	// (omitzero), a struct too.
	omitZero bool
	// zero is the JSON of the field's zero value, for a field without
	// omitempty or omitzero.
	zero string
}

// release is the table of one release line.
type release struct {
	// source is the Go module, at its version, the table was read from.
	source string
	// kinds maps group/version/Kind to its node.
	kinds map[string]int32
	nodes []node
}

// Lines returns the release lines the table holds, sorted.
func Lines() []string {
	out := make([]string, 0, len(generated))
	for l := range generated {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// Source returns the Go module and version whose types the table holds
// for line, such as "github.com/crossplane/crossplane/apis/v2@v2.4.0", or
// "" when it holds none.
func Source(line string) string {
	if r := generated[line]; r != nil {
		return r.source
	}
	return ""
}

// Typed reports whether release line decodes group/version/kind into a
// Go type of its own.
func Typed(line, group, version, kind string) bool {
	r := generated[line]
	if r == nil {
		return false
	}
	_, ok := r.kinds[group+"/"+version+"/"+kind]
	return ok
}

// maxDropped is how many dropped fields a Report lists.
const maxDropped = 64

// MaxNodes is how many nodes (values and map keys, as the parser counts
// YAML nodes) the sent object may hold: the parser's default per-document
// limit (parser.DefaultLimits MaxNodes). The zero values a round trip adds
// can make an object that parses several times larger (75,000 empty
// pipeline steps become 525,000 nodes); Send stops at MaxNodes with
// ErrTooLarge, so that the work after it stays within what the parser
// admits.
const MaxNodes = 400_000

// ErrTooLarge is the class of Send's error when the sent object would
// hold more than MaxNodes nodes.
var ErrTooLarge = errors.New("the object as sent exceeds the node limit")

// Report says how the sent object differs from the one written.
type Report struct {
	zeroed map[string]string
	// Dropped lists (up to 64 of) the paths of the fields the Go type has
	// none for, which the typed decode drops; DroppedCount counts them
	// all.
	Dropped      [][]string
	DroppedCount int
}

// Zeroed reports whether the field at path (map keys and decimal list
// indexes) is absent (or null) in the YAML and sent as its Go type's zero
// value, and that value's JSON.
func (r *Report) Zeroed(path []string) (string, bool) {
	if r == nil {
		return "", false
	}
	z, ok := r.zeroed[strings.Join(path, "\x00")]
	return z, ok
}

// ZeroedCount is how many fields are sent as their zero value.
func (r *Report) ZeroedCount() int {
	if r == nil {
		return 0
	}
	return len(r.zeroed)
}

// Send returns obj (a decoded YAML or JSON object) as release line's
// package manager sends it when obj is of group, version and kind, and a
// report of what differs; obj is not modified. ok is false when line's
// Go types do not include the kind (the object is sent as written, if at
// all). A value of the wrong type is kept as written: Crossplane's parser
// refuses the package, which other checks report. The work is linear in
// the size of obj; ctx is checked as it goes. An object that would hold
// more than MaxNodes nodes as sent is an error of class ErrTooLarge.
func Send(ctx context.Context, line, group, version, kind string, obj map[string]any) (out map[string]any, rep *Report, ok bool, err error) {
	r := generated[line]
	if r == nil {
		return nil, nil, false, nil
	}
	n, ok := r.kinds[group+"/"+version+"/"+kind]
	if !ok {
		return nil, nil, false, nil
	}
	s := &sender{ctx: ctx, r: r, rep: &Report{zeroed: map[string]string{}}}
	v := s.encode(n, obj)
	if s.err != nil {
		return nil, nil, false, s.err
	}
	m, _ := v.(map[string]any)
	return m, s.rep, true, nil
}

type sender struct {
	ctx   context.Context
	r     *release
	rep   *Report
	path  []string
	steps int
	nodes int
	err   error
}

// count adds n nodes to the sent object, and stops at MaxNodes.
func (s *sender) count(n int) {
	if s.nodes += n; s.nodes > MaxNodes && s.err == nil {
		s.err = fmt.Errorf("%w: more than %d nodes (the YAML's zero values included)", ErrTooLarge, MaxNodes)
	}
}

// countJSON is how many nodes v holds: values, and the keys of maps.
func countJSON(v any) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			n += 1 + countJSON(e)
		}
	case []any:
		for _, e := range x {
			n += countJSON(e)
		}
	}
	return n
}

// encode returns v decoded into node n's Go type and encoded again.
func (s *sender) encode(n int32, v any) any {
	if s.err != nil {
		return v
	}
	s.count(1)
	if s.steps++; s.steps%1024 == 0 {
		if err := s.ctx.Err(); err != nil {
			s.err = err
			return v
		}
	}
	nd := &s.r.nodes[n]
	switch nd.kind {
	case kindPtr:
		return s.encode(nd.elem, v)
	case kindSlice:
		l, ok := v.([]any)
		if !ok {
			return copyJSON(v)
		}
		out := make([]any, len(l))
		for i, e := range l {
			s.path = append(s.path, strconv.Itoa(i))
			out[i] = s.encodeOrZero(nd.elem, e)
			s.path = s.path[:len(s.path)-1]
		}
		return out
	case kindMap:
		m, ok := v.(map[string]any)
		if !ok {
			return copyJSON(v)
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			s.count(1)
			s.path = append(s.path, k)
			out[k] = s.encodeOrZero(nd.elem, e)
			s.path = s.path[:len(s.path)-1]
		}
		return out
	case kindStruct:
		m, ok := v.(map[string]any)
		if !ok {
			return copyJSON(v)
		}
		return s.encodeStruct(nd, m)
	}
	c := copyJSON(v)
	s.count(countJSON(c) - 1)
	return c
}

// encodeOrZero is encode, but a null element of a list or map decodes as
// the element type's zero value.
func (s *sender) encodeOrZero(n int32, v any) any {
	if v != nil {
		return s.encode(n, v)
	}
	switch s.r.nodes[n].kind {
	case kindStruct:
		return s.encode(n, map[string]any{})
	case kindLeaf:
		switch s.r.nodes[n].scalar {
		case "string":
			return ""
		case "bool":
			return false
		}
		return int64(0)
	}
	return nil
}

func (s *sender) encodeStruct(nd *node, m map[string]any) map[string]any {
	out := make(map[string]any, len(nd.fields))
	for i := range nd.fields {
		f := &nd.fields[i]
		s.path = append(s.path, f.name)
		v, present := m[f.name]
		switch {
		case present && v != nil:
			s.count(1)
			e := s.encode(f.node, v)
			if !(f.omitEmpty && s.empty(f.node, e) || f.omitZero && s.zero(f.node, e)) {
				out[f.name] = e
			}
		case f.omitZero:
			// Absent: the zero value, left out.
		case !f.omitEmpty:
			// Absent, or null (which decodes as no value): the zero
			// value's encoding.
			var z any
			if err := json.Unmarshal([]byte(f.zero), &z); err == nil {
				s.count(1 + countJSON(z))
				out[f.name] = z
				s.rep.zeroed[strings.Join(s.path, "\x00")] = f.zero
			}
		case s.r.nodes[f.node].kind == kindStruct:
			// encoding/json's omitempty never leaves out a struct: an
			// absent one is sent with its own zero fields.
			s.count(1)
			z := s.encode(f.node, map[string]any{})
			out[f.name] = z
			if b, err := json.Marshal(z); err == nil {
				s.rep.zeroed[strings.Join(s.path, "\x00")] = string(b)
			}
		}
		s.path = s.path[:len(s.path)-1]
	}
	for k := range m {
		if !nd.has(k) {
			s.rep.DroppedCount++
			if len(s.rep.Dropped) < maxDropped {
				s.rep.Dropped = append(s.rep.Dropped, append(append([]string(nil), s.path...), k))
			}
		}
	}
	return out
}

func (nd *node) has(name string) bool {
	for i := range nd.fields {
		if nd.fields[i].name == name {
			return true
		}
	}
	return false
}

// empty reports whether encoding/json's omitempty leaves out encoded
// value e of node n: false, 0, "", nil, and empty lists, maps and strings
// (never a struct).
func (s *sender) empty(n int32, e any) bool {
	nd := &s.r.nodes[n]
	switch nd.kind {
	case kindPtr:
		return e == nil
	case kindSlice:
		l, ok := e.([]any)
		return e == nil || ok && len(l) == 0
	case kindMap:
		m, ok := e.(map[string]any)
		return e == nil || ok && len(m) == 0
	case kindLeaf:
		switch x := e.(type) {
		case string:
			return x == ""
		case bool:
			return !x
		case int64:
			return x == 0
		case int:
			return x == 0
		case float64:
			return x == 0
		case json.Number:
			f, err := x.Float64()
			return err == nil && f == 0
		}
	}
	return e == nil
}

// zero reports whether omitzero leaves out encoded value e of node n:
// the scalars' zero values and nil (an empty list or map is no zero
// value). A struct written with only zero fields is kept, as is any
// value of a type with its own IsZero method: the table does not model
// them, and Crossplane's kinds use omitzero only on such a type
// (apimachinery's ObjectMeta.CreationTimestamp, a metav1.Time).
func (s *sender) zero(n int32, e any) bool {
	switch s.r.nodes[n].kind {
	case kindLeaf:
		return s.empty(n, e)
	}
	return e == nil
}

// copyJSON copies a decoded JSON value, so that validating the sent
// object (which prunes and defaults it in place) leaves the written one
// as it was.
func copyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyJSON(e)
		}
		return out
	}
	return v
}
