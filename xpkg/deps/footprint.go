package deps

import (
	"fmt"
	"slices"

	"github.com/xpkgkit/xpkgkit/internal/target"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
)

// definitionInfo is what the footprint and the activation rules keep of a
// CRD, MRD or XRD.
type definitionInfo struct {
	by          string // CustomResourceDefinition, ManagedResourceDefinition, CompositeResourceDefinition
	name        string // metadata.name: an MRD's is what an MRAP matches
	group, kind string
	active      bool // an MRD's spec.state is Active
	claim       bool // an XRD that offers a claim
	bytes       int64
}

// definitionOf reads o's definition from its outline.
func definitionOf(o *parser.Object, by string) definitionInfo {
	d := definitionInfo{by: by, name: o.Name, bytes: int64(o.RawSize())}
	spec, _ := o.Outline()["spec"].(map[string]any)
	d.group, _ = spec["group"].(string)
	names, _ := spec["names"].(map[string]any)
	d.kind, _ = names["kind"].(string)
	state, _ := spec["state"].(string)
	d.active = state == "Active"
	if cn, ok := spec["claimNames"].(map[string]any); ok {
		ck, _ := cn["kind"].(string)
		d.claim = ck != ""
	}
	return d
}

// providerConfigKinds are the kinds of a Provider's CRDs that Crossplane
// keeps as CRDs when it converts the others to MRDs (crossplane
// internal/converter/custom_to_managed.go, isManagedResource).
var providerConfigKinds = []string{"ProviderConfig", "ClusterProviderConfig", "ProviderConfigUsage", "ClusterProviderConfigUsage"}

// FootprintCounts are the definitions a package (or a graph) installs at
// a target.
type FootprintCounts struct {
	// CRDs are the plain CustomResourceDefinitions served at install: a
	// package's CRDs that stay CRDs, and the CRDs Crossplane derives from
	// an XRD (its composite's, and its claim's).
	CRDs int `json:"crds"`
	// MRDsActive are the ManagedResourceDefinitions active at install,
	// each serving its CRD.
	MRDsActive int `json:"mrdsActive"`
	// MRDsInactive are the ManagedResourceDefinitions left inactive at
	// install: no CRD is served until an MRAP activates them.
	MRDsInactive int `json:"mrdsInactive"`
	// SchemaBytes are the bytes of the documents defining the served CRDs
	// (an XRD's counted once for each CRD derived from it).
	SchemaBytes int64 `json:"schemaBytes"`
	// InactiveSchemaBytes are those of the inactive MRDs.
	InactiveSchemaBytes int64 `json:"inactiveSchemaBytes"`
}

// Served returns how many CRDs the API server serves: CRDs and active
// MRDs.
func (c FootprintCounts) Served() int { return c.CRDs + c.MRDsActive }

func (c *FootprintCounts) add(o FootprintCounts) {
	c.CRDs += o.CRDs
	c.MRDsActive += o.MRDsActive
	c.MRDsInactive += o.MRDsInactive
	c.SchemaBytes += o.SchemaBytes
	c.InactiveSchemaBytes += o.InactiveSchemaBytes
}

// PackageFootprint is one package's part of a Footprint.
type PackageFootprint struct {
	// Package is the node's name ("" for a root read from a file) and
	// Version its selected version.
	Package string `json:"package"`
	Version string `json:"version,omitempty"`
	FootprintCounts
}

// Footprint is what a graph puts on the API server at a target: the
// definitions each package installs, and an estimate of the memory the
// API server spends serving them.
type Footprint struct {
	// Target is the Crossplane release line it was counted for.
	Target string `json:"target"`
	// Packages are the packages that install a definition, in the graph's
	// order.
	Packages []PackageFootprint `json:"packages"`
	// Total sums them.
	Total FootprintCounts `json:"total"`
	// APIServerBytes estimates the API server memory of the served CRDs
	// (4 MiB per served CRD, README "Footprint"); APIServerBytesLow and
	// High are the model's error band, half and twice the estimate.
	APIServerBytes     int64 `json:"apiServerBytes"`
	APIServerBytesLow  int64 `json:"apiServerBytesLow"`
	APIServerBytesHigh int64 `json:"apiServerBytesHigh"`
}

