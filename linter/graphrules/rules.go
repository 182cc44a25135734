package graphrules

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/xpkgkit/xpkgkit/internal/ref"
	"github.com/xpkgkit/xpkgkit/internal/target"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
)

// graphPass is what a graph rule's check receives: the rule's
// linter.Pass (its Report applies the cap, WithMaxDiagnostics), the
// graph it runs on and the rules' configuration (Option).
type graphPass struct {
	*linter.Pass
	g      *deps.Graph
	target *semver.Version
	// release is the target's line (the default when none was given).
	release target.Release
	cfg     *config
}

// errNoGraph is the failure of a graph rule run on a nil graph.
var errNoGraph = errors.New("graphrules: a graph rule runs on a dependency graph (Lint)")

// graphRun returns the Run of a graph rule: check, on the graph that
// Lint gives as the subject, with the rules' configuration cfg.
func graphRun(cfg *config, check func(*graphPass)) func(*linter.Pass) error {
	return linter.RunOn(func(lp *linter.Pass, g *deps.Graph) error {
		if g == nil {
			return errNoGraph
		}
		rel, err := target.Resolve(lp.CrossplaneVersion)
		if err != nil {
			return fmt.Errorf("graphrules: target %w", err)
		}
		p := &graphPass{Pass: lp, g: g, release: rel.Release, cfg: cfg}
		// A default target is a target: without a version, the release
		// the default line was read from.
		v := lp.CrossplaneVersion
		if v == "" {
			v = rel.Patch
		}
		if p.target, err = rel.ParseVersion(v); err != nil {
			return fmt.Errorf("graphrules: target Crossplane version %s: %w", quote(v), err)
		}
		check(p)
		return nil
	})
}

// reportEdge reports a problem positioned at the dependsOn entry e.
func (p *graphPass) reportEdge(e *deps.Edge, format string, args ...any) {
	var obj *parser.ObjectRef
	if e.From.Package != nil {
		obj = e.From.Package.Meta
	}
	d := linter.Diagnostic{Pos: e.Dep.Pos, Field: e.Dep.Field, Object: obj}
	if !p.AtCap() { // a diagnostic left out costs no message
		d.Message = fmt.Sprintf(format, args...)
	}
	p.Report(d)
}

func (p *graphPass) reportRef(c *deps.Composition, r deps.CompositionRef, format string, args ...any) {
	p.reportRefSeverity(p.Rule.Severity, c, r, format, args...)
}

func (p *graphPass) reportRefSeverity(sev linter.Severity, c *deps.Composition, r deps.CompositionRef, format string, args ...any) {
	d := linter.Diagnostic{Severity: sev, Pos: r.Pos, Field: r.Field, Object: c.Object}
	if !p.AtCap() {
		d.Message = fmt.Sprintf(format, args...)
	}
	p.Report(d)
}

const graphHead = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\nspec:\n  dependsOn:\n"

