package graphrules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
)

// FootprintLimits are the thresholds of XP610 (graph-footprint-limit): a
// graph whose served CRDs, or whose estimated API server memory, exceeds
// one draws a warning. A zero field sets no threshold.
type FootprintLimits struct {
	// MaxCRDs bounds the CRDs served at install (CRDs and active MRDs).
	MaxCRDs int
	// MaxAPIServerBytes bounds deps.Footprint.APIServerBytes.
	MaxAPIServerBytes int64
}

// Option configures the graph rules (Rules).
type Option func(*config)

type config struct {
	footprint FootprintLimits
}

// WithFootprintLimits sets the thresholds of XP610 (the CLI's
// max-crds and max-apiserver-memory configuration keys).
func WithFootprintLimits(l FootprintLimits) Option {
	return func(c *config) { c.footprint = l }
}

const mrapHead = "apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceActivationPolicy\nmetadata:\n  name: platform\nspec:\n  activate:\n"

func footprintRules(cfg *config) []*linter.Rule {
	return []*linter.Rule{
		{
			ID: "XP609", Name: "graph-footprint", Severity: linter.SeverityInfo,
			Doc: `What the graph puts on the API server

One finding at the root's meta object: how many CRDs the graph installs at
the target, split into plain CRDs (a package's own, and the two an XRD with
a claim derives), ManagedResourceDefinitions active at install and MRDs
left inactive; the bytes of the served definitions; and an estimate of the
API server memory they take, with its error band (the model is the
README's, "Footprint": about 4 MiB per served CRD, half to twice that).

From v2.0 Crossplane converts a Provider's CRDs, but its ProviderConfig
kinds, to MRDs when it installs the package (crossplane
internal/controller/pkg/revision/reconciler.go and
internal/converter/custom_to_managed.go,
--enable-custom-to-managed-resource-conversion, on by default): active
unless the Provider declares the safe-start capability, when no CRD is
served until an MRAP activates it. The message also says whether the
graph holds MRAPs; without one, the cluster's default activation policy
applies (the "default" MRAP Crossplane's init creates from its
--activation flags).`,
			Bad:   "# a Configuration depending on a family of Providers\n" + graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.upbound.io/upbound/provider-aws-ec2  # 100 MRDs, safe-start\n    version: \">=v2.0.0\"\n",
			Good:  "# the same: XP609 is information, reported once per graph\n" + graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.upbound.io/upbound/provider-aws-ec2\n    version: \">=v2.0.0\"\n",
			Scope: linter.ScopeGraph, Run: graphRun(cfg, checkFootprint),
		},
		{
			ID: "XP610", Name: "graph-footprint-limit", Severity: linter.SeverityWarning,
			Doc: `The graph serves more CRDs, or takes more API server memory, than allowed

The configuration's max-crds (served CRDs: plain CRDs and MRDs active at
install) or max-apiserver-memory (the estimate of XP609) is exceeded.
Crossplane installs the graph all the same; a cluster whose API server
carries hundreds of CRDs it never uses pays for each in memory and start-up
time (crossplane/crossplane issues 2649, 3852 and 4192). Depend on the
family providers the Compositions need, or make MRDs inactive with
safe-start and activate what is composed (XP611 lists it).`,
			Bad:   "# .xpkg-lint.yaml: max-crds: 200\n" + graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.upbound.io/upbound/provider-aws  # the monolith: about 900 CRDs\n    version: \">=v1.0.0\"\n",
			Good:  "# .xpkg-lint.yaml: max-crds: 200\n" + graphHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.upbound.io/upbound/provider-aws-s3  # a family provider\n    version: \">=v1.0.0\"\n",
			Scope: linter.ScopeGraph, Run: graphRun(cfg, checkFootprintLimit),
		},
		{
			ID: "XP611", Name: "activation-missing", Severity: linter.SeverityWarning,
			Doc: `A composed kind's MRD is inactive, and no MRAP of the graph activates it

When the graph holds ManagedResourceActivationPolicies, every kind that a
Composition composes and that an MRD inactive at install serves must be
activated by one of them: Crossplane's activation policy controller
(internal/controller/apiextensions/activationpolicy/reconciler.go) sets an
MRD Active only when an entry of an MRAP matches its name
(ActivationPolicy.Match: filepath.Match, so exact names and wildcards such
as "*.ec2.aws.upbound.io"). Otherwise the MRD's CRD is never served and the
Composition cannot create the resource. The finding is at the composed
resource and names the MRD and the graph's MRAPs. Without an MRAP in the
graph, nothing is flagged: the cluster's default policy applies.`,
			Bad:   "# composes ec2.aws.upbound.io/v1beta1 Instance (MRD instances.ec2.aws.upbound.io, inactive)\n" + mrapHead + "  - buckets.s3.aws.upbound.io\n",
			Good:  "# composes ec2.aws.upbound.io/v1beta1 Instance (MRD instances.ec2.aws.upbound.io, inactive)\n" + mrapHead + "  - buckets.s3.aws.upbound.io\n  - instances.ec2.aws.upbound.io\n",
			Scope: linter.ScopeGraph, Run: graphRun(cfg, checkActivationMissing),
		},
		{
			ID: "XP612", Name: "activation-unmatched", Severity: linter.SeverityWarning,
			Doc: `An MRAP entry matches no MRD of the graph

An entry of a ManagedResourceActivationPolicy's spec.activate matches
(filepath.Match, as Crossplane's ActivationPolicy.Match does) the name of
no MRD the graph installs, its Providers' converted CRDs included: a typo,
or a provider that is not a dependency. Crossplane accepts it and
activates nothing with it.`,
			Bad:   "# the graph's MRDs: buckets.s3.aws.upbound.io\n" + mrapHead + "  - bucket.s3.aws.upbound.io\n",
			Good:  "# the graph's MRDs: buckets.s3.aws.upbound.io\n" + mrapHead + "  - buckets.s3.aws.upbound.io\n",
			Scope: linter.ScopeGraph, Run: graphRun(cfg, checkActivationUnmatched),
		},
	}
}

