package deps

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/target"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Limits bound what one Resolve call may grow to. A zero field means its
// default (DefaultLimits); limit.Unlimited (any negative value) lifts that
// limit. A limit exceeded is a *limit.Error naming the field (it matches
// limit.ErrExceeded), inside an error that names the package concerned.
type Limits struct {
	// MaxPackages is the most packages in the graph, the root included.
	// Default 2000.
	MaxPackages int
	// MaxEdges is the most dependsOn entries in the graph. Default 50000.
	MaxEdges int
	// MaxTags is the most tags considered for one package. Default 10000.
	MaxTags int
	// MaxVersionChecks is the most comparisons of tags against the terms
	// of version constraints one Resolve call makes (each distinct
	// constraint on a package is checked against its tags once; a check
	// costs one comparison per term, per ',' and '||' group). Default
	// 5,000,000: about 3.5 s of CPU at the v2.3 target, whose semver
	// module (Masterminds/semver v3) formats an error for every comparison
	// that fails (0.7 µs each), and 0.25 s before v2.3. A real graph makes
	// far fewer: a constraint that a package's newest tag satisfies costs
	// one comparison, and only one that no tag satisfies reads them all.
	MaxVersionChecks int
}

// DefaultLimits returns the default limits.
func DefaultLimits() Limits {
	return Limits{MaxPackages: 2000, MaxEdges: 50000, MaxTags: 10000, MaxVersionChecks: 5_000_000}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	return Limits{MaxPackages: limitval.Or(l.MaxPackages, d.MaxPackages), MaxEdges: limitval.Or(l.MaxEdges, d.MaxEdges), MaxTags: limitval.Or(l.MaxTags, d.MaxTags),
		MaxVersionChecks: limitval.Or(l.MaxVersionChecks, d.MaxVersionChecks)}
}

// limitErr is the *limit.Error of the limit name of value max, which value
// exceeded, wrapped in an error that names what (a package or a directory)
// when there is one.
func limitErr[T int | int64](name limit.Name, value, max T, what string) error {
	le := &limit.Error{Limit: name, Value: int64(value), Max: int64(max)}
	if what == "" {
		return fmt.Errorf("deps: %w", le)
	}
	return fmt.Errorf("deps: %s: %w", quote(what), le)
}

// Option configures a Resolver.
type Option func(*config)

type config struct {
	limits      Limits
	concurrency int
	target      target.Release
}

// WithLimits sets the limits of the graph.
func WithLimits(l Limits) Option { return func(c *config) { c.limits = l } }

// WithConcurrency sets how many tag listings and fetches run at once
// (default: GOMAXPROCS, at least 2, at most 8).
func WithConcurrency(n int) Option { return func(c *config) { c.concurrency = n } }

// WithTarget sets the Crossplane version whose resolver the resolution
// follows: which grammar reads the dependencies' version constraints
// (Masterminds/semver v1.5.0 before v2.3, semver v3 from v2.3; see
// RULES.md, "By target"). Any patch version maps to its release line; a
// version that is not semver, or none, leaves the default, the newest
// stable line.
func WithTarget(version string) Option {
	return func(c *config) {
		if t, err := target.Resolve(version); err == nil {
			c.target = t.Release
		}
	}
}

// Resolver resolves dependency graphs from a Source. It is safe for
// concurrent use; each Resolve call has its own caches.
type Resolver struct {
	src Source
	cfg config
}

// NewResolver returns a resolver reading packages from src.
func NewResolver(src Source, opts ...Option) *Resolver {
	c := config{target: target.Default()}
	for _, o := range opts {
		o(&c)
	}
	c.limits = c.limits.withDefaults()
	if c.concurrency <= 0 {
		c.concurrency = min(max(runtime.GOMAXPROCS(0), 2), 8)
	}
	return &Resolver{src: src, cfg: c}
}