// Rules returns the graph rules (XP601-XP612), fresh copies in ID order,
// configured by opts: rules of scope linter.ScopeGraph, whose Run checks
// the *deps.Graph that Lint gives them (linter.RunOn). Give them with
// linter.WithRules to linter.Lint (which knows them and runs none), and
// the package rules to Lint, to configure both runners with one set of
// options.
func Rules(opts ...Option) []*linter.Rule {
	cfg := &config{}
	for _, o := range opts {
		if o != nil {
			o(cfg)
		}
	}
	return append([]*linter.Rule{
		{
			ID: "XP601", Name: "dependency-unresolved", Severity: linter.SeverityError,
			Doc: `A dependency resolves to no package

The package named by a dependsOn entry is in none of the sources, no tag of
it satisfies the entry's version constraint, or it cannot be fetched. The
message lists the tags nearest the constraint. Crossplane's package manager
fails the same way at install: the lock reconciler
(internal/controller/pkg/resolver, findDependencyVersionToInstall) finds no
version to install and marks resolution failed, so the dependant package
never becomes healthy.`,
			Bad:   graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: \">=v9.0.0\"  # tags: v0.3.0, v0.4.0\n",
			Good:  graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: \">=v0.3.0\"\n",
			Scope: linter.ScopeGraph, Run: graphRun(cfg, checkUnresolved),
		},
		{
			ID: "XP602", Name: "dependency-conflict", Severity: linter.SeverityError,
			Doc: `Constraints on one package have no version in common

Crossplane installs one version of each package for the whole cluster.
When the packages of a graph constrain the same dependency so that no tag
satisfies every constraint at once (or pin it to different digests, or pin
it by digest and constrain it by version), one of the dependants gets a
version outside its constraint: Crossplane's dependency manager
(internal/controller/pkg/revision/dependency.go, Resolve) then reports
"incompatible dependencies" and that package's revision stays unhealthy.
The message names every constraint with its dependant, file and line.`,
			Bad:   "# configuration-a\n" + graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/acme/provider-x\n    version: \"v1\"\n  - apiVersion: pkg.crossplane.io/v1\n    kind: Configuration\n    package: xpkg.crossplane.io/acme/configuration-b  # which needs provider-x \">=v2.0.0\"\n    version: \">=v0.1.0\"\n",
			Good:  "# configuration-a\n" + graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/acme/provider-x\n    version: \">=v1.0.0\"\n  - apiVersion: pkg.crossplane.io/v1\n    kind: Configuration\n    package: xpkg.crossplane.io/acme/configuration-b  # which needs provider-x \">=v2.0.0\"\n    version: \">=v0.1.0\"\n",
			Scope: linter.ScopeGraph, Run: graphRun(cfg, checkConflict),
		},
		{
			ID: "XP603", Name: "dependency-cycle", Severity: linter.SeverityError,
			Doc: `Packages depend on each other in a cycle

A package depends, directly or through others, on itself. Crossplane's lock
reconciler sorts the dependency graph before it installs anything
(internal/controller/pkg/resolver, dag.Sort; internal/dag) and refuses to
install more packages when the sort finds a cycle. The message shows the
cycle's path; the diagnostic is at the entry that closes it.`,
			Bad:   "# configuration-a\n" + graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Configuration\n    package: xpkg.crossplane.io/acme/configuration-b  # which depends on configuration-a\n    version: \">=v0.1.0\"\n",
			Good:  "# configuration-a\n" + graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/acme/provider-x\n    version: \">=v0.1.0\"\n",
			Scope: linter.ScopeGraph, Run: graphRun(cfg, checkCycle),
		},
		{
			ID: "XP604", Name: "dependency-kind", Severity: linter.SeverityError,
			Doc: `A dependency resolves to a package of another kind

The entry declares a kind (kind: Provider, or the deprecated provider:
key) but the package it resolves to is of another kind, say a
Configuration. Crossplane creates a package object of the declared kind
(internal/controller/pkg/resolver, NewPackage) and its revision refuses a
package whose meta object is of another kind (internal/xpkg/lint.go, the
per-kind linters), so the dependency never installs.`,
			Bad:   graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/function-auto-ready  # a Function\n    version: \">=v0.1.0\"\n",
			Good:  graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Function\n    package: xpkg.crossplane.io/crossplane-contrib/function-auto-ready\n    version: \">=v0.1.0\"\n",
			Scope: linter.ScopeGraph, Run: graphRun(cfg, checkKind),
		},
		{
			ID: "XP605", Name: "graph-crossplane-version", Severity: linter.SeverityError,
			Doc: `A package of the graph excludes the target Crossplane version

The target is the version given (the CLI's --crossplane-version), else
the release the default line was read from (v2.4.0). Every
package of the graph states the Crossplane versions it works with
(spec.crossplane.version); the graph installs only on a version all of
them allow. Crossplane checks each package revision's constraint against
its own version (internal/controller/pkg/revision/reconciler.go,
"incompatible Crossplane version") and leaves a package it excludes
unhealthy. The diagnostic is at the entry that pulls the package in and
names the package and its constraint; the root's own constraint is XP203's.`,
			Bad:   graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/acme/provider-old  # crossplane.version: \"<v2.0.0\", linted with --crossplane-version v2.1.0\n    version: \">=v0.1.0\"\n",
			Good:  graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/acme/provider-new  # crossplane.version: \">=v2.0.0\"\n    version: \">=v0.1.0\"\n",
			Scope: linter.ScopeGraph, Run: graphRun(cfg, checkCrossplaneVersion),
		},
		{
			ID: "XP606", Name: "composition-function", Severity: linter.SeverityError,
			Doc: `A Composition calls a Function the graph does not install

A pipeline step's functionRef.name must be the name of an installed
Function. Crossplane names a Function it installs as a dependency after
its repository, made a DNS label (internal/controller/pkg/resolver,
NewPackage, and internal/xpkg/name.go, ToDNSLabel: characters other than
lower-case letters and digits dropped, '/', '.', ':' and '-' turned into
'-'), so xpkg.crossplane.io/crossplane-contrib/function-auto-ready is
installed as crossplane-contrib-function-auto-ready. A step that names no
Function of the graph fails every composite resource of the Composition.`,
			Bad:   "# dependsOn: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: example\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1alpha1\n    kind: XWidget\n  mode: Pipeline\n  pipeline:\n  - step: patch\n    functionRef:\n      name: function-patch-and-transform\n",
			Good:  "# dependsOn: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: example\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1alpha1\n    kind: XWidget\n  mode: Pipeline\n  pipeline:\n  - step: patch\n    functionRef:\n      name: crossplane-contrib-function-patch-and-transform\n",
			Scope: linter.ScopeGraph, Run: graphRun(cfg, checkFunctions),
		},
		{
			ID: "XP607", Name: "composed-type", Severity: linter.SeverityError,
			Doc: `A composed resource's type is served by nothing in the graph

The apiVersion and kind of a composed resource (the base of a resource in
a function-patch-and-transform input, or of spec.resources) must be served
by a CRD, XRD or MRD of some package of the graph, by Kubernetes (groups
without a dot and *.k8s.io are taken as served), or by Crossplane's own
CRDs (their types and versions as of Crossplane v2.1.0). Otherwise the API server has no such type and every composite
resource of the Composition fails to compose it. The rule runs only when
every package of the graph was fetched (else XP601 says what is missing).
Types composed by other functions (templates, code) are not seen.

The bases of the root package's Compositions are then validated against
the schema of the CRD (or the CRD Crossplane derives from the XRD) that
serves it, without the required
fields check (patches fill fields in), as the API server would validate
the composed resource (package linter/schema): a field of the wrong type is
an error; other violations (enums, patterns, unknown fields, which the API
server prunes) are warnings, since a patch may still set the field. Only
the definitions of the types the root composes are kept for this (the
resolver keeps no other schema in memory); types served by the root
package itself are checked for presence only, and so are the composed
types of the graph's other packages, once per Composition and type (their
bases are not kept: a graph of many packages composing many resources
would otherwise hold them all).

A Function package's CRDs count as served up to Crossplane v2.1, which
installs them; from v2.2 they do not (crossplane commit 36f59bef1,
internal/controller/pkg/revision/establisher.go FilteringEstablisher: a
Function's objects are never installed), whatever the target, the default
being the newest stable line.`,
			Bad:   "# the graph's providers serve ec2.aws.upbound.io/v1beta1 VPC only\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: example\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1alpha1\n    kind: XNetwork\n  mode: Pipeline\n  pipeline:\n  - step: patch\n    functionRef:\n      name: crossplane-contrib-function-patch-and-transform\n    input:\n      apiVersion: pt.fn.crossplane.io/v1beta1\n      kind: Resources\n      resources:\n      - name: subnet\n        base:\n          apiVersion: ec2.aws.upbound.io/v1beta1\n          kind: Subnet\n",
			Good:  "# the graph's providers serve ec2.aws.upbound.io/v1beta1 VPC only\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: example\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1alpha1\n    kind: XNetwork\n  mode: Pipeline\n  pipeline:\n  - step: patch\n    functionRef:\n      name: crossplane-contrib-function-patch-and-transform\n    input:\n      apiVersion: pt.fn.crossplane.io/v1beta1\n      kind: Resources\n      resources:\n      - name: vpc\n        base:\n          apiVersion: ec2.aws.upbound.io/v1beta1\n          kind: VPC\n",
			Scope: linter.ScopeGraph, Run: graphRun(cfg, checkComposedTypes),
		},
		{
			ID: "XP608", Name: "dependency-unsettled", Severity: linter.SeverityError,
			Doc: `The versions selected for the graph do not settle

A package's selected version decides which dependencies it brings, and
those may constrain the package itself: root needs p ">=v1", p v2 needs q,
and q needs p "<v2". With p at v2 the graph holds q, whose constraint
selects v1; with p at v1 it does not, and the highest tag, v2, is selected
again. The resolver re-walks the graph while selections change (at most 8
times) and stops when a selection repeats: the graph it shows is that of
its last walk and may miss packages (q above), so every other graph rule's
verdict on it is unreliable. The message names the packages that flip and
the versions they took in turn.

Crossplane installs the highest tag the first constraint met allows
(internal/controller/pkg/resolver/reconciler.go,
findDependencyVersionToInstall: p v2 above), then installs what that
version depends on (q), whose constraint the installed version does not
meet: the dependency manager
(internal/controller/pkg/revision/dependency.go, Resolve) reports
"incompatible dependencies" and the revision stays unhealthy. Loosen or
tighten the constraints so that one version of each package satisfies
every constraint of the graph it brings.`,
			Bad:   "# configuration-a\n" + graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Configuration\n    package: xpkg.crossplane.io/acme/p  # p v2.0.0 needs q; q needs p \"<v2.0.0\"\n    version: \">=v1.0.0\"\n",
			Good:  "# configuration-a\n" + graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Configuration\n    package: xpkg.crossplane.io/acme/p  # p v2.0.0 needs q; q needs p \"<v2.0.0\"\n    version: \">=v1.0.0, <v2.0.0\"\n",
			Scope: linter.ScopeGraph, Run: graphRun(cfg, checkUnsettled),
		},
	}, footprintRules(cfg)...)
}