// reportRoot reports at the root's meta object.
func (p *graphPass) reportRoot(format string, args ...any) {
	r := p.g.Root.Package
	if r == nil {
		return
	}
	d := linter.Diagnostic{Pos: r.MetaPos(), Object: r.Meta}
	if !p.AtCap() {
		d.Message = fmt.Sprintf(format, args...)
	}
	p.Report(d)
}

// complete reports whether every node of the graph was fetched: the
// footprint of an incomplete graph is not the cluster's (XP601 says what
// is missing).
func (p *graphPass) complete() bool {
	for _, n := range p.g.Nodes {
		if n.Package == nil {
			return false
		}
	}
	return p.g.Root != nil
}

func (p *graphPass) footprint() (deps.Footprint, bool) {
	if !p.complete() {
		return deps.Footprint{}, false
	}
	f, err := p.g.Footprint(p.release.Patch)
	return f, err == nil
}

func checkFootprint(p *graphPass) {
	f, ok := p.footprint()
	if !ok {
		return
	}
	t := f.Total
	a, err := p.g.Activation(p.Context(), p.CrossplaneVersion)
	if err != nil {
		return // the context is done: Lint returns its error
	}
	mraps := len(a.Policies)
	policy := fmt.Sprintf("%d MRAPs in the graph", mraps)
	if mraps == 0 {
		policy = "no MRAP in the graph: the cluster's default activation policy applies"
	}
	var top []string
	ps := slices.Clone(f.Packages)
	slices.SortStableFunc(ps, func(a, b deps.PackageFootprint) int {
		return (b.Served() + b.MRDsInactive) - (a.Served() + a.MRDsInactive)
	})
	for i, pf := range ps {
		if i == 3 {
			top = append(top, fmt.Sprintf("%d more packages", len(ps)-3))
			break
		}
		name := pf.Package
		if name == "" {
			name = "the root"
		}
		top = append(top, fmt.Sprintf("%s %d/%d/%d", quote(name), pf.CRDs, pf.MRDsActive, pf.MRDsInactive))
	}
	detail := ""
	if len(top) > 0 {
		detail = " (plain/active/inactive: " + strings.Join(top, ", ") + ")"
	}
	p.reportRoot("at Crossplane %s the graph installs %d CRDs: %d plain, %d MRDs active at install, %d MRDs inactive%s; "+
		"%s of served definitions (%s inactive); estimated API server memory %s (%s to %s, README \"Footprint\"); %s",
		f.Target, t.CRDs+t.MRDsActive+t.MRDsInactive, t.CRDs, t.MRDsActive, t.MRDsInactive, detail,
		formatBytes(t.SchemaBytes), formatBytes(t.InactiveSchemaBytes),
		formatBytes(f.APIServerBytes), formatBytes(f.APIServerBytesLow), formatBytes(f.APIServerBytesHigh), policy)
}

