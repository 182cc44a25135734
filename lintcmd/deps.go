package lintcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/lintcmd/internal/report"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/changerules"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
)

// depsConfig is what the dependency graph flags ask for.
type depsConfig struct {
	enabled bool
	from    []string // --deps-from: directories laid out like references
	cache   []string // --deps-cache: Crossplane package cache directories
	offline bool
	// registry reads dependencies from registries, after the local
	// sources; nil with --offline.
	registry *remote.Client
	// footprint are the thresholds of XP610 (the configuration's max-crds
	// and max-apiserver-memory).
	footprint graphrules.FootprintLimits
}

// depsFlags holds the raw values of the dependency graph flags.
type depsFlags struct {
	enabled, offline bool
	from, cache      listFlag
	remote           *remoteFlags // the registry flags (remote.go)
}

func (f *depsFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.enabled, "deps", false, "resolve and lint the dependency graph")
	fs.Var(&f.from, "deps-from", "local source of dependencies")
	fs.Var(&f.cache, "deps-cache", "Crossplane package cache directory")
}

// apply checks the values and returns the configuration.
func (f *depsFlags) apply() (depsConfig, error) {
	c := depsConfig{enabled: f.enabled, from: f.from, cache: f.cache, offline: f.offline}
	if !c.enabled && (len(c.from) > 0 || len(c.cache) > 0) {
		return c, errors.New("--deps-from and --deps-cache need --deps")
	}
	for _, d := range append(append([]string(nil), c.from...), c.cache...) {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return c, fmt.Errorf("--deps-from/--deps-cache: %q is not a directory", d)
		}
	}
	if !c.enabled {
		return c, nil
	}
	if c.offline {
		// A local source may also come from the configuration
		// (deps-from): config.forSource checks there is one.
		return c, nil
	}
	if f.remote != nil {
		client, err := f.remote.client()
		if err != nil {
			return c, err
		}
		c.registry = client
	}
	return c, nil
}

// errNoLocalSource is the error of --deps --offline without a local source.
var errNoLocalSource = errors.New("--deps --offline needs a local source of dependencies: --deps-from DIR (or deps-from in the configuration) or --deps-cache DIR")

// ruleConfig returns the configuration the package, graph and API change
// linters share: the target version, and the rules disabled and regraded,
// regraded in ID order.
func (c *config) ruleConfig() []linter.Option {
	var opts []linter.Option
	if c.xpVersion != "" {
		opts = append(opts, linter.WithCrossplaneVersion(c.xpVersion))
	}
	if len(c.disabled) > 0 {
		opts = append(opts, linter.WithDisabled(c.disabled...))
	}
	for _, id := range slices.Sorted(maps.Keys(c.severities)) {
		opts = append(opts, linter.WithSeverity(id, c.severities[id]))
	}
	return opts
}

// rootMark prefixes the files of the root package's summary, so that the
// graph's diagnostics about the root are told from those about a
// dependency (whose files begin with the dependency's reference).
const rootMark = "\x00root"

// lintGraph resolves the dependency graph of p and lints it. It returns
// the graph's diagnostics and those the root's annotations silenced, with
// the root's files displayed as the linter's are, and, for the text
// format, the graph drawn as a tree.
func lintGraph(ctx context.Context, c *config, p *xpkg.Package) (ds, silenced []linter.Diagnostic, tree string, err error) {
	root, err := deps.Summarize(ctx, p.Package, rootMark)
	if err != nil {
		return nil, nil, "", err
	}
	if root.Meta == nil || root.Meta.Name == "" {
		return nil, nil, "", nil // no single meta object: the linter says so
	}
	if p.SourceKind == xpkg.SourceRegistry {
		// A package pulled by reference is a node of its own graph: a
		// dependency back on it is a cycle.
		if r, err := oci.ParseReference(p.Source); err == nil {
			if name, err := deps.CanonicalName(r.Name()); err == nil {
				root.Name, root.Version = name, r.Tag
				if r.Digest != "" {
					root.Version = r.Digest
				}
			}
		}
	}
	var srcs []deps.Source
	var limits xpkg.Limits
	if c.limits != nil {
		limits = *c.limits
	}
	for _, d := range c.deps.from {
		srcs = append(srcs, deps.NewDirSource(d, deps.WithPackageLimits(limits)))
	}
	for _, d := range c.deps.cache {
		srcs = append(srcs, deps.NewCacheSource(d, deps.WithPackageLimits(limits)))
	}
	if c.deps.registry != nil {
		srcs = append(srcs, registrySource(c, deps.NewRegistrySource(c.deps.registry, deps.WithPackageLimits(limits))))
	}
	src := &watchedSource{Source: deps.Sources(srcs...)}
	g, err := deps.NewResolver(src, deps.WithConcurrency(max(c.jobs, 2)), deps.WithTarget(c.xpVersion)).Resolve(ctx, root)
	if err != nil {
		return nil, nil, "", fmt.Errorf("resolving dependencies: %w", err)
	}
	if err := src.err(); err != nil {
		// A network or registry failure is no verdict on the package:
		// the source is unreadable (exit 2), with the cause.
		return nil, nil, "", fmt.Errorf("resolving dependencies: %w", err)
	}
	if c.verifier != nil {
		if err := verifyGraph(ctx, c, g); err != nil {
			return nil, nil, "", err
		}
	}
	// The graph linter knows the package and API change rules too, so that the one
	// configuration may name any rule (see lintOptions).
	opts := append([]linter.Option{
		linter.WithRuleSet(graphrules.Rules(graphrules.WithFootprintLimits(c.deps.footprint))...),
		linter.WithRules(c.ck.packageRules()...), linter.WithRules(changerules.Rules()...),
	}, c.ruleConfig()...)
	res, err := graphrules.Lint(ctx, g, opts...)
	if err != nil {
		return nil, nil, "", err
	}
	ds, silenced = res.Diagnostics, res.Suppressed
	perNode := verdicts(g, ds)
	// Messages name positions too (a conflict lists every constraint):
	// the root's files are shown as its diagnostics show them.
	rootDir := ""
	if (p.SourceKind == xpkg.SourceDirectory || p.SourceKind == xpkg.SourcePackageYAML) && p.Root != "" {
		rootDir = p.Root + string(filepath.Separator)
	}
	for _, list := range [][]linter.Diagnostic{ds, silenced} {
		for i := range list {
			if f, ok := strings.CutPrefix(list[i].Pos.File, rootMark); ok {
				list[i].Pos.File = displayFile(p, linter.Diagnostic{Pos: posWithFile(list[i], strings.TrimPrefix(f, "/"))})
			}
			list[i].Message = strings.ReplaceAll(list[i].Message, rootMark+"/", rootDir)
		}
	}
	if c.format == report.FormatText {
		var b strings.Builder
		drawTree(&b, g, perNode)
		tree = b.String()
	}
	return ds, silenced, tree, nil
}

