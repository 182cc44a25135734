package parser

import (
	"go.yaml.in/yaml/v3"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/limit"
)

// check walks a parsed document once, before anything is built from it: it
// enforces MaxDepth before deeper recursion, measures what alias expansion
// would add (without expanding) against MaxAliasExpansion, and records
// duplicate keys. Conversions that follow can then trust the tree.
type checker struct {
	lim    Limits
	memo   map[*yaml.Node]extent // expanded size of anchored nodes
	active map[*yaml.Node]bool   // anchored nodes being measured (cycles)
	added  int64                 // nodes aliases add
	bytes  int64                 // scalar bytes aliases add
	loc    locator
	dups   *dupRecorder // where duplicate keys go; nil not to look for them
}

type extent struct {
	size   int64 // nodes, aliases expanded
	bytes  int64 // scalar bytes, aliases expanded
	height int   // container nesting, aliases expanded
}

func (c *checker) check(root *yaml.Node) error {
	_, err := c.walk(root, 1)
	return err
}

func (c *checker) limitErr(name limit.Name, max int64, n *yaml.Node) error {
	return c.loc.errAt(n, limitErr(name, max, Position{}))
}

// walk returns the extent of n, whose containers sit at depth.
func (c *checker) walk(n *yaml.Node, depth int) (extent, error) {
	switch n.Kind {
	case yaml.AliasNode:
		t := n.Alias
		if t == nil {
			return extent{}, c.loc.errorf(n, "%w: unknown anchor %q", ErrSyntax, n.Value)
		}
		if c.active[t] {
			return extent{}, c.loc.errorf(n, "%w: anchor %q contains itself", ErrSyntax, n.Value)
		}
		e, ok := c.memo[t]
		if !ok {
			// An alias to an anchor not measured yet (it encloses this alias's
			// parent in a cycle-free way, or comes from a merge): measure it.
			var err error
			if e, err = c.walk(t, depth); err != nil {
				return extent{}, err
			}
		}
		if c.lim.MaxDepth > 0 && depth-1+e.height > c.lim.MaxDepth {
			return extent{}, c.limitErr(limitval.MaxDepth, int64(c.lim.MaxDepth), n)
		}
		c.added += e.size
		if c.lim.MaxAliasExpansion > 0 && c.added > int64(c.lim.MaxAliasExpansion) {
			return extent{}, c.limitErr(limitval.MaxAliasExpansion, int64(c.lim.MaxAliasExpansion), n)
		}
		// Few nodes can still expand to many bytes (a large scalar aliased
		// a few thousand times): the document, expanded, must fit
		// MaxDocumentBytes, or converting it would allocate without bound.
		c.bytes += e.bytes
		if c.lim.MaxDocumentBytes > 0 && int64(len(c.loc.data))+c.bytes > c.lim.MaxDocumentBytes {
			return extent{}, c.limitErr(limitval.MaxDocumentBytes, c.lim.MaxDocumentBytes, n)
		}
		return e, nil
	case yaml.ScalarNode:
		return extent{size: 1, bytes: int64(len(n.Value))}, nil
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return extent{}, nil
		}
		return c.walk(n.Content[0], depth)
	case yaml.MappingNode, yaml.SequenceNode:
	default:
		return extent{}, c.loc.errorf(n, "%w: unexpected node", ErrSyntax)
	}
	if c.lim.MaxDepth > 0 && depth > c.lim.MaxDepth {
		return extent{}, c.limitErr(limitval.MaxDepth, int64(c.lim.MaxDepth), n)
	}
	if n.Anchor != "" {
		if c.active == nil {
			c.active = map[*yaml.Node]bool{}
			c.memo = map[*yaml.Node]extent{}
		}
		c.active[n] = true
		defer delete(c.active, n)
	}
	e := extent{size: 1}
	for _, ch := range n.Content {
		ce, err := c.walk(ch, depth+1)
		if err != nil {
			return extent{}, err
		}
		e.size += ce.size
		e.bytes += ce.bytes
		if ce.height+1 > e.height {
			e.height = ce.height + 1
		}
	}
	if e.height == 0 {
		e.height = 1
	}
	if n.Kind == yaml.MappingNode && c.dups != nil {
		duplicateKeys(n, c.dups)
	}
	if n.Anchor != "" {
		c.memo[n] = e
	}
	return e, nil
}