func checkFootprintLimit(p *graphPass) {
	l := p.cfg.footprint
	if l == (FootprintLimits{}) {
		return
	}
	f, ok := p.footprint()
	if !ok {
		return
	}
	if n := f.Total.Served(); l.MaxCRDs > 0 && n > l.MaxCRDs {
		p.reportRoot("the graph serves %d CRDs at Crossplane %s (%d plain, %d MRDs active at install), over max-crds %d",
			n, f.Target, f.Total.CRDs, f.Total.MRDsActive, l.MaxCRDs)
	}
	if l.MaxAPIServerBytes > 0 && f.APIServerBytes > l.MaxAPIServerBytes {
		p.reportRoot("the graph's estimated API server memory, %s (%s to %s), is over max-apiserver-memory %s",
			formatBytes(f.APIServerBytes), formatBytes(f.APIServerBytesLow), formatBytes(f.APIServerBytesHigh), formatBytes(l.MaxAPIServerBytes))
	}
}

// activationOf matches the graph's MRDs and MRAPs; nil when the graph is
// incomplete, holds no MRAP, or the context is done. When the matching
// could not finish, XP611 reports it once, as information ("not checked").
func (p *graphPass) activationOf() *deps.Activation {
	if !p.complete() {
		return nil
	}
	a, err := p.g.Activation(p.Context(), p.CrossplaneVersion)
	if err != nil || len(a.Policies) == 0 {
		return nil
	}
	return a
}

func checkActivationMissing(p *graphPass) {
	a := p.activationOf()
	if a == nil {
		return
	}
	if !a.Complete {
		p.reportRoot("not checked: the MRAPs' patterns that are neither exact names, prefixes nor suffixes need more than %d comparisons with the graph's MRD names", deps.MaxActivationChecks)
		return
	}
	type gk struct{ group, kind string }
	inactive := map[gk]int{} // an MRD serving the kind that nothing activates
	served := map[gk]bool{}  // some MRD of the kind is active
	for i, d := range a.MRDs {
		k := gk{d.Group, d.Kind}
		if d.Active {
			served[k] = true
			continue
		}
		if _, ok := inactive[k]; !ok {
			inactive[k] = i
		}
	}
	names := make([]string, 0, len(a.Policies))
	for _, m := range a.Policies {
		names = append(names, m.Object.Name)
	}
	for _, n := range p.g.Nodes {
		cs := n.Package.Compositions()
		for ci := range cs {
			c := &cs[ci]
			for _, r := range c.Composed {
				if p.Context().Err() != nil {
					return
				}
				group, _, _ := strings.Cut(r.APIVersion, "/")
				k := gk{group, r.Kind}
				i, ok := inactive[k]
				if !ok || served[k] {
					continue
				}
				p.reportRef(c, r, "Composition %s composes %s %s, served by the MRD %s, which is inactive at install and which none of the graph's MRAPs (%s) activates",
					quote(c.Object.Name), quote(r.APIVersion), quote(r.Kind), quote(a.MRDs[i].Name), list(names, quote))
			}
		}
	}
}

func checkActivationUnmatched(p *graphPass) {
	a := p.activationOf()
	if a == nil || !a.Complete {
		return
	}
	for _, m := range a.Policies {
		for _, e := range m.Unmatched {
			if p.Context().Err() != nil {
				return
			}
			d := linter.Diagnostic{Pos: e.Pos, Field: e.Field, Object: m.Object}
			if !p.AtCap() {
				d.Message = fmt.Sprintf("MRAP %s activates %s, which matches no MRD of the graph (%d MRDs)", quote(m.Object.Name), quote(e.Pattern), len(a.MRDs))
			}
			p.Report(d)
		}
	}
}

// formatBytes renders n bytes in MiB or GiB, one decimal.
func formatBytes(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
