package schema

import (
	"encoding/json"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/linter/schema/internal/kinds"
)

// KindsVersions records where PackageKinds' schemas come from.
type KindsVersions struct {
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

var packageKinds = sync.OnceValues(func() (*Validator, KindsVersions) {
	var f kindsFile
	if err := json.Unmarshal(kinds.JSON, &f); err != nil {
		panic(fmt.Sprintf("embedded kinds.json: %v", err)) // embedded data, tested
	}
	v := &Validator{lim: Limits{}.withDefaults(), byGVK: map[schema.GroupVersionKind]*entry{}, groups: map[schema.GroupKind]bool{}}
	for _, k := range f.Kinds {
		s := k.Schema
		var defs map[string]any
		if k.Definitions != nil {
			defs = make(map[string]any, len(k.Definitions))
			for name, d := range k.Definitions {
				defs[name] = d
			}
		}
		e := &entry{
			gvk:        schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind},
			definition: k.Source,
			served:     true,
			build:      func() (any, bool, error) { return s, false, nil },
			defs:       defs,
		}
		v.add(e)
	}
	return v, KindsVersions{Crossplane: f.Crossplane, Kubernetes: f.Kubernetes, KubernetesV1beta1: f.KubernetesV1beta1}
})

// PackageKinds returns a Validator for the kinds a Crossplane package may
// hold: CompositeResourceDefinition (v1, v2), Composition,
// ManagedResourceDefinition, ManagedResourceActivationPolicy, Operation,
// CronOperation and WatchOperation from Crossplane's own CRDs, and
// CustomResourceDefinition (v1, v1beta1), ValidatingWebhookConfiguration and
// MutatingWebhookConfiguration from Kubernetes' published OpenAPI
// (KindsOf tells which releases). It is built once and shared; it is safe
// for concurrent use.
//
// Crossplane decodes each such object into its Go type, leniently: unknown
// fields are dropped, and only a value of the wrong JSON type fails. Use
// TypesOnly to check what that decoding refuses.
func PackageKinds() *Validator {
	v, _ := packageKinds()
	return v
}

// KindsOf returns the releases PackageKinds' schemas come from.
func KindsOf() KindsVersions {
	_, k := packageKinds()
	return k
}