// Graph is a resolved dependency graph.
type Graph struct {
	// Root is the package whose dependencies were resolved.
	Root *Node
	// Nodes are the packages of the graph, the root first, then the others
	// sorted by name.
	Nodes []*Node
	// Cycles are dependency cycles, one for each set of packages that
	// depend on each other (a strongly connected component of the graph),
	// each as the edges that make it up, the closing edge last; at most
	// 1000 of them (CycleCount says how many there are).
	Cycles [][]*Edge
	// CycleSets are the packages of each cycle's strongly connected
	// component, in the order of Cycles: every package of a set depends,
	// directly or not, on every other.
	CycleSets [][]*Node
	// CycleCount is how many strongly connected components hold a cycle;
	// more than len(Cycles) when the graph has more than Cycles keeps.
	CycleCount int
	// Unsettled names the packages whose selected version still changed
	// when the resolver stopped re-walking the graph (see Resolve): each
	// version brings dependencies whose constraints choose another. The
	// graph is that of the last walk, which may miss packages; empty when
	// the walk settled.
	Unsettled []Flip

	prefixOnce sync.Once
	byPrefix   map[string]*Node
	// act is the MRAPs' matching per target line (Activation).
	actMu sync.Mutex
	act   map[string]*Activation
}

// Node is one package of the graph.
type Node struct {
	// Name is the package's registry/repository ("" for a root read from a
	// file that does not say its name).
	Name string
	// Version is the version resolved: a tag, a digest when the package is
	// pinned by digest, or "" for the root or an unversioned copy.
	Version string
	// Package is the package's summary; nil when it could not be fetched.
	Package *Package
	// Edges are the package's dependsOn entries, in file order.
	Edges []*Edge
	// In are the edges that ask for the package, in graph order.
	In []*Edge
	// Conflict explains why no version satisfies every constraint on the
	// package at once; "" when there is none.
	Conflict string
	// Err says why the package could not be fetched; nil when it was, or
	// when no version was chosen (the edges say why).
	Err error
}

// NodeOf returns the node of the package whose file pos is in, as the
// prefix Summarize gave the package's files says; nil when none is.
func (g *Graph) NodeOf(pos parser.Position) *Node {
	g.prefixOnce.Do(func() {
		g.byPrefix = map[string]*Node{}
		for _, n := range g.Nodes {
			if n.Package != nil {
				g.byPrefix[n.Package.filePrefix] = n
			}
		}
	})
	f := pos.File
	if n, ok := g.byPrefix[f]; ok {
		return n
	}
	for i := len(f) - 1; i > 0; i-- {
		if f[i] == '/' {
			if n, ok := g.byPrefix[f[:i]]; ok {
				return n
			}
		}
	}
	return g.byPrefix[""]
}

// Label returns "name:version", "name@digest", or the name alone.
func (n *Node) Label() string {
	switch {
	case n.Name == "" && n.Package != nil && n.Package.Meta != nil && n.Package.Meta.Name != "":
		return token(n.Package.Meta.Name)
	case n.Version == "":
		return n.Name
	case isDigest(n.Version):
		return n.Name + "@" + n.Version
	}
	return n.Name + ":" + n.Version
}

// Flip is a package whose selection did not settle: the versions the
// resolver's walks selected in turn, each different from the one before.
type Flip struct {
	// Name is the package's name.
	Name string
	// Versions are the versions selected in turn ("" for none), the last
	// selected last.
	Versions []string
}

// Edge is one dependsOn entry of a package of the graph.
type Edge struct {
	// From is the package whose entry it is.
	From *Node
	// Dep is the entry.
	Dep *Dependency
	// To is the package it names; nil when the entry names none that can
	// be read (Dep.Err says why).
	To *Node
	// Unresolved says why this entry alone cannot resolve (no such
	// package, no tag satisfies its constraint, an invalid constraint);
	// "" when it can.
	Unresolved string
	// Nearest lists tags near the entry's constraint when no tag
	// satisfies it.
	Nearest []string
}

type tagsResult struct {
	vs          []tagVersion
	unversioned bool
	err         error
}

type fetchKey struct{ name, version string }

type fetchResult struct {
	pkg *Package
	err error
}

type selection struct {
	version  string // "" with ok: the unversioned copy
	ok       bool
	conflict string
	edgeErr  map[*Dependency]unresolved
}

type unresolved struct {
	why     string
	nearest []string
}