// apiServerBytesPerCRD is the memory model's cost of one served CRD in
// kube-apiserver: about 4 MiB. It is calibrated from one published
// figure (the one xpkgkit issue 36 cites: a reported cluster whose
// kube-apiserver went from 4.4 GiB to 1.3 GiB when 912 CRDs were trimmed
// to 107: 3.1 GiB for 805 CRDs, 3.9 MiB each). A served CRD costs its
// handler, its OpenAPI and structural schemas, its validators and its
// watch cache, which grow with the schema; an inactive MRD serves no CRD
// and is counted as nothing. The band is half to twice the estimate
// (apiServerBandLow, apiServerBandHigh): provider CRDs' schemas vary
// by more than a factor of ten, and the model has one calibration point,
// not a measurement of ours (README, "Footprint").
const apiServerBytesPerCRD = 4 << 20

// The memory model's error band, as factors of its estimate.
const (
	apiServerBandLow  = 0.5
	apiServerBandHigh = 2.0
)

// Footprint counts what g installs at the Crossplane version v (any
// patch of a supported line; "" for the default target):
//   - a CRD stays a CRD, except in a Provider from v2.0 on, where
//     Crossplane converts every CRD but the ProviderConfig kinds to an
//     MRD, active unless the Provider declares the safe-start capability
//     (crossplane internal/controller/pkg/revision/reconciler.go, with
//     --enable-custom-to-managed-resource-conversion, on by default;
//     internal/converter/custom_to_managed.go);
//   - an MRD is active when its spec.state is Active, and inactive
//     otherwise (the field's default is Inactive);
//   - an XRD derives a CRD for its composite and one for its claim;
//   - from v2.2 a Function's objects are not installed.
func (g *Graph) Footprint(v string) (Footprint, error) {
	rel, err := target.Resolve(v)
	if err != nil {
		return Footprint{}, fmt.Errorf("deps: footprint: %w", err)
	}
	f := Footprint{Target: rel.Line}
	for _, n := range g.Nodes {
		if n.Package == nil {
			continue
		}
		c := packageCounts(n.Package, rel.Release)
		if c == (FootprintCounts{}) {
			continue
		}
		f.Packages = append(f.Packages, PackageFootprint{Package: n.Name, Version: n.Version, FootprintCounts: c})
		f.Total.add(c)
	}
	f.APIServerBytes = int64(f.Total.Served()) * apiServerBytesPerCRD
	f.APIServerBytesLow = int64(float64(f.APIServerBytes) * apiServerBandLow)
	f.APIServerBytesHigh = int64(float64(f.APIServerBytes) * apiServerBandHigh)
	return f, nil
}

// packageCounts counts the definitions p installs at rel.
func packageCounts(p *Package, rel target.Release) FootprintCounts {
	var c FootprintCounts
	if p.Kind == meta.KindFunction && !rel.InstallsFunctionObjects {
		return c
	}
	for _, d := range p.defs {
		if d.group == "" || d.kind == "" {
			continue // not a definition the API server accepts
		}
		switch mrd, active := installedAs(p, d, rel); {
		case d.by == "CompositeResourceDefinition":
			n := 1
			if d.claim {
				n = 2
			}
			c.CRDs += n
			c.SchemaBytes += int64(n) * d.bytes
		case !mrd:
			c.CRDs++
			c.SchemaBytes += d.bytes
		case active:
			c.MRDsActive++
			c.SchemaBytes += d.bytes
		default:
			c.MRDsInactive++
			c.InactiveSchemaBytes += d.bytes
		}
	}
	return c
}

// installedAs says whether Crossplane installs d of p as an MRD at rel,
// and whether active.
func installedAs(p *Package, d definitionInfo, rel target.Release) (mrd, active bool) {
	switch d.by {
	case "ManagedResourceDefinition":
		return true, d.active
	case "CustomResourceDefinition":
		if rel.V2Kinds && p.Kind == meta.KindProvider && !slices.Contains(providerConfigKinds, d.kind) {
			return true, !p.safeStart
		}
	}
	return false, false
}