func posWithFile(d linter.Diagnostic, file string) parser.Position {
	p := d.Pos
	p.File = file
	return p
}

// verdicts counts the diagnostics of each package of the graph.
func verdicts(g *deps.Graph, ds []linter.Diagnostic) map[*deps.Node]*report.Counts {
	m := map[*deps.Node]*report.Counts{}
	for _, d := range ds {
		n := g.NodeOf(d.Pos)
		if m[n] == nil {
			m[n] = &report.Counts{}
		}
		m[n].Add([]linter.Diagnostic{d})
	}
	return m
}

// maxTreeLines bounds the tree drawn for one graph, and maxTreeDepth its
// depth (so its indentation: a chain of 2,000 packages drawn whole would
// indent its last lines by 8,000 columns).
const (
	maxTreeLines = 5000
	maxTreeDepth = 32
)

// drawTree draws the graph from its root, each package once: a package
// met again is marked "(see above)", one on the current path "(cycle)".
func drawTree(w io.Writer, g *deps.Graph, counts map[*deps.Node]*report.Counts) {
	verdict := func(n *deps.Node) string {
		switch {
		case n.Package == nil && n.Err != nil:
			return "cannot be fetched"
		case n.Package == nil:
			return "unresolved"
		}
		if c := counts[n]; c != nil {
			return c.String()
		}
		return "ok"
	}
	kind := func(n *deps.Node) string {
		if n.Package != nil && n.Package.Kind != "" {
			return " (" + string(n.Package.Kind) + ")"
		}
		return ""
	}
	fmt.Fprintf(w, "dependency graph of %s%s: %s\n", g.Root.Label(), kind(g.Root), verdict(g.Root))
	lines := 0
	shown := map[*deps.Node]bool{g.Root: true}
	onPath := map[*deps.Node]bool{g.Root: true}
	var walk func(n *deps.Node, indent string, depth int)
	walk = func(n *deps.Node, indent string, depth int) {
		if depth >= maxTreeDepth && len(n.Edges) > 0 {
			if lines++; lines <= maxTreeLines {
				fmt.Fprintf(w, "%s└── … (%d dependencies deeper than %d levels not drawn)\n", indent, len(n.Edges), maxTreeDepth)
			}
			return
		}
		for i, e := range n.Edges {
			if lines++; lines > maxTreeLines {
				if lines == maxTreeLines+1 {
					fmt.Fprintf(w, "%s…\n", indent)
				}
				return
			}
			branch, next := "├── ", "│   "
			if i == len(n.Edges)-1 {
				branch, next = "└── ", "    "
			}
			label := safetext.Token(e.Dep.Package) + " " + safetext.Token(e.Dep.Constraint)
			switch {
			case e.To == nil:
				fmt.Fprintf(w, "%s%s%s: unresolved\n", indent, branch, label)
				continue
			case e.Unresolved != "":
				fmt.Fprintf(w, "%s%s%s: unresolved\n", indent, branch, label)
				continue
			}
			t := e.To
			name := t.Label() + kind(t)
			switch {
			case onPath[t]:
				fmt.Fprintf(w, "%s%s%s (cycle)\n", indent, branch, name)
			case shown[t]:
				fmt.Fprintf(w, "%s%s%s (see above)\n", indent, branch, name)
			default:
				shown[t] = true
				fmt.Fprintf(w, "%s%s%s: %s\n", indent, branch, name, verdict(t))
				onPath[t] = true
				walk(t, indent+next, depth+1)
				onPath[t] = false
			}
		}
	}
	walk(g.Root, "", 0)
}