type edgeRef struct {
	from *Package
	dep  *Dependency
}

type resolution struct {
	r       *Resolver
	root    *Package
	tags    map[string]*tagsResult
	fetched map[fetchKey]*fetchResult
	sel     map[string]*selection
	edges   map[string][]edgeRef // of the last expansion
	order   []string             // names in the order the last expansion met them
	want    *wanted              // composed types, whose definitions summaries keep
	checks  map[checkKey]*checked
	work    int64 // comparisons of tags against constraints so far
}

// maxPasses bounds how often the resolver re-expands the graph after the
// complete set of constraints changed a selection.
const maxPasses = 8

// Resolve resolves the dependencies of root, transitively: for every
// package named, the version Crossplane's package manager would choose
// (see the package doc), one version per package for the whole graph. A
// problem with the graph (an unresolvable entry, a conflict, a cycle, a
// package of the wrong kind) is not an error: it is in the Graph, for Lint
// to report. Resolve fails when ctx is done or a limit is exceeded
// (a *limit.Error).
func (r *Resolver) Resolve(ctx context.Context, root *Package) (*Graph, error) {
	if root == nil {
		return nil, errors.New("deps: nil root package")
	}
	s := &resolution{r: r, root: root, tags: map[string]*tagsResult{}, fetched: map[fetchKey]*fetchResult{}, sel: map[string]*selection{}, checks: map[checkKey]*checked{}, want: &wanted{m: map[string]bool{}}}
	s.wantComposed(root)
	var history []map[string]string // the selections after each pass
	var unsettled []Flip
	for pass := 0; ; pass++ {
		if err := s.expand(ctx); err != nil {
			return nil, err
		}
		if pass == 0 {
			history = append(history, s.selections())
		}
		changed, err := s.reselect(ctx)
		if err != nil {
			return nil, err
		}
		if !changed {
			break
		}
		now := s.selections()
		history = append(history, now)
		// A selection seen before means the walk cycles: stop now.
		repeat := slices.IndexFunc(history[:len(history)-1], func(h map[string]string) bool { return maps.Equal(h, now) })
		if repeat >= 0 || pass+1 >= maxPasses {
			from := max(repeat, 0)
			if repeat < 0 {
				from = len(history) - 2
			}
			unsettled = flips(history[from:])
			break
		}
	}
	g := s.build(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.Unsettled = unsettled
	return g, nil
}

// selections returns the version selected for each package ("" for none,
// "\x00" prefixed for an unversioned copy).
func (s *resolution) selections() map[string]string {
	m := make(map[string]string, len(s.sel))
	for n, sel := range s.sel {
		switch {
		case !sel.ok:
			m[n] = ""
		case sel.version == "":
			m[n] = "\x00unversioned"
		default:
			m[n] = sel.version
		}
	}
	return m
}

// flips returns, sorted by name, the packages whose selection differs
// between the states of history, with the versions each took in turn.
func flips(history []map[string]string) []Flip {
	var out []Flip
	names := map[string]bool{}
	for _, h := range history {
		for n := range h {
			names[n] = true
		}
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		var vs []string
		for _, h := range history {
			v := h[n]
			if v == "\x00unversioned" {
				v = ""
			}
			if len(vs) == 0 || vs[len(vs)-1] != v {
				vs = append(vs, v)
			}
		}
		if len(vs) > 1 {
			out = append(out, Flip{Name: n, Versions: vs})
		}
	}
	return out
}

// expand walks the graph from the root, level by level, choosing a version
// for each package as it is met (the selection of an earlier pass when
// there is one) and fetching the packages of each level in parallel.
func (s *resolution) expand(ctx context.Context) error {
	lim := s.r.cfg.limits
	s.edges = map[string][]edgeRef{}
	s.order = s.order[:0]
	seen := map[string]bool{}
	if s.root.Name != "" {
		seen[s.root.Name] = true
		s.order = append(s.order, s.root.Name)
	}
	nEdges := 0
	level := []*Package{s.root}
	for len(level) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		var fresh []string
		for _, p := range level {
			nEdges += len(p.Dependencies)
			if nEdges > lim.MaxEdges {
				return limitErr(limitval.MaxEdges, nEdges, lim.MaxEdges, p.Name)
			}
			for i := range p.Dependencies {
				d := &p.Dependencies[i]
				if d.Name == "" || d.Err != nil {
					continue
				}
				s.edges[d.Name] = append(s.edges[d.Name], edgeRef{p, d})
				if !seen[d.Name] {
					seen[d.Name] = true
					fresh = append(fresh, d.Name)
					s.order = append(s.order, d.Name)
				}
			}
		}
		if len(s.order) > lim.MaxPackages {
			return limitErr(limitval.MaxPackages, len(s.order), lim.MaxPackages, "")
		}
		if err := s.listTags(ctx, fresh); err != nil {
			return err
		}
		var want []fetchKey
		for _, n := range fresh {
			sel, ok := s.sel[n]
			if !ok {
				var err error
				if sel, err = s.choose(ctx, n); err != nil {
					return err
				}
				s.sel[n] = sel
			}
			if sel.ok {
				want = append(want, fetchKey{n, sel.version})
			}
		}
		if err := s.fetch(ctx, want); err != nil {
			return err
		}
		level = level[:0:0]
		for _, k := range want {
			if f := s.fetched[k]; f != nil && f.pkg != nil {
				level = append(level, f.pkg)
			}
		}
	}
	return nil
}

