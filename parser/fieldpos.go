package parser

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// reparse parses the object's raw bytes again, checked against the limits
// of the parse that produced the object.
func (o *Object) reparse() (*yaml.Node, locator, error) {
	return o.reparseBytes(o.raw.bytes())
}

// reparseBytes is reparse of raw, the object's raw bytes.
func (o *Object) reparseBytes(raw []byte) (*yaml.Node, locator, error) {
	// Positions name the file the object's Pos names: a caller that
	// renames it (xpkg joins the examples directory to its files' names)
	// gets field positions in the same file.
	base := o.dataPos
	base.File = o.Pos.File
	loc := locator{data: raw, base: base}
	if raw == nil {
		return nil, loc, fmt.Errorf("parser: %s %q: %w", o.Kind, o.ObjectMeta.Name, ErrNoRaw)
	}
	lim := DefaultLimits()
	if o.dec != nil {
		lim = o.dec.limits
	}
	root, err := parseNode(loc, lim)
	if err != nil {
		return nil, loc, err
	}
	if root == nil {
		return nil, loc, loc.errorf(nil, "%w: empty document", ErrNotObject)
	}
	return deref(root), loc, nil
}

func (o *Object) decodeUnstructured() (*unstructured.Unstructured, error) {
	// A document in the fast path's subset of YAML is read in one pass
	// over its lines, without go-yaml's node tree (most CRDs of a
	// provider; BenchmarkUnstructured: about a third of the time and 40%
	// of the allocations of the full parse). The parse
	// that made the object checked its line breaks and node count against
	// the same limits; the fast path checks the depth.
	//
	// Whether the fast path reads the document was decided by the parse
	// that made the object (o.fast): any other document goes to the full
	// parse at once. Trying the fast path on every document would make
	// each one it gives up on pay both: the scan of all its lines
	// (fastLines) before the full parse, on every call, and a rule may
	// ask for the same large document many times.
	raw := o.raw.bytes()
	if d := o.dec; o.fast && d != nil && raw != nil {
		if m, ok := fastContent(raw, d.limits.MaxDepth); ok {
			return &unstructured.Unstructured{Object: m}, nil
		}
	}
	root, loc, err := o.reparseBytes(raw)
	if err != nil {
		return nil, err
	}
	return toUnstructured(root, loc)
}

// toUnstructured converts a parsed document to its content.
func toUnstructured(root *yaml.Node, loc locator) (*unstructured.Unstructured, error) {
	if root.Kind != yaml.MappingNode {
		return nil, loc.errorf(root, "%w: found a %s", ErrNotObject, kindName(root))
	}
	m, err := converter{maxDepth: -1, loc: loc}.mapping(root, 0)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// FieldLocator answers FieldPosition for many paths of one object from a
// single parse of its raw bytes: asking an Object for each position parses
// the document again each time, which is quadratic for a rule reporting on
// every entry of a long list. A FieldLocator holds the parsed document (up
// to about 100 times its size in memory): drop it when done with the
// object.
type FieldLocator struct {
	root *yaml.Node
	loc  locator
	// index holds the keys of the wide mappings looked up so far, so that
	// many lookups in one mapping cost its size once, not once each.
	index map[*yaml.Node]*keyIndex
}

// keyIndex is the index of a mapping's own keys: the position in Content
// of the last key of each name (the last wins, as in findKey), and whether
// the mapping merges others (<<).
type keyIndex struct {
	keys   map[string]int
	merges bool
}

// wideMapping is how many entries a mapping has before FieldLocator
// indexes its keys.
const wideMapping = 32

// findKey is findKey, through an index for wide mappings.
func (l *FieldLocator) findKey(m *yaml.Node, name string) (key, val *yaml.Node) {
	if len(m.Content) < 2*wideMapping {
		return findKey(m, name)
	}
	x := l.index[m]
	if x == nil {
		x = &keyIndex{keys: make(map[string]int, len(m.Content)/2)}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k := m.Content[i]
			if isMerge(k) {
				x.merges = true
				continue
			}
			if ks, err := keyString(k); err == nil {
				x.keys[ks] = i
			}
		}
		if l.index == nil {
			l.index = map[*yaml.Node]*keyIndex{}
		}
		l.index[m] = x
	}
	if i, ok := x.keys[name]; ok {
		return m.Content[i], m.Content[i+1]
	}
	if !x.merges {
		return nil, nil
	}
	return findKey(m, name)
}

