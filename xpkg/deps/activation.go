package deps

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/target"
	"github.com/xpkgkit/xpkgkit/parser"
)

// mrap is what the activation rules keep of a
// ManagedResourceActivationPolicy.
type mrap struct {
	Name    string
	Object  *parser.ObjectRef
	Entries []mrapEntry
}

// mrapEntry is one spec.activate entry.
type mrapEntry struct {
	Pattern string
	Pos     parser.Position
	Field   string
}

// maxActivations bounds the entries kept of one MRAP.
const maxActivations = 50_000

// mrapOf reads an MRAP's spec.activate entries with their positions.
func mrapOf(o *parser.Object, pos func(parser.Position) parser.Position) (mrap, bool) {
	m := mrap{Name: o.Name, Object: o.Ref()}
	loc, err := o.FieldLocator()
	if err != nil {
		return m, false
	}
	u, err := loc.Unstructured()
	if err != nil {
		return m, false
	}
	spec, _ := u.Object["spec"].(map[string]any)
	list, _ := spec["activate"].([]any)
	for i, a := range list {
		if i == maxActivations {
			break
		}
		p, ok := a.(string)
		if !ok {
			continue
		}
		idx := strconv.Itoa(i)
		e := mrapEntry{Pattern: p, Pos: pos(o.Pos), Field: parser.FieldPath("spec", "activate", idx)}
		if fp, err := loc.FieldPosition("spec", "activate", idx); err == nil {
			e.Pos = pos(fp)
		}
		m.Entries = append(m.Entries, e)
	}
	return m, true
}

// activationIndex answers which activation patterns match an MRD name, as
// Crossplane matches them (filepath.Match, apis/apiextensions/v1alpha1
// ActivationPolicy.Match), in time linear in the name for the patterns
// people write: exact names, "*" + suffix ("*.aws.upbound.io") and
// prefix + "*". Any other glob is matched one by one, within a budget of
// comparisons (MaxActivationChecks), past which the index reports that it
// cannot answer.
type activationIndex struct {
	exact    map[string]int // pattern → id
	suffixes *trie          // reversed suffixes of "*suffix" patterns
	prefixes *trie          // prefixes of "prefix*" patterns
	globs    []string       // others, matched one by one
	globIDs  []int
	patterns []string // id → pattern
	checks   int
}

// trie is a byte trie in two flat tables, so that 10,000 patterns of
// about 20 bytes weigh a few MiB: ids[n] is the id of the pattern ending
// at node n (-1 for none), and edges maps node<<8|byte to the child.
type trie struct {
	ids   []int32
	edges map[uint64]int32
}

func newTrie() *trie { return &trie{ids: []int32{-1}, edges: map[uint64]int32{}} }

func (t *trie) insert(key string, reverse bool, id int) {
	n := int32(0)
	for i := range len(key) {
		b := key[i]
		if reverse {
			b = key[len(key)-1-i]
		}
		e := uint64(n)<<8 | uint64(b)
		c, ok := t.edges[e]
		if !ok {
			c = int32(len(t.ids))
			t.ids = append(t.ids, -1)
			t.edges[e] = c
		}
		n = c
	}
	if t.ids[n] < 0 {
		t.ids[n] = int32(id)
	}
}

// walk calls fn with the id of every pattern ending along key.
func (t *trie) walk(key string, reverse bool, fn func(id int)) {
	n := int32(0)
	if id := t.ids[0]; id >= 0 {
		fn(int(id))
	}
	for i := range len(key) {
		b := key[i]
		if reverse {
			b = key[len(key)-1-i]
		}
		c, ok := t.edges[uint64(n)<<8|uint64(b)]
		if !ok {
			return
		}
		n = c
		if id := t.ids[n]; id >= 0 {
			fn(int(id))
		}
	}
}