// wantComposed adds the types p's Compositions compose to the types whose
// definitions the summaries keep: the root's only, since only the root's
// composed bases are validated (a dependency's summary keeps none).
func (s *resolution) wantComposed(p *Package) {
	for _, c := range p.compositions {
		for _, r := range c.Composed {
			group, _, ok := strings.Cut(r.APIVersion, "/")
			if !ok {
				group = ""
			}
			s.want.add(group, r.Kind)
		}
	}
}

// reselect chooses again with every constraint of the graph known, and
// reports whether a selection changed.
func (s *resolution) reselect(ctx context.Context) (bool, error) {
	if err := s.listTags(ctx, s.order); err != nil {
		return false, err
	}
	changed := false
	for _, n := range s.order {
		if n == s.root.Name {
			continue
		}
		sel, err := s.choose(ctx, n)
		if err != nil {
			return false, err
		}
		if old, ok := s.sel[n]; ok && (old.ok != sel.ok || old.version != sel.version) {
			changed = true
		}
		s.sel[n] = sel
	}
	return changed, nil
}

// needsTags reports whether an edge on name has a version constraint (not
// a digest), so that choosing needs the tags.
func (s *resolution) needsTags(name string) bool {
	for _, e := range s.edges[name] {
		if !isDigest(e.dep.Constraint) {
			return true
		}
	}
	return false
}

// listTags lists, in parallel, the tags of the names that need them and
// have not been listed.
func (s *resolution) listTags(ctx context.Context, names []string) error {
	var todo []string
	for _, n := range names {
		if _, ok := s.tags[n]; !ok && n != s.root.Name && s.needsTags(n) {
			todo = append(todo, n)
		}
	}
	res := make([]*tagsResult, len(todo))
	err := parallel(ctx, s.r.cfg.concurrency, len(todo), func(i int) {
		tags, err := s.r.src.Tags(ctx, todo[i])
		t := &tagsResult{}
		switch {
		case errors.Is(err, ErrUnversioned):
			t.unversioned = true
		case err != nil:
			t.err = err
		case len(tags) > s.r.cfg.limits.MaxTags:
			t.err = limitErr(limitval.MaxTags, len(tags), s.r.cfg.limits.MaxTags, todo[i])
		default:
			t.vs = sortedVersions(tags)
		}
		res[i] = t
	})
	if err != nil {
		return err
	}
	for i, n := range todo {
		s.tags[n] = res[i]
	}
	return nil
}

