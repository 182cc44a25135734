package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/linter/internal/kinds"
)

// kindsVersions records where PackageKinds' schemas come from.
type kindsVersions struct {
	// Crossplane is the Crossplane release whose CRDs give the schemas of
	// Crossplane's kinds (cluster/crds).
	Crossplane string
	// Kubernetes is the Kubernetes release whose published OpenAPI gives
	// the schemas of apiextensions.k8s.io/v1 and admissionregistration.k8s.io/v1;
	// KubernetesV1beta1 the (older) release that gives
	// apiextensions.k8s.io/v1beta1.
	Kubernetes, KubernetesV1beta1 string
}

type kindsFile struct {
	Crossplane        string `json:"crossplane"`
	Kubernetes        string `json:"kubernetes"`
	KubernetesV1beta1 string `json:"kubernetesV1beta1"`
	Kinds             []struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
		Source  string `json:"source"`
		// Raw, decoded only when the kind is first validated: most
		// runs use two or three of the kinds.
		Schema      json.RawMessage            `json:"schema"`
		Definitions map[string]json.RawMessage `json:"definitions"`
	} `json:"kinds"`
}

// kindsData decodes kinds.json, once, when a full validation or kindsReleases
// first needs it: a type check takes the package kinds' trees from the
// tables (kindtypes.go).
var kindsData = sync.OnceValue(func() *kindsFile {
	var f kindsFile
	if err := json.Unmarshal(kinds.JSON, &f); err != nil {
		panic(fmt.Sprintf("embedded kinds.json: %v", err)) // embedded data, tested
	}
	return &f
})

// kindSchema returns the schema and definitions kinds.json holds for gvk.
func kindSchema(gvk schema.GroupVersionKind) (json.RawMessage, map[string]any, error) {
	for _, k := range kindsData().Kinds {
		if k.Group != gvk.Group || k.Version != gvk.Version || k.Kind != gvk.Kind {
			continue
		}
		var defs map[string]any
		if k.Definitions != nil {
			defs = make(map[string]any, len(k.Definitions))
			for name, d := range k.Definitions {
				defs[name] = d
			}
		}
		return k.Schema, defs, nil
	}
	return nil, nil, fmt.Errorf("%w: %s is not in the embedded kinds", ErrInvalidSchema, gvk)
}

// packageKinds is PackageKinds' Validator: its kinds are the tables', in
// kinds.json's order (TestKindTypeTables checks they are the same).
var packageKinds = sync.OnceValue(func() *Validator {
	v := &Validator{lim: Limits{}.withDefaults(), byGVK: map[schema.GroupVersionKind]*entry{}, groups: map[schema.GroupKind]bool{}}
	// Shared by the whole process, over this module's own schemas, which
	// kube-openapi validates whole (linear in the object): no budget to
	// run out of, and every kind kept.
	v.cost.max = math.MaxInt64
	v.lim.MaxRetainedNodes = math.MaxInt
	for _, k := range kindTypeKinds {
		gvk := schema.GroupVersionKind{Group: k.group, Version: k.version, Kind: k.kind}
		e := &entry{
			gvk:        gvk,
			definition: k.source,
			served:     true,
			tables:     true,
		}
		e.build = func() (any, bool, error) {
			s, defs, err := kindSchema(gvk)
			e.defs = defs // read by doCompile after build, under e.once
			return s, false, err
		}
		v.add(e)
	}
	return v
})

// PackageKinds returns a Validator for the kinds a Crossplane package may
// hold: CompositeResourceDefinition (v1, v2), Composition,
// ManagedResourceDefinition, ManagedResourceActivationPolicy, Operation,
// CronOperation and WatchOperation from Crossplane's own CRDs, and
// CustomResourceDefinition (v1, v1beta1), ValidatingWebhookConfiguration and
// MutatingWebhookConfiguration from Kubernetes' published OpenAPI
// (Crossplane v2.1.0's CRDs; PackageKindsAt takes other releases). It is built once and shared; it is safe
// for concurrent use.
//
// Crossplane decodes each such object into its Go type, leniently: unknown
// fields are dropped, and only a value of the wrong JSON type fails. Use
// WithTypesOnly to check what that decoding refuses.
func PackageKinds() *Validator { return packageKinds() }

