package schema

import (
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The type trees of the package kinds, as tables generated from the
// embedded schemas (kindtypes_table.go; regenerate with
// `go test ./linter/schema -run TestKindTypeTables -update`). WithTypesOnly
// checks of a package kind walk them, so that the lint of a small package
// does not pay for decoding and compiling the kinds' schemas, which only
// a full validation needs. TestKindTypeTables proves them equal to the
// trees compiled from the schemas.

// kindTypeKind is one kind of the tables: its root node, and what a full
// compile of its schema reports as left out.
type kindTypeKind struct {
	group, version, kind string
	source               string // the definition, as Result.Definition names it
	root                 int32  // index in kindTypeNodes; 0: no schema
	cel                  int
	skipped              []string
}

// kindTypeNode is one tnode: its types, space-separated, and its children
// by index in kindTypeNodes (0: none).
type kindTypeNode struct {
	types      string
	props      []kindTypeProp
	additional int32
	items      int32
}

type kindTypeProp struct {
	name string
	node int32
}

// kindTree is the type tree of one kind of the tables.
type kindTree struct {
	root    *tnode // nil: the kind has no schema
	cel     int
	skipped []string
}

// kindTypes builds the trees of the tables, once.
var kindTypes = sync.OnceValue(func() map[schema.GroupVersionKind]kindTree {
	nodes := make([]tnode, len(kindTypeNodes))
	at := func(i int32) *tnode {
		if i == 0 {
			return nil
		}
		return &nodes[i]
	}
	for i := 1; i < len(kindTypeNodes); i++ {
		t, n := &kindTypeNodes[i], &nodes[i]
		if t.types != "" {
			n.types = strings.Fields(t.types)
			n.mask = kindsOf(n.types)
		}
		if len(t.props) > 0 {
			n.props = make(map[string]*tnode, len(t.props))
			for _, p := range t.props {
				n.props[p.name] = at(p.node)
			}
		}
		n.additional, n.items = at(t.additional), at(t.items)
		n.typed = len(n.props) > 0 || n.additional != nil || n.items != nil
		n.isAny = len(n.types) == 0 && !n.typed
	}
	trees := make(map[schema.GroupVersionKind]kindTree, len(kindTypeKinds))
	for _, k := range kindTypeKinds {
		gvk := schema.GroupVersionKind{Group: k.group, Version: k.version, Kind: k.kind}
		trees[gvk] = kindTree{root: at(k.root), cel: k.cel, skipped: k.skipped}
	}
	return trees
})