// fetch fetches, in parallel, the keys not fetched yet. A package is never
// fetched twice in one Resolve call.
func (s *resolution) fetch(ctx context.Context, keys []fetchKey) error {
	var todo []fetchKey
	for _, k := range keys {
		if _, ok := s.fetched[k]; !ok {
			todo = append(todo, k)
			s.fetched[k] = nil // claimed
		}
	}
	res := make([]*fetchResult, len(todo))
	err := parallel(ctx, s.r.cfg.concurrency, len(todo), func(i int) {
		p, err := s.r.src.Fetch(ctx, todo[i].name, todo[i].version, AsDependency(s.want.has))
		if err == nil && p == nil {
			err = fmt.Errorf("%w: %s", ErrNotFound, todo[i].name)
		}
		if p != nil && p.Name == "" {
			p.Name = todo[i].name
		}
		res[i] = &fetchResult{p, err}
	})
	if err != nil {
		return err
	}
	for i, k := range todo {
		if e := ctx.Err(); e != nil && res[i].err != nil && errors.Is(res[i].err, e) {
			return e
		}
		s.fetched[k] = res[i]
	}
	return nil
}

// choose selects the version of name that every constraint known on it
// allows, as described in the package doc.
func (s *resolution) choose(ctx context.Context, name string) (*selection, error) {
	sel := &selection{edgeErr: map[*Dependency]unresolved{}}
	edges := s.edges[name]
	var digests []string
	var semvers []edgeRef
	for _, e := range edges {
		if isDigest(e.dep.Constraint) {
			if !slices.Contains(digests, e.dep.Constraint) {
				digests = append(digests, e.dep.Constraint)
			}
			continue
		}
		semvers = append(semvers, e)
	}
	if len(digests) > 0 {
		sel.version, sel.ok = digests[0], true
		switch {
		case len(digests) > 1:
			sel.conflict = fmt.Sprintf("pinned to %d different digests", len(digests))
		case len(semvers) > 0:
			sel.conflict = "pinned to a digest by one entry and constrained by version by another (Crossplane cannot satisfy both)"
		}
		return sel, nil
	}
	t := s.tags[name]
	switch {
	case t == nil:
		return sel, nil
	case t.err != nil:
		why := "cannot list its versions: " + shorten(t.err.Error())
		if errors.Is(t.err, ErrNotFound) {
			why = "no such package in the sources"
		}
		for _, e := range semvers {
			sel.edgeErr[e.dep] = unresolved{why: why}
		}
		return sel, nil
	case t.unversioned:
		// The source holds one copy and no version: take it, as Crossplane
		// takes an installed package without re-checking its version.
		sel.ok = true
		return sel, nil
	}
	var ok []*checked
	for _, e := range semvers {
		ck, err := s.check(ctx, name, t.vs, e.dep.Constraint)
		switch {
		case err != nil:
			return nil, err
		case ck.err != nil:
			sel.edgeErr[e.dep] = unresolved{why: fmt.Sprintf("version %s is not a constraint Crossplane reads: %s", quote(e.dep.Constraint), shorten(ck.err.Error()))}
		case ck.first < 0:
			sel.edgeErr[e.dep] = unresolved{why: fmt.Sprintf("no tag satisfies %s", quote(e.dep.Constraint)), nearest: ck.nearest}
		default:
			if !slices.Contains(ok, ck) {
				ok = append(ok, ck)
			}
		}
	}
	if len(ok) == 0 {
		return sel, nil
	}
	// The highest tag every constraint allows is at or below the highest
	// each allows alone.
	from := 0
	for _, ck := range ok {
		from = max(from, ck.first)
	}
	for i := from; i < len(t.vs); i++ {
		all := true
		for _, ck := range ok {
			if i != ck.first {
				if err := s.spend(ctx, ck.cost); err != nil {
					return nil, err
				}
				if !ck.c.Check(t.vs[i].v) {
					all = false
					break
				}
			}
		}
		if all {
			sel.version, sel.ok = t.vs[i].tag, true
			return sel, nil
		}
	}
	// No tag satisfies them all: a conflict. Go on with the highest tag
	// the first constraint allows, so the graph below is still checked.
	var cs []string
	for _, e := range semvers {
		if _, bad := sel.edgeErr[e.dep]; !bad {
			cs = append(cs, quote(e.dep.Constraint))
		}
	}
	sel.conflict = "no tag satisfies all of " + list(cs, func(s string) string { return s })
	sel.version, sel.ok = t.vs[ok[0].first].tag, true
	return sel, nil
}