// FieldLocator parses the object's raw bytes once, checked against the
// limits of the parse that produced the object, and returns a locator for
// its fields. It fails as FieldPosition does when the bytes were not kept
// (ErrNoRaw).
func (o *Object) FieldLocator() (*FieldLocator, error) {
	root, loc, err := o.reparse()
	if err != nil {
		return nil, err
	}
	loc.indexLines()
	return &FieldLocator{root: root, loc: loc}, nil
}

// Unstructured returns the object's content, as Object.Unstructured does,
// from the locator's parse: a caller that needs both the content and the
// positions of its fields parses the bytes once.
func (l *FieldLocator) Unstructured() (*unstructured.Unstructured, error) {
	return toUnstructured(l.root, l.loc)
}

// FieldPosition is Object.FieldPosition without parsing the object again.
func (l *FieldLocator) FieldPosition(path ...string) (Position, error) {
	return fieldPositionWith(l.root, l.loc, path, l.findKey)
}

func (o *Object) fieldPosition(path []string) (Position, error) {
	root, loc, err := o.reparse()
	if err != nil {
		return Position{}, err
	}
	return fieldPositionIn(root, loc, path)
}

func fieldPositionIn(root *yaml.Node, loc locator, path []string) (Position, error) {
	return fieldPositionWith(root, loc, path, findKey)
}

// fieldPositionWith is fieldPositionIn with the mapping lookup given.
func fieldPositionWith(root *yaml.Node, loc locator, path []string, findKey func(*yaml.Node, string) (key, val *yaml.Node)) (Position, error) {
	n := root
	for i, elem := range path {
		n = deref(n)
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			key, val := findKey(n, elem)
			if key != nil && i == len(path)-1 {
				return loc.node(key), nil
			}
			next = val
		case yaml.SequenceNode:
			idx, err := strconv.Atoi(elem)
			if err == nil && idx >= 0 && idx < len(n.Content) {
				next = n.Content[idx]
			}
		}
		if next == nil {
			return Position{}, fmt.Errorf("%w: %s", ErrFieldNotFound, strings.Join(path[:i+1], "."))
		}
		n = next
	}
	return loc.node(n), nil
}

// deref follows aliases (a bounded number of times: aliases of aliases are
// rare, and cycles are refused before this runs).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 8; i++ {
		n = n.Alias
	}
	return n
}

// findKey finds the entry named name in a mapping: its own keys first (the
// last of a key given twice), then those of the mappings it merges (<<),
// breadth first, each mapping
// searched once however often it is merged, so crafted merges cannot make
// it slow.
func findKey(m *yaml.Node, name string) (key, val *yaml.Node) {
	queue := []*yaml.Node{m}
	var seen map[*yaml.Node]bool
	for len(queue) > 0 {
		m, queue = queue[0], queue[1:]
		merges := false
		// Of a key given twice, the last wins, as in the conversion.
		for i := len(m.Content) - 2; i >= 0; i -= 2 {
			k := m.Content[i]
			if isMerge(k) {
				merges = true
				continue
			}
			if keyEquals(k, name) {
				return k, m.Content[i+1]
			}
		}
		if !merges {
			continue
		}
		if seen == nil {
			seen = map[*yaml.Node]bool{}
		}
		seen[m] = true
		for i := 0; i+1 < len(m.Content); i += 2 {
			if !isMerge(m.Content[i]) {
				continue
			}
			for _, src := range mergeSources(m.Content[i+1]) {
				if !seen[src] {
					seen[src] = true
					queue = append(queue, src)
				}
			}
		}
	}
	return nil, nil
}

// keyEquals reports whether key k converts to the string name.
func keyEquals(k *yaml.Node, name string) bool {
	ks, err := keyString(k)
	return err == nil && ks == name
}
