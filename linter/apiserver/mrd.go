package apiserver

import (
	"slices"
	"strconv"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/internal/target"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

func ruleMRDCRD() *linter.Rule {
	return &linter.Rule{
		ID: "XP423", Name: "mrd-derived-crd-apiserver", Severity: linter.SeverityError,
		Doc: `The API server refuses the CRD Crossplane derives from an active ManagedResourceDefinition

Crossplane creates, for each ManagedResourceDefinition whose state is
Active, a CustomResourceDefinition from its spec (crossplane v2.4.0
internal/controller/apiextensions/managed/crd.go CRDAsUnstructured: group,
scope, names, conversion, and each version's served, storage, schema,
subresources, printer columns and selectable fields, versions sorted by
name). The MRD itself installs, but when the API server refuses the derived
CRD (validated as XP420 validates a package's CRD: k8s.io/apiextensions-apiserver
v0.37.2 ValidateCustomResourceDefinition, CEL rules compiled within the
cost limits), the managed resource kind is never served: the provider
cannot work. The MRD is taken as Crossplane sends it (see XP422): its
state defaults to Inactive, and an inactive MRD derives no CRD until a
ManagedResourceActivationPolicy activates it, so only MRDs that say
state: Active are checked. Each error is reported at the MRD's field it
comes from, with the API server's message.`,
		Bad:  "apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceDefinition\nmetadata:\n  name: buckets.example.org\nspec:\n  group: example.org\n  names: {kind: Bucket, plural: buckets}\n  scope: Cluster\n  state: Active\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-validations:\n        - rule: self.sise > 0\n        properties:\n          size: {type: integer}\n",
		Good: "apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceDefinition\nmetadata:\n  name: buckets.example.org\nspec:\n  group: example.org\n  names: {kind: Bucket, plural: buckets}\n  scope: Cluster\n  state: Active\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-validations:\n        - rule: self.size > 0\n        properties:\n          size: {type: integer}\n",
		Run: func(p *linter.Pass) error {
			t, err := target.Resolve(p.CrossplaneVersion)
			if err != nil {
				return err
			}
			if !t.V2Kinds {
				return nil // no MRDs before v2
			}
			var mrds []*parser.Object
			for _, o := range p.Package.Objects {
				if err := p.Context().Err(); err != nil {
					return err
				}
				gvk := o.GroupVersionKind()
				if gvk.Group == "apiextensions.crossplane.io" && gvk.Kind == "ManagedResourceDefinition" {
					mrds = append(mrds, o)
				}
			}
			ctx := p.Context()
			// Through the gateway, as XP420: the run's budget charged in
			// the package's order, the source bytes in flight bounded.
			var budget runBudget
			return ordered(ctx, mrds, (*parser.Object).RawSize, func(o *parser.Object) validated {
				if err := inFlight.acquire(ctx, o.RawSize()); err != nil {
					return validated{err: err}
				}
				defer inFlight.release(o.RawSize())
				u, err := o.Unstructured()
				if err != nil {
					return validated{skip: true}
				}
				obj, _, err := sendObject(ctx, t.Line, o.GroupVersionKind(), u.Object)
				if err != nil {
					return validated{err: err}
				}
				crd, order, ok := mrdCRD(o.ObjectMeta.Name, obj)
				if !ok {
					return validated{skip: true}
				}
				cost, fs, err := validateCRDNow(ctx, crd, &budget)
				for i := range fs {
					fs[i].path = mrdPath(fs[i].path, order)
				}
				return validated{fs: fs, err: err, cost: cost}
			}, func(o *parser.Object, r validated) error {
				if r.skip {
					return nil
				}
				if done, err := r.settle(p, &budget, o, "ManagedResourceDefinition "+safetext.Quote(o.ObjectMeta.Name)+": the CRD Crossplane derives from it"); done {
					return err
				}
				report(p, o, r.fs, "ManagedResourceDefinition "+safetext.Quote(o.ObjectMeta.Name)+": the API server refuses the CRD Crossplane derives from it")
				return nil
			})
		},
	}
}

// mrdCRD builds the CRD Crossplane derives from an active MRD as sent
// (crossplane v2.4.0 internal/controller/apiextensions/managed/crd.go
// CRDAsUnstructured, buildVersion), without the owner references; order
// maps each version of the CRD (sorted by name) to the MRD's index. ok is
// false when the MRD is not active or is not an object.
func mrdCRD(name string, mrd map[string]any) (crd map[string]any, order []int, ok bool) {
	spec, _ := mrd["spec"].(map[string]any)
	if spec == nil || spec["state"] != "Active" {
		return nil, nil, false
	}
	cspec := map[string]any{"group": spec["group"], "scope": spec["scope"]}
	names, _ := spec["names"].(map[string]any)
	cn := map[string]any{"kind": names["kind"], "plural": names["plural"]}
	for _, k := range []string{"singular", "listKind"} {
		if s, _ := names[k].(string); s != "" {
			cn[k] = s
		}
	}
	for _, k := range []string{"shortNames", "categories"} {
		if l, _ := names[k].([]any); len(l) > 0 {
			cn[k] = l
		}
	}
	cspec["names"] = cn
	if c, ok := spec["conversion"]; ok && c != nil {
		cspec["conversion"] = c
	}
	if b, _ := spec["preserveUnknownFields"].(bool); b {
		cspec["preserveUnknownFields"] = true
	}
	vs, _ := spec["versions"].([]any)
	versions := make([]any, 0, len(vs))
	for i, e := range vs {
		v, _ := e.(map[string]any)
		out := map[string]any{"name": v["name"], "served": v["served"], "storage": v["storage"]}
		if b, _ := v["deprecated"].(bool); b {
			out["deprecated"] = true
		}
		if w, ok := v["deprecationWarning"]; ok && w != nil {
			out["deprecationWarning"] = w
		}
		if s, _ := v["schema"].(map[string]any); s != nil {
			out["schema"] = map[string]any{"openAPIV3Schema": s["openAPIV3Schema"]}
		}
		if sub, _ := v["subresources"].(map[string]any); sub != nil {
			cs := map[string]any{}
			if st, ok := sub["status"]; ok && st != nil {
				cs["status"] = map[string]any{}
			}
			if sc, ok := sub["scale"]; ok && sc != nil {
				cs["scale"] = sc
			}
			out["subresources"] = cs
		}
		for _, k := range []string{"additionalPrinterColumns", "selectableFields"} {
			if l, _ := v[k].([]any); len(l) > 0 {
				out[k] = l
			}
		}
		versions = append(versions, out)
		order = append(order, i)
	}
	// Versions sorted by name, as Crossplane sorts them.
	idx := make([]int, len(versions))
	for i := range idx {
		idx[i] = i
	}
	vname := func(i int) string { s, _ := versions[i].(map[string]any)["name"].(string); return s }
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(vname(a), vname(b)) })
	sorted := make([]any, len(versions))
	for i, j := range idx {
		sorted[i] = versions[j]
		order[i] = j
	}
	cspec["versions"] = sorted
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": name},
		"spec":       cspec,
	}, order, true
}

// mrdPath maps a path of the derived CRD to the MRD's: the same but for
// the version's index.
func mrdPath(p []string, order []int) []string {
	if len(p) >= 3 && p[0] == "spec" && p[1] == "versions" {
		if i, err := strconv.Atoi(p[2]); err == nil && i >= 0 && i < len(order) {
			q := slices.Clone(p)
			q[2] = strconv.Itoa(order[i])
			return q
		}
	}
	return p
}