// checked is a constraint on one package, parsed once per Resolve call,
// with the highest tag it allows.
type checked struct {
	c   target.Constraint
	err error // why the constraint does not parse
	// cost is the work of one Check, in comparisons: at most one per
	// term of the constraint.
	cost int64
	// first is the index in the package's sorted tags of the highest tag
	// the constraint allows; -1 when none does.
	first   int
	nearest []string
}

type checkKey struct{ name, constraint string }

// check returns the constraint c on name parsed, with the highest of vs it
// allows; each (name, constraint) is parsed and checked against the tags
// once per Resolve call.
func (s *resolution) check(ctx context.Context, name string, vs []tagVersion, c string) (*checked, error) {
	k := checkKey{name, c}
	if ck, ok := s.checks[k]; ok {
		return ck, nil
	}
	ck := &checked{first: -1, cost: 1 + int64(strings.Count(c, "||")+strings.Count(c, ",")+strings.Count(c, " "))}
	ck.c, ck.err = parseConstraint(s.r.cfg.target, c)
	if ck.err == nil {
		for i, tv := range vs {
			if err := s.spend(ctx, ck.cost); err != nil {
				return nil, err
			}
			if ck.c.Check(tv.v) {
				ck.first = i
				break
			}
		}
		if ck.first < 0 {
			if err := s.spend(ctx, int64(len(vs))); err != nil {
				return nil, err
			}
			ck.nearest = nearestTags(vs, c, 5)
		}
	}
	s.checks[k] = ck
	return ck, nil
}

// spend counts n comparisons of tags against constraints, fails when they
// exceed MaxVersionChecks, and checks ctx every so often.
func (s *resolution) spend(ctx context.Context, n int64) error {
	before := s.work
	s.work += n
	if s.work > int64(s.r.cfg.limits.MaxVersionChecks) {
		return limitErr(limitval.MaxVersionChecks, s.work, int64(s.r.cfg.limits.MaxVersionChecks), "")
	}
	if before>>12 != s.work>>12 {
		return ctx.Err()
	}
	return nil
}

// build turns the last expansion into a Graph.
func (s *resolution) build(ctx context.Context) *Graph {
	g := &Graph{}
	nodes := map[string]*Node{}
	g.Root = &Node{Name: s.root.Name, Version: s.root.Version, Package: s.root}
	if s.root.Name != "" {
		nodes[s.root.Name] = g.Root
	}
	var others []*Node
	for _, n := range s.order {
		if n == s.root.Name {
			continue
		}
		node := &Node{Name: n}
		if sel := s.sel[n]; sel != nil {
			node.Conflict = sel.conflict
			if sel.ok {
				node.Version = sel.version
				if f := s.fetched[fetchKey{n, sel.version}]; f != nil {
					node.Package, node.Err = f.pkg, f.err
					if f.pkg != nil && f.pkg.Version != "" && !isDigest(sel.version) {
						node.Version = f.pkg.Version
					}
				} else {
					node.Err = fmt.Errorf("resolution did not settle within %d passes: %s was selected last and not read", maxPasses, token(sel.version))
				}
			}
		}
		nodes[n] = node
		others = append(others, node)
	}
	slices.SortFunc(others, func(a, b *Node) int { return strings.Compare(a.Name, b.Name) })
	g.Nodes = append([]*Node{g.Root}, others...)
	// Edges, from the packages reachable in the last expansion.
	for _, node := range g.Nodes {
		if node.Package == nil {
			continue
		}
		for i := range node.Package.Dependencies {
			d := &node.Package.Dependencies[i]
			e := &Edge{From: node, Dep: d}
			if d.Err != nil || d.Name == "" {
				if d.Err != nil {
					e.Unresolved = shorten(d.Err.Error())
				}
			} else if to := nodes[d.Name]; to != nil {
				e.To = to
				to.In = append(to.In, e)
				if sel := s.sel[d.Name]; sel != nil {
					if u, ok := sel.edgeErr[d]; ok {
						e.Unresolved, e.Nearest = u.why, u.nearest
					}
				}
			}
			node.Edges = append(node.Edges, e)
		}
	}
	g.Cycles, g.CycleSets, g.CycleCount = findCycles(ctx, g)
	return g
}