const globMeta = `*?[\`

// newActivationIndex indexes the distinct patterns; id returns, for each
// pattern given, its id in the index.
func newActivationIndex(patterns []string) (x *activationIndex, ids []int) {
	x = &activationIndex{exact: map[string]int{}, suffixes: newTrie(), prefixes: newTrie()}
	seen := map[string]int{}
	ids = make([]int, len(patterns))
	for i, p := range patterns {
		if id, ok := seen[p]; ok {
			ids[i] = id
			continue
		}
		id := len(x.patterns)
		x.patterns = append(x.patterns, p)
		seen[p] = id
		ids[i] = id
		switch {
		case !strings.ContainsAny(p, globMeta):
			x.exact[p] = id
		case strings.HasPrefix(p, "*") && !strings.ContainsAny(p[1:], globMeta):
			x.suffixes.insert(p[1:], true, id)
		case strings.HasSuffix(p, "*") && !strings.ContainsAny(p[:len(p)-1], globMeta):
			x.prefixes.insert(p[:len(p)-1], false, id)
		default:
			x.globs = append(x.globs, p)
			x.globIDs = append(x.globIDs, id)
		}
	}
	return x, ids
}

// match calls fn with the id of every pattern matching name; it reports
// false when the glob budget is spent (the answer is then incomplete).
func (x *activationIndex) match(name string, fn func(id int)) bool {
	if id, ok := x.exact[name]; ok {
		fn(id)
	}
	// filepath.Match: '*' matches any sequence without '/'; MRD names
	// have none, but a name with one matches no wildcard.
	if !strings.Contains(name, "/") {
		x.suffixes.walk(name, true, fn)
		x.prefixes.walk(name, false, fn)
	}
	for i, g := range x.globs {
		if x.checks++; x.checks > MaxActivationChecks {
			return false
		}
		if ok, _ := filepath.Match(g, name); ok {
			fn(x.globIDs[i])
		}
	}
	return true
}

// mrdInfo is one MRD of the graph, as installed at the target.
type mrdInfo struct {
	name        string
	group, kind string
	active      bool // at install
	node        *Node
}

// graphMRDs returns the MRDs g installs at rel (explicit ones, and a
// Provider's CRDs Crossplane converts), and the graph's MRAPs.
func graphMRDs(g *Graph, rel target.Release) (mrds []mrdInfo, mraps []*mrap, mrapNodes []*Node) {
	for _, n := range g.Nodes {
		if n.Package == nil {
			continue
		}
		for _, d := range n.Package.defs {
			if mrd, active := installedAs(n.Package, d, rel); mrd && d.group != "" && d.kind != "" {
				mrds = append(mrds, mrdInfo{name: d.name, group: d.group, kind: d.kind, active: active, node: n})
			}
		}
		for i := range n.Package.mraps {
			mraps = append(mraps, &n.Package.mraps[i])
			mrapNodes = append(mrapNodes, n)
		}
	}
	return mrds, mraps, mrapNodes
}

// Activation is how the graph's ManagedResourceActivationPolicies (MRAPs)
// activate its ManagedResourceDefinitions (MRDs) at a target, as
// Crossplane's activation policy controller matches them
// (ActivationPolicy.Match: filepath.Match of each spec.activate entry
// against the MRD's name). It is shared: its readers must not modify it.
type Activation struct {
	// MRDs are the MRDs the graph installs at the target: its packages'
	// MRDs, and the CRDs of its Providers that Crossplane converts to MRDs.
	MRDs []ActivationMRD
	// Policies are the graph's MRAPs, in the order of its nodes.
	Policies []ActivationPolicy
	// Complete is false when the matching stopped: the patterns that are
	// neither exact names, prefixes nor suffixes needed more than
	// MaxActivationChecks comparisons with the MRDs' names. Active and
	// Unmatched are then partial.
	Complete bool
}

// ActivationMRD is one MRD of an Activation.
type ActivationMRD struct {
	// Name is the MRD's metadata.name, which MRAP entries match; Group and
	// Kind the type it serves.
	Name, Group, Kind string
	// Active reports whether the MRD is served: active at install (its
	// spec.state, or, for a converted CRD, the Provider's safe-start
	// capability) or matched by an entry of an MRAP.
	Active bool
}

// ActivationPolicy is one MRAP of an Activation.
type ActivationPolicy struct {
	// Object identifies the MRAP (its Name is the metadata.name).
	Object *parser.ObjectRef
	// Unmatched are its spec.activate entries, in order, that match the
	// name of no MRD of the graph (of its first 50,000 entries).
	Unmatched []ActivationEntry
}

// ActivationEntry is one spec.activate entry of an MRAP.
type ActivationEntry struct {
	// Pattern is the entry as written; Pos and Field where it is.
	Pattern string
	Pos     parser.Position
	Field   string
}

// MaxActivationChecks bounds the comparisons of general glob patterns
// against MRD names in one Activation.
const MaxActivationChecks = 5_000_000

// Activation matches every MRD of g at the Crossplane version v ("" for
// the default target) against every MRAP entry of g, in time linear in the
// MRDs times their names' length plus the entries, checking ctx every 256
// MRDs. Its result is kept per release line and shared by the callers.
func (g *Graph) Activation(ctx context.Context, v string) (*Activation, error) {
	rel, err := target.Resolve(v)
	if err != nil {
		return nil, fmt.Errorf("deps: target %w", err)
	}
	g.actMu.Lock()
	defer g.actMu.Unlock()
	if a, ok := g.act[rel.Line]; ok {
		return a, nil
	}
	a, err := match(ctx, g, rel.Release)
	if err != nil {
		return nil, err
	}
	if g.act == nil {
		g.act = map[string]*Activation{}
	}
	g.act[rel.Line] = a
	return a, nil
}

func match(ctx context.Context, g *Graph, rel target.Release) (*Activation, error) {
	mrds, mraps, _ := graphMRDs(g, rel)
	activated := make([]bool, len(mrds))
	complete := true
	var patterns []string
	for _, m := range mraps {
		for _, e := range m.Entries {
			patterns = append(patterns, e.Pattern)
		}
	}
	x, ids := newActivationIndex(patterns)
	matched := make([]bool, len(x.patterns))
	for i, d := range mrds {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if !x.match(d.name, func(id int) { matched[id] = true; activated[i] = true }) {
			complete = false
			break
		}
	}
	a := &Activation{MRDs: make([]ActivationMRD, len(mrds)), Policies: make([]ActivationPolicy, len(mraps)), Complete: complete}
	for i, d := range mrds {
		a.MRDs[i] = ActivationMRD{Name: d.name, Group: d.group, Kind: d.kind, Active: d.active || activated[i]}
	}
	k := 0
	for i, m := range mraps {
		p := ActivationPolicy{Object: m.Object}
		for _, e := range m.Entries {
			if !matched[ids[k]] {
				p.Unmatched = append(p.Unmatched, ActivationEntry(e))
			}
			k++
		}
		a.Policies[i] = p
	}
	return a, nil
}

// MinimalActivations returns the smallest list of MRD names that an MRAP
// must activate at the Crossplane version v ("" for the default target)
// for every composed type of the graph's Compositions that an MRD
// serves to be served: the MRDs that some Composition composes, sorted.
// Every other MRD of the graph is composed by nothing.
func (g *Graph) MinimalActivations(v string) ([]string, error) {
	rel, err := target.Resolve(v)
	if err != nil {
		return nil, err
	}
	mrds, _, _ := graphMRDs(g, rel.Release)
	byGK := map[[2]string][]string{}
	for _, d := range mrds {
		k := [2]string{d.group, d.kind}
		byGK[k] = append(byGK[k], d.name)
	}
	set := map[string]bool{}
	for _, n := range g.Nodes {
		if n.Package == nil {
			continue
		}
		for _, c := range n.Package.compositions {
			for _, r := range c.Composed {
				group, _, _ := strings.Cut(r.APIVersion, "/")
				for _, name := range byGK[[2]string{group, r.Kind}] {
					set[name] = true
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for name := range set {
		out = append(out, name)
	}
	slices.Sort(out)
	return out, nil
}

// MinimalMRAP returns a ManagedResourceActivationPolicy named name that
// activates exactly MinimalActivations(v), as YAML a user can apply.
func (g *Graph) MinimalMRAP(name, v string) ([]byte, error) {
	names, err := g.MinimalActivations(v)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceActivationPolicy\nmetadata:\n  name: ")
	b.WriteString(strconv.Quote(name))
	b.WriteString("\nspec:\n  activate:")
	if len(names) == 0 {
		b.WriteString(" []")
	}
	b.WriteString("\n")
	for _, n := range names {
		b.WriteString("  - ")
		b.WriteString(strconv.Quote(n))
		b.WriteString("\n")
	}
	return []byte(b.String()), nil
}