// kindsReleases returns the releases PackageKinds' schemas come from.
func kindsReleases() kindsVersions {
	f := kindsData()
	return kindsVersions{Crossplane: f.Crossplane, Kubernetes: f.Kubernetes, KubernetesV1beta1: f.KubernetesV1beta1}
}

// packageKindsAt holds PackageKindsAt's Validators, one per release line
// whose Crossplane CRDs differ from the tables' (v2.1.0).
var packageKindsAt sync.Map // release string -> *Validator

// PackageKindsAt returns a Validator for the kinds a Crossplane package may
// hold, with Crossplane's own kinds typed by the CRDs of Crossplane release
// (a release such as "v2.3.4" or its line "v2.3"), so that a field a later
// release added (Composition and Operation requirements.requiredSchemas
// from v2.2, XRD defaultCompositionRevisionSelector from v2.2, XRD
// versions[].subresources.scale from v2.3) is type-checked at that release
// and unknown (dropped on decode) before it, and a 1.20 Composition is
// typed by 1.20's CRD. A kind or version the release's CRDs do not have
// (1.x has no ManagedResourceDefinition, no apiextensions.crossplane.io/v2
// XRD, no ops.crossplane.io kinds) is typed as PackageKinds types it: the
// release's scheme refuses it anyway. Releases whose CRDs are not embedded,
// and those whose CRDs equal the tables' (v2.0, v2.1), get PackageKinds.
// Kubernetes' kinds are PackageKinds' at every release. Validators are
// built once per release line and shared; they are safe for concurrent
// use.
func PackageKindsAt(release string) *Validator {
	if _, ok := kinds.CRD(release, "apiextensions.crossplane.io", "Composition"); !ok || kinds.Same(release, kindsReleases().Crossplane) {
		return PackageKinds()
	}
	if v, ok := packageKindsAt.Load(lineOf(release)); ok {
		return v.(*Validator)
	}
	v := &Validator{lim: Limits{}.withDefaults(), byGVK: map[schema.GroupVersionKind]*entry{}, groups: map[schema.GroupKind]bool{}}
	// Shared by every caller, as PackageKinds is: Crossplane's own
	// schemas, not the upload's, so no work budget, and every kind kept.
	v.cost.max = math.MaxInt64
	v.lim.MaxRetainedNodes = math.MaxInt
	base := PackageKinds()
	for _, k := range kindTypeKinds {
		gvk := schema.GroupVersionKind{Group: k.group, Version: k.version, Kind: k.kind}
		s, ok := crdVersionSchema(release, gvk)
		if !ok {
			v.add(base.byGVK[gvk]) // Kubernetes' kinds, and kinds the release lacks: the tables' entry, shared
			continue
		}
		e := &entry{gvk: gvk, definition: "crossplane " + release + " " + k.group + "/" + k.kind + " CRD", served: true}
		e.build = func() (any, bool, error) { return s, false, nil }
		v.add(e)
	}
	got, _ := packageKindsAt.LoadOrStore(lineOf(release), v)
	return got.(*Validator)
}

// crdVersionSchema returns the openAPIV3Schema of version gvk.Version of
// the CRD release installs for gvk's kind; false when the release has no
// such CRD or the CRD no such version.
func crdVersionSchema(release string, gvk schema.GroupVersionKind) (any, bool) {
	crd, ok := kinds.CRD(release, gvk.Group, gvk.Kind)
	if !ok {
		return nil, false
	}
	var m map[string]any
	if err := json.Unmarshal(crd, &m); err != nil {
		return nil, false // embedded data, tested: never happens
	}
	for _, ver := range getList(m, "spec", "versions") {
		if vm, _ := ver.(map[string]any); vm != nil && getString(vm, "name") == gvk.Version {
			if s := get(vm, "schema", "openAPIV3Schema"); s != nil {
				return s, true
			}
		}
	}
	return nil, false
}

// lineOf returns "vMAJOR.MINOR" of a release such as v2.2.4 or 2.2, with
// the minor zero-padded so that lines compare as strings.
func lineOf(v string) string {
	v = strings.TrimPrefix(v, "v")
	major, rest, _ := strings.Cut(v, ".")
	minor, _, _ := strings.Cut(rest, ".")
	minor, _, _ = strings.Cut(minor, "-")
	return fmt.Sprintf("v%s.%03s", major, minor)
}