// maxCycles bounds the cycles a graph records; Graph.CycleCount says how
// many strongly connected components hold one.
const maxCycles = 1000

// findCycles finds, with Tarjan's algorithm (linear in the nodes and
// edges, iterative), the strongly connected components of the packages
// reachable from the root that hold a cycle, and for each of the first
// maxCycles one cycle through it: a shortest path back to the
// component's first node met, found by a breadth-first search inside the
// component. It returns the cycles, their components and how many
// components hold a cycle. A graph of n packages has at most n such
// components, however many cycles they hold.
func findCycles(ctx context.Context, g *Graph) (cycles [][]*Edge, comps [][]*Node, count int) {
	follow := func(e *Edge) bool { return e.To != nil && (e.To.Package != nil || e.To == g.Root) }
	index := map[*Node]int{}
	low := map[*Node]int{}
	onStack := map[*Node]bool{}
	var stack []*Node
	type frame struct {
		n    *Node
		next int
	}
	var call []frame
	next := 0
	visit := func(n *Node) {
		index[n], low[n] = next, next
		next++
		stack = append(stack, n)
		onStack[n] = true
		call = append(call, frame{n: n})
	}
	visit(g.Root)
	steps := 0
	for len(call) > 0 {
		if steps++; steps%1024 == 0 && ctx.Err() != nil {
			return cycles, comps, count
		}
		top := &call[len(call)-1]
		if top.next < len(top.n.Edges) {
			e := top.n.Edges[top.next]
			top.next++
			if !follow(e) {
				continue
			}
			if _, seen := index[e.To]; !seen {
				visit(e.To)
			} else if onStack[e.To] {
				low[top.n] = min(low[top.n], index[e.To])
			}
			continue
		}
		n := top.n
		call = call[:len(call)-1]
		if len(call) > 0 {
			parent := call[len(call)-1].n
			low[parent] = min(low[parent], low[n])
		}
		if low[n] != index[n] {
			continue
		}
		var comp []*Node
		for {
			m := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[m] = false
			comp = append(comp, m)
			if m == n {
				break
			}
		}
		if len(comp) == 1 && !slices.ContainsFunc(n.Edges, func(e *Edge) bool { return e.To == n && follow(e) }) {
			continue // a single package without a self-edge holds no cycle
		}
		count++
		if len(cycles) < maxCycles {
			slices.Reverse(comp) // in the order the search met them
			cycles = append(cycles, cycleThrough(comp, follow))
			comps = append(comps, comp)
		}
	}
	// Components complete in reverse topological order; report them from
	// the root down.
	slices.Reverse(cycles)
	slices.Reverse(comps)
	return cycles, comps, count
}

// cycleThrough returns a shortest cycle through comp[0] inside the
// strongly connected component comp, as its edges, the closing edge last.
func cycleThrough(comp []*Node, follow func(*Edge) bool) []*Edge {
	in := make(map[*Node]bool, len(comp))
	for _, n := range comp {
		in[n] = true
	}
	start := comp[0]
	via := map[*Node]*Edge{}
	queue := []*Node{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, e := range n.Edges {
			if !follow(e) || !in[e.To] {
				continue
			}
			if e.To == start {
				path := []*Edge{e}
				for m := n; m != start; m = via[m].From {
					path = append(path, via[m])
				}
				slices.Reverse(path)
				return path
			}
			if _, seen := via[e.To]; !seen {
				via[e.To] = e
				queue = append(queue, e.To)
			}
		}
	}
	return nil // not reached: comp is strongly connected
}

// parallel runs fn(0..n-1) with at most limit at once, and returns
// ctx.Err() when ctx is done before all ran: no call starts after that.
func parallel(ctx context.Context, limit, n int, fn func(int)) error {
	var g errgroup.Group
	g.SetLimit(max(limit, 1))
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if ctx.Err() == nil {
				fn(i)
			}
			return nil
		})
	}
	_ = g.Wait() // fn reports through its own results
	return ctx.Err()
}