// duplicateKeys records in r each key of mapping n whose text repeats
// an earlier key's, with that earlier key (the one it overrides), in
// linear time: pairwise for small mappings, with a map for large ones.
// Merge keys (<<) are not keys. Keys that differ in text but convert to the
// same string (0x1 and 1) are not found; the conversion lets the last one
// win all the same.
func duplicateKeys(n *yaml.Node, r *dupRecorder) {
	kv := n.Content
	if len(kv) <= 32 {
		for i := 2; i+1 < len(kv); i += 2 {
			k := kv[i]
			if k.Kind != yaml.ScalarNode || k.Tag == tagMerge {
				continue
			}
			for j := i - 2; j >= 0; j -= 2 {
				if o := kv[j]; o.Kind == yaml.ScalarNode && o.Value == k.Value && o.Tag != tagMerge {
					r.add(o, k)
					break
				}
			}
		}
		return
	}
	seen := make(map[string]*yaml.Node, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i]
		if k.Kind != yaml.ScalarNode || k.Tag == tagMerge {
			continue
		}
		if prev, dup := seen[k.Value]; dup {
			r.add(prev, k)
		}
		seen[k.Value] = k
	}
}

// converter turns a checked node tree into JSON-compatible values:
// map[string]any, []any, string, bool, int64, float64 and nil. Containers
// nested deeper than maxDepth (when it is >= 0) are returned empty.
type converter struct {
	maxDepth int
	loc      locator
}

func (c converter) value(n *yaml.Node, depth int) (any, error) {
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, c.loc.errorf(n, "%w: unknown anchor %q", ErrSyntax, n.Value)
		}
		return c.value(n.Alias, depth)
	case yaml.ScalarNode:
		v, err := scalarValue(n)
		if err != nil {
			return nil, c.loc.errAt(n, err)
		}
		return v, nil
	case yaml.MappingNode:
		return c.mapping(n, depth)
	case yaml.SequenceNode:
		if c.maxDepth >= 0 && depth > c.maxDepth {
			return []any{}, nil
		}
		s := make([]any, len(n.Content))
		for i, ch := range n.Content {
			v, err := c.value(ch, depth+1)
			if err != nil {
				return nil, err
			}
			s[i] = v
		}
		return s, nil
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], depth)
	}
	return nil, c.loc.errorf(n, "%w: unexpected node", ErrSyntax)
}

func (c converter) mapping(n *yaml.Node, depth int) (map[string]any, error) {
	if c.maxDepth >= 0 && depth > c.maxDepth {
		return map[string]any{}, nil
	}
	m := make(map[string]any, len(n.Content)/2)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if isMerge(k) {
			merges = append(merges, v)
			continue
		}
		ks, err := keyString(k)
		if err != nil {
			return nil, c.loc.errAt(k, err)
		}
		// A key given twice: the last value wins, as in sigs.k8s.io/yaml's
		// conversion (the check recorded it).
		if m[ks], err = c.value(v, depth+1); err != nil {
			return nil, err
		}
	}
	// Merged keys (<<: *anchor) never override the mapping's own keys; of
	// several merged mappings the first wins, and a merged mapping's own
	// merges come after it. Each mapping is merged once.
	var seen map[*yaml.Node]bool
	for len(merges) > 0 {
		var next []*yaml.Node
		for _, src := range merges {
			for _, sm := range mergeSources(src) {
				if seen[sm] {
					continue
				}
				if seen == nil {
					seen = map[*yaml.Node]bool{n: true}
				}
				seen[sm] = true
				for i := 0; i+1 < len(sm.Content); i += 2 {
					k := sm.Content[i]
					if isMerge(k) {
						next = append(next, sm.Content[i+1])
						continue
					}
					ks, err := keyString(k)
					if err != nil {
						return nil, c.loc.errAt(k, err)
					}
					if _, ok := m[ks]; ok {
						continue
					}
					if m[ks], err = c.value(sm.Content[i+1], depth+1); err != nil {
						return nil, err
					}
				}
			}
		}
		merges = next
	}
	return m, nil
}

func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Tag == tagMerge && k.Value == "<<"
}

// mergeSources returns the mappings a merge key's value names: a mapping, an
// alias of one, or a sequence of those. Other values merge nothing.
func mergeSources(v *yaml.Node) []*yaml.Node {
	deref := func(n *yaml.Node) *yaml.Node {
		for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
			n = n.Alias
		}
		return n
	}
	v = deref(v)
	if v == nil {
		return nil
	}
	switch v.Kind {
	case yaml.MappingNode:
		return []*yaml.Node{v}
	case yaml.SequenceNode:
		var out []*yaml.Node
		for _, ch := range v.Content {
			if ch = deref(ch); ch != nil && ch.Kind == yaml.MappingNode {
				out = append(out, ch)
			}
		}
		return out
	}
	return nil
}