// Lint runs the graph rules (Rules, or the rule set opts give: rules of
// other scopes in it are known, not run) over g, with the configuration
// of opts, which is the linter's: linter.WithDisabled, WithSeverity
// (unknown rules and invalid severities are errors), the suppression
// annotations of the root package (meta.AnnotationSuppress: on an object,
// for the diagnostics in its document; on the meta object, for every
// diagnostic of the rules it names; the silenced ones are in the result's
// Suppressed),
// WithCrossplaneVersion (it enables XP605), WithMaxDiagnostics (each rule
// reports at most linter.DefaultMaxDiagnostics diagnostics by default,
// and one more saying how many it left out, at the first left out). The
// result's diagnostics are sorted by position, each at the dependsOn
// entry, or the Composition field, of the package that causes it.
func Lint(ctx context.Context, g *deps.Graph, opts ...linter.Option) (*linter.Result, error) {
	if g == nil {
		return nil, errors.New("graphrules: nil graph")
	}
	rules := Rules()
	res, err := linter.LintSubject(ctx, linter.ScopeGraph, g, append([]linter.Option{linter.WithRuleSet(rules...)}, opts...)...)
	if err != nil {
		return nil, err
	}
	if g.Root != nil && g.Root.Package != nil {
		if sup := g.Root.Package.Suppressions(); sup != nil {
			res.Diagnostics, res.Suppressed = linter.Suppress(ctx, sup, rules, res.Diagnostics)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// done reports whether the pass's context is done; checks call it once
// per package of the graph (and Lint then returns the context's error).
func (p *graphPass) done() bool { return p.Context().Err() != nil }

func checkUnresolved(p *graphPass) {
	for _, n := range p.g.Nodes {
		if p.done() {
			return
		}
		for _, e := range n.Edges {
			switch {
			case e.Unresolved != "":
				if e.Dep.Err != nil && n == p.g.Root {
					continue // XP301 and XP303 report the root's own entries
				}
				msg := fmt.Sprintf("dependency %d: %s cannot resolve: %s", e.Dep.Index, quote(e.Dep.Package), e.Unresolved)
				if len(e.Nearest) > 0 {
					msg += "; nearest tags: " + list(e.Nearest, token)
				} else if e.To != nil && strings.HasPrefix(e.Unresolved, "no tag") {
					msg += "; the package has no semantic version tags"
				}
				p.reportEdge(e, "%s", msg)
			case e.To != nil && e.To.Package == nil && e.To.Err != nil:
				p.reportEdge(e, "dependency %d: %s cannot be fetched: %s", e.Dep.Index, e.To.Label(), shorten(e.To.Err.Error()))
			}
		}
	}
}

func checkConflict(p *graphPass) {
	for _, n := range p.g.Nodes {
		if p.done() {
			return
		}
		if n.Conflict == "" {
			continue
		}
		var cs []string
		for _, e := range n.In {
			cs = append(cs, fmt.Sprintf("%s by %s at %s", quote(e.Dep.Constraint), e.From.Label(), e.Dep.Pos))
		}
		all := list(cs, func(s string) string { return s }) // each built from quoted or validated parts
		for i, e := range n.In {
			if i%256 == 0 && p.done() {
				return
			}
			p.reportEdge(e, "dependency %d: %s: %s; the constraints are %s", e.Dep.Index, n.Name, n.Conflict, all)
		}
	}
}

func checkCycle(p *graphPass) {
	for i, c := range p.g.Cycles {
		if len(c) == 0 {
			continue
		}
		names := []string{c[0].From.Label()}
		for _, e := range c {
			names = append(names, e.To.Label())
		}
		last := c[len(c)-1]
		if len(names) > maxListItems {
			names = append(names[:maxListItems/2:maxListItems/2], "…", names[len(names)-1])
		}
		more := ""
		if i < len(p.g.CycleSets) && len(p.g.CycleSets[i]) > len(c) {
			more = fmt.Sprintf(" (one of the cycles among %d packages that depend on each other)", len(p.g.CycleSets[i]))
		}
		p.reportEdge(last, "dependency %d closes a dependency cycle: %s%s", last.Dep.Index, strings.Join(names, " → "), more)
	}
	if n := p.g.CycleCount - len(p.g.Cycles); n > 0 && len(p.g.Cycles) > 0 {
		c := p.g.Cycles[len(p.g.Cycles)-1]
		last := c[len(c)-1]
		p.reportEdge(last, "%d more sets of packages that depend on each other in a cycle were left out: at most %d are reported", n, len(p.g.Cycles))
	}
}

func checkUnsettled(p *graphPass) {
	if len(p.g.Unsettled) == 0 {
		return
	}
	byName := map[string]*deps.Node{}
	for _, n := range p.g.Nodes {
		byName[n.Name] = n
	}
	var names []string
	for _, f := range p.g.Unsettled {
		names = append(names, f.Name)
	}
	all := list(names, quote)
	reported := false
	for _, f := range p.g.Unsettled {
		n := byName[f.Name]
		if n == nil || len(n.In) == 0 {
			continue
		}
		e := n.In[0]
		vs := make([]string, len(f.Versions))
		for i, v := range f.Versions {
			vs[i] = cmpOr(v, "none")
		}
		p.reportEdge(e, "dependency %d: the version of %s does not settle: each version selected brings dependencies whose constraints select another (in turn %s); the packages that flip are %s, and the graph shown may miss packages", e.Dep.Index, n.Name, list(vs, token), all)
		reported = true
	}
	if !reported {
		// No flipping package is in the last walk's graph: report at the
		// root's first entry, so that the graph never passes.
		for _, e := range p.g.Root.Edges {
			p.reportEdge(e, "the dependency graph does not settle: the versions of %s flip, each bringing dependencies whose constraints select another; the graph shown may miss packages", all)
			break
		}
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func checkKind(p *graphPass) {
	for _, n := range p.g.Nodes {
		if p.done() {
			return
		}
		for _, e := range n.Edges {
			if e.To == nil || e.To.Package == nil || e.Dep.Kind == "" || e.To.Package.Kind == "" {
				continue
			}
			if e.Dep.Kind != e.To.Package.Kind {
				p.reportEdge(e, "dependency %d is declared a %s but %s is a %s package", e.Dep.Index, quote(string(e.Dep.Kind)), e.To.Label(), e.To.Package.Kind)
			}
		}
	}
}

func checkCrossplaneVersion(p *graphPass) {
	if p.target == nil {
		return
	}
	for _, n := range p.g.Nodes {
		if p.done() {
			return
		}
		if n == p.g.Root || n.Package == nil || n.Package.Crossplane == "" || len(n.In) == 0 {
			continue
		}
		c, err := p.release.ParseConstraint(n.Package.Crossplane)
		if err != nil || c.Check(p.target) {
			continue
		}
		e := n.In[0]
		p.reportEdge(e, "dependency %d: %s requires Crossplane %s, which excludes %s", e.Dep.Index, n.Label(), quote(n.Package.Crossplane), p.target.Original())
	}
}

func checkFunctions(p *graphPass) {
	names := map[string]bool{}
	var sorted []string
	for _, n := range p.g.Nodes {
		for _, e := range n.Edges {
			isFn := e.Dep.Kind == meta.KindFunction || e.To != nil && e.To.Package != nil && e.To.Package.Kind == meta.KindFunction
			if !isFn {
				continue
			}
			if name := ref.InstalledName(e.Dep.Package); name != "" && !names[name] {
				names[name] = true
				sorted = append(sorted, name)
			}
		}
	}
	slices.Sort(sorted)
	for _, n := range p.g.Nodes {
		if n.Package == nil || p.done() {
			continue
		}
		cs := n.Package.Compositions()
		for ci := range cs {
			c := &cs[ci]
			for _, f := range c.Functions {
				if names[f.Name] {
					continue
				}
				have := "the graph installs no Function"
				if len(sorted) > 0 {
					have = "the graph's Functions are " + list(sorted, quote)
				}
				p.reportRef(c, f, "Composition %s calls function %s, which no Function of the graph is named (Crossplane names a Function installed as a dependency after its repository); %s", quote(c.Object.Name), quote(f.Name), have)
			}
		}
	}
}

// crossplaneTypes are the types Crossplane v2.1.0's own CRDs serve, with
// their served versions (from its CRDs, cluster/crds).
var crossplaneTypes = map[string][]string{
	"apiextensions.crossplane.io/CompositeResourceDefinition":     {"v1", "v2"},
	"apiextensions.crossplane.io/CompositionRevision":             {"v1"},
	"apiextensions.crossplane.io/Composition":                     {"v1"},
	"apiextensions.crossplane.io/EnvironmentConfig":               {"v1beta1"},
	"apiextensions.crossplane.io/ManagedResourceActivationPolicy": {"v1alpha1"},
	"apiextensions.crossplane.io/ManagedResourceDefinition":       {"v1alpha1"},
	"apiextensions.crossplane.io/Usage":                           {"v1alpha1", "v1beta1"},
	"ops.crossplane.io/CronOperation":                             {"v1alpha1"},
	"ops.crossplane.io/Operation":                                 {"v1alpha1"},
	"ops.crossplane.io/WatchOperation":                            {"v1alpha1"},
	"pkg.crossplane.io/ConfigurationRevision":                     {"v1"},
	"pkg.crossplane.io/Configuration":                             {"v1"},
	"pkg.crossplane.io/DeploymentRuntimeConfig":                   {"v1beta1"},
	"pkg.crossplane.io/FunctionRevision":                          {"v1", "v1beta1"},
	"pkg.crossplane.io/Function":                                  {"v1", "v1beta1"},
	"pkg.crossplane.io/ImageConfig":                               {"v1beta1"},
	"pkg.crossplane.io/Lock":                                      {"v1beta1"},
	"pkg.crossplane.io/ProviderRevision":                          {"v1"},
	"pkg.crossplane.io/Provider":                                  {"v1"},
	"protection.crossplane.io/ClusterUsage":                       {"v1beta1"},
	"protection.crossplane.io/Usage":                              {"v1beta1"},
}

// crossplaneGroups are the API groups of Crossplane's own types.
var crossplaneGroups = []string{"apiextensions.crossplane.io", "ops.crossplane.io", "pkg.crossplane.io", "protection.crossplane.io"}

// kubernetesGroup reports whether Kubernetes itself serves the group: the
// core group and other groups without a dot, and *.k8s.io.
func kubernetesGroup(g string) bool {
	return !strings.Contains(g, ".") || strings.HasSuffix(g, ".k8s.io")
}

func checkComposedTypes(p *graphPass) {
	type gk struct{ group, kind string }
	type server struct {
		versions []string
		node     *deps.Node
	}
	served := map[gk]*server{}
	for _, n := range p.g.Nodes {
		if n.Package == nil {
			return // an incomplete graph: XP601 says what is missing
		}
		if n.Package.Kind == meta.KindFunction && !p.release.InstallsFunctionObjects {
			continue // from v2.2 a Function's CRDs are not installed
		}
		for _, t := range n.Package.Types {
			k := gk{t.Group, t.Kind}
			if served[k] == nil {
				served[k] = &server{node: n}
			}
			served[k].versions = append(served[k].versions, t.Versions...)
		}
	}
	validators := map[*deps.Node]*schema.Validator{}
	for _, n := range p.g.Nodes {
		cs := n.Package.Compositions()
		for ci := range cs {
			c := &cs[ci]
			for _, r := range c.Composed {
				if p.Context().Err() != nil {
					return
				}
				group, version, ok := strings.Cut(r.APIVersion, "/")
				if !ok {
					group, version = "", r.APIVersion
				}
				if kubernetesGroup(group) {
					continue
				}
				if slices.Contains(crossplaneGroups, group) {
					if vs, ok := crossplaneTypes[group+"/"+r.Kind]; !ok {
						p.reportRef(c, r, "Composition %s composes %s %s, which Crossplane does not serve", quote(c.Object.Name), quote(r.APIVersion), quote(r.Kind))
					} else if !slices.Contains(vs, version) {
						p.reportRef(c, r, "Composition %s composes %s %s, but Crossplane serves %s only at %s", quote(c.Object.Name), quote(r.APIVersion), quote(r.Kind), quote(r.Kind), list(vs, quote))
					}
					continue
				}
				sv, ok := served[gk{group, r.Kind}]
				switch {
				case !ok:
					p.reportRef(c, r, "Composition %s composes %s %s, which no CRD, XRD or MRD of the graph serves", quote(c.Object.Name), quote(r.APIVersion), quote(r.Kind))
					continue
				case !slices.Contains(sv.versions, version):
					p.reportRef(c, r, "Composition %s composes %s %s, but the graph serves %s only at %s", quote(c.Object.Name), quote(r.APIVersion), quote(r.Kind), quote(r.Kind), list(sv.versions, quote))
					continue
				}
				if r.Base == nil || len(sv.node.Package.Definitions()) == 0 {
					continue
				}
				v, ok := validators[sv.node]
				if !ok {
					v = schema.New(sv.node.Package.Definitions(), schema.WithCrossplaneRelease(p.release.Schemas))
					validators[sv.node] = v
				}
				res, err := v.Validate(p.Context(), r.Base, schema.WithoutRequired())
				if err != nil || res == nil {
					continue // a schema that cannot be used, or a definition not kept
				}
				reported := 0
				for _, viol := range res.Violations {
					if reported == maxViolationsPerBase {
						p.reportRefSeverity(min(p.Rule.Severity, linter.SeverityWarning), c, r, "Composition %s: the base of %s %s has %d more schema violations", quote(c.Object.Name), quote(r.APIVersion), quote(r.Kind), len(res.Violations)-reported)
						break
					}
					reported++
					sev := p.Rule.Severity
					if viol.Kind != schema.KindType {
						// A patch may still set the field right; only a
						// wrong type is certain to be refused.
						sev = min(sev, linter.SeverityWarning)
					}
					p.reportRefSeverity(sev, c, r, "Composition %s: the base of %s %s does not match %s at %s: %s", quote(c.Object.Name), quote(r.APIVersion), quote(r.Kind), res.Definition, viol.Field(), shorten(viol.Message))
				}
			}
		}
	}
}

// maxViolationsPerBase bounds the schema violations reported for one
// composed resource's base.
const maxViolationsPerBase = 5
