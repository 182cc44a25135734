package apiserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/target"
	"github.com/xpkgkit/xpkgkit/meta"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

// maxFindings caps the findings one rule reports per object.
const maxFindings = 50

// Rules returns the rules of this package, for linter.WithRules: XP420
// crd-apiserver, XP421 xrd-derived-crd-apiserver, XP422 kind-apiserver
// and XP423 mrd-derived-crd-apiserver. Each call returns new values.
// Options: WithCache.
func Rules(opts ...Option) []*linter.Rule {
	o := newOptions(opts)
	return []*linter.Rule{ruleCRD(o), ruleDerivedCRD(o), ruleKinds(), ruleMRDCRD()}
}

// LintOptions returns the linter options that install this package's
// checks: its Rules, and the CEL rules of the package's CRDs evaluated on
// examples (XP408) and composed resources (XP409) through CEL. Each call
// returns options with their own CEL cost budget (see CEL): use one set
// per package linted. Options (WithCache) configure the Rules.
func LintOptions(opts ...Option) []linter.Option {
	return []linter.Option{linter.WithRules(Rules(opts...)...), rules.WithSchemaOptions(lschema.WithExtension(CEL()))}
}

const crdDoc = `The API server refuses a CustomResourceDefinition of the package

The package manager creates each CustomResourceDefinition of a Provider or
Function package, and the API server validates it on create as
k8s.io/apiextensions-apiserver v0.37.2 does
(pkg/apis/apiextensions/validation, ValidateCustomResourceDefinition, after
decoding into apiextensions.k8s.io/v1 and applying its defaults): names and
group (a group under k8s.io or kubernetes.io needs the
api-approved.kubernetes.io annotation), versions (one storage version),
conversion (a webhook needs conversionReviewVersions), a structural
schema (every field typed, x-kubernetes-preserve-unknown-fields and
x-kubernetes-int-or-string only where allowed, list-type map lists with
keys that are required or defaulted), defaults that validate and survive
pruning, and every CEL rule (x-kubernetes-validations) compiled with its
estimated cost under the API server's per-rule and per-CRD limits. A value
of the wrong type (maxLength: 1.5, type: [string]) fails decoding. Each
error is reported at the field it concerns, with the API server's message.
Only apiextensions.k8s.io/v1 CRDs are checked: the API server has not
served v1beta1 since Kubernetes 1.22.

A Function package's CRDs are installed up to Crossplane v2.1; from v2.2
the package manager installs none of a Function's objects (crossplane
commit 36f59bef1, internal/controller/pkg/revision/establisher.go
FilteringEstablisher), so there the finding is a warning.`

func ruleCRD(opts options) *linter.Rule {
	return &linter.Rule{
		ID: "XP420", Name: "crd-apiserver", Severity: linter.SeverityError,
		Doc:  crdDoc,
		Bad:  "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: buckets.example.org\nspec:\n  group: example.org\n  names: {kind: Bucket, plural: buckets}\n  scope: Cluster\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-validations:\n        - rule: self.spec.size > 0  # spec is not declared\n",
		Good: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: buckets.example.org\nspec:\n  group: example.org\n  names: {kind: Bucket, plural: buckets}\n  scope: Cluster\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size: {type: integer}\n            x-kubernetes-validations:\n            - rule: self.size > 0\n",
		Run: func(p *linter.Pass) error {
			// From Crossplane v2.2 a Function's objects are not installed
			// (crossplane 36f59bef1, FilteringEstablisher), so the API
			// server never sees its CRDs: a warning there, as XP401-XP403.
			sev, line := linter.SeverityError, ""
			if t, err := target.Resolve(p.CrossplaneVersion); err == nil && p.Kind == meta.KindFunction && !t.InstallsFunctionObjects {
				sev, line = linter.SeverityWarning, t.Line
			}
			var crds []*parser.Object
			for _, o := range p.Package.Objects {
				if err := p.Context().Err(); err != nil {
					return err
				}
				gvk := o.GroupVersionKind()
				if gvk.Group == "apiextensions.k8s.io" && gvk.Version == "v1" && gvk.Kind == "CustomResourceDefinition" {
					crds = append(crds, o)
				}
			}
			ctx := p.Context()
			var budget runBudget
			cache := verdicts{cache: opts.cache, rule: "XP420", line: targetLine(p.CrossplaneVersion)}
			// Each CRD is decoded and validated on its own goroutine, a
			// few at once (ordered), and reported in the package's order,
			// in which the gateway's budget is charged.
			return ordered(ctx, crds, (*parser.Object).RawSize, func(o *parser.Object) validated {
				// A cached verdict is charged its call's cost as the call
				// itself is, so a warm run refuses what a cold one does.
				key, fs, total, cost, hit := cache.get(ctx, o)
				if hit {
					return validated{fs: fs, total: total, cost: cost}
				}
				if err := inFlight.acquire(ctx, o.RawSize()); err != nil {
					return validated{err: err}
				}
				defer inFlight.release(o.RawSize())
				u, err := o.Unstructured()
				if err != nil {
					return validated{skip: true} // a document error
				}
				cost, fs, err = validateCRDNow(ctx, u.Object, &budget)
				if err != nil {
					return validated{err: err, cost: cost}
				}
				kept := fs[:0]
				for _, f := range fs {
					// XP401 crd-name reports a name that is not
					// plural.group.
					if len(f.path) == 2 && f.path[0] == "metadata" && f.path[1] == "name" && strings.Contains(f.msg, `must be spec.names.plural+"."+spec.group`) {
						continue
					}
					kept = append(kept, f)
				}
				cache.put(ctx, key, kept, cost)
				return validated{fs: kept, total: len(kept), cost: cost}
			}, func(o *parser.Object, r validated) error {
				if r.skip {
					return nil
				}
				if done, err := r.settle(p, &budget, o, "CustomResourceDefinition "+safetext.Quote(o.ObjectMeta.Name)); done {
					return err
				}
				what := "CustomResourceDefinition " + safetext.Quote(o.ObjectMeta.Name) + ": the API server refuses it"
				if sev != linter.SeverityError {
					what += " (but Crossplane " + line + " installs none of a Function's objects)"
				}
				reportTotal(p, sev, o, r.fs, r.total, what)
				return nil
			})
		},
	}
}

// validated is the outcome of validating one definition: its findings
// (the first ones when read from a Cache) and how many there are in all,
// or the error that kept it from being validated, or skip when it could
// not be decoded (a document error, reported by the parse rules).
type validated struct {
	fs    []finding
	total int
	err   error
	skip  bool
	cost  callCost // the gateway's pre-count, charged in the package's order
}

// charge charges r's cost to budget, in the package's order: a call the
// budget cannot pay for is not validated (its findings, if a worker
// made it before the budget was spent, are dropped), whichever worker
// came to it first.
func (r *validated) charge(budget *runBudget) {
	if r.err != nil && !errors.Is(r.err, errRunSkipped) {
		return
	}
	if err := budget.charge(r.cost); err != nil {
		r.fs, r.total, r.err = nil, 0, err
	} else if r.err != nil {
		// Not reached: a worker leaves a call out only when the budget
		// is spent with less charged than now.
		r.err = fmt.Errorf("%w (%d CEL rules, %d bytes of them, %d pattern instructions)", r.err, r.cost.rules, r.cost.ruleBytes, r.cost.patternInsts)
	}
}

// settle charges r's cost to budget (charge) and, when o was not
// validated (over the gateway's limits, too large to send, or left out
// by the run's budget), reports so at o as information, "WHAT: not
// validated: why", never in silence: done is true then, with the
// context's error when the run was cancelled. XP420, XP421 and XP423
// settle each definition in the package's order.
func (r *validated) settle(p *linter.Pass, budget *runBudget, o *parser.Object, what string) (done bool, err error) {
	r.charge(budget)
	if r.err == nil {
		return false, nil
	}
	if ctxErr := p.Context().Err(); ctxErr != nil {
		return true, ctxErr
	}
	p.ReportSeverityf(linter.SeverityInfo, o, nil, "%s: not validated: %s", what, safetext.Reason(r.err))
	return true, nil
}

// report reports findings at their fields of o, at most maxFindings.
func report(p *linter.Pass, o *parser.Object, fs []finding, what string) {
	reportSeverity(p, linter.SeverityError, o, fs, what)
}

// reportSeverity is report at severity sev.
func reportSeverity(p *linter.Pass, sev linter.Severity, o *parser.Object, fs []finding, what string) {
	reportTotal(p, sev, o, fs, len(fs), what)
}

// reportTotal is reportSeverity for findings of which fs are the first
// (at least maxFindings of them, or all) and total the count.
func reportTotal(p *linter.Pass, sev linter.Severity, o *parser.Object, fs []finding, total int, what string) {
	for i, f := range fs {
		if i == maxFindings {
			break
		}
		field := parser.FieldPath(f.path...)
		if field == "" {
			field = "<object>"
		}
		p.ReportSeverityf(sev, o, f.path, "%s: %s: %s", what, field, safetext.ReasonText(f.msg))
	}
	if total > maxFindings {
		p.ReportSeverityf(sev, o, nil, "%s: %d more errors", what, total-maxFindings)
	}
}

func ruleDerivedCRD(opts options) *linter.Rule {
	return &linter.Rule{
		ID: "XP421", Name: "xrd-derived-crd-apiserver", Severity: linter.SeverityError,
		Doc: `The API server refuses the CRD Crossplane derives from a CompositeResourceDefinition

Crossplane creates, for each CompositeResourceDefinition, a
CustomResourceDefinition for its composite resource and, when claimNames
is set, one for its claim (Crossplane v2.1.0 internal/xcrd:
ForCompositeResource, ForCompositeResourceClaim; the schema as
linter/schema.DeriveSchema builds it). The XRD itself installs, but when
the API server refuses the derived CRD (validated as XP420 validates a
package's CRD: k8s.io/apiextensions-apiserver v0.37.2
ValidateCustomResourceDefinition), the XRD never becomes established and
no composite resource of it can be created. Each error is reported at the
field of the XRD it comes from (a CEL rule that does not compile, a
default of the wrong type, a list of type map without keys, a field
without a type), with the API server's message.`,
		Bad:  "apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: xbuckets.example.org\nspec:\n  group: example.org\n  names: {kind: XBucket, plural: xbuckets}\n  versions:\n  - name: v1\n    served: true\n    referenceable: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size: {type: integer, default: \"10\"}\n",
		Good: "apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: xbuckets.example.org\nspec:\n  group: example.org\n  names: {kind: XBucket, plural: xbuckets}\n  versions:\n  - name: v1\n    served: true\n    referenceable: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size: {type: integer, default: 10}\n",
		Run: func(p *linter.Pass) error {
			var xrds []*parser.Object
			for _, o := range p.Package.Objects {
				if err := p.Context().Err(); err != nil {
					return err
				}
				gvk := o.GroupVersionKind()
				if gvk.Group == "apiextensions.crossplane.io" && gvk.Kind == "CompositeResourceDefinition" {
					xrds = append(xrds, o)
				}
			}
			ctx, version := p.Context(), p.CrossplaneVersion
			var budget runBudget
			cache := verdicts{cache: opts.cache, rule: "XP421", line: targetLine(version)}
			return ordered(ctx, xrds, (*parser.Object).RawSize, func(o *parser.Object) validated {
				key, fs, total, cost, hit := cache.get(ctx, o)
				if hit {
					return validated{fs: fs, total: total, cost: cost}
				}
				if err := inFlight.acquire(ctx, o.RawSize()); err != nil {
					return validated{err: err}
				}
				defer inFlight.release(o.RawSize())
				u, err := o.Unstructured()
				if err != nil {
					return validated{skip: true}
				}
				// The XRD as Crossplane sends it (see XP422).
				obj := u.Object
				if t, err := target.Resolve(version); err == nil {
					if obj, _, err = sendObject(ctx, t.Line, o.GroupVersionKind(), u.Object); err != nil {
						return validated{err: err}
					}
				}
				cost, fs, err = validateDerived(ctx, version, o, obj, &budget)
				if err != nil {
					return validated{err: err, cost: cost}
				}
				cache.put(ctx, key, fs, cost)
				return validated{fs: fs, total: len(fs), cost: cost}
			}, func(o *parser.Object, r validated) error {
				if r.skip {
					return nil
				}
				if done, err := r.settle(p, &budget, o, "CompositeResourceDefinition "+safetext.Quote(o.ObjectMeta.Name)+": the CRDs Crossplane derives from it"); done {
					return err
				}
				reportTotal(p, linter.SeverityError, o, r.fs, r.total, "CompositeResourceDefinition "+safetext.Quote(o.ObjectMeta.Name)+": the API server refuses the CRD Crossplane derives from it")
				return nil
			})
		},
	}
}

// validateDerived validates the CRDs Crossplane derives from the XRD o
// (content decoded), findings at the XRD's fields, each once, through
// the gateway (validateCRDNow, budget: the rule run's); it returns the
// gateway's pre-count of both CRDs.
func validateDerived(ctx context.Context, crossplaneVersion string, o *parser.Object, content map[string]any, budget *runBudget) (callCost, []finding, error) {
	// From Crossplane v2.2 the XRD schema's root-level CEL rules are
	// copied into the derived CRD (crossplane internal/xcrd).
	rootCEL, scale := true, true
	if t, err := target.Resolve(crossplaneVersion); err == nil {
		rootCEL, scale = t.AtLeast(2, 2), t.XRDScale
	}
	spec, _ := content["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	if len(versions) == 0 {
		return callCost{}, nil, nil
	}
	var (
		all  []finding
		cost callCost
	)
	seen := map[string]bool{}
	for _, claim := range []bool{false, true} {
		namesKey := "names"
		if claim {
			namesKey = "claimNames"
		}
		names, _ := spec[namesKey].(map[string]any)
		if names == nil {
			continue
		}
		crd, ok := derivedCRD(o, content, claim, rootCEL, scale)
		if !ok {
			continue
		}
		c, fs, err := validateCRDNow(ctx, crd, budget)
		cost.rules += c.rules
		cost.ruleBytes += c.ruleBytes
		cost.patternInsts += c.patternInsts
		if err != nil {
			return cost, nil, err
		}
		for _, f := range fs {
			f.path = xrdPath(content, f.path, namesKey)
			key := strings.Join(f.path, "\x00") + "\x00" + f.msg
			if seen[key] {
				continue
			}
			seen[key] = true
			all = append(all, f)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return strings.Join(all[i].path, ".") < strings.Join(all[j].path, ".") })
	return cost, all, nil
}

// derivedCRD builds the CRD Crossplane derives from the XRD (Crossplane
// v2.1.0 internal/xcrd ForCompositeResource, ForCompositeResourceClaim),
// without the printer columns Crossplane adds (which are valid). With
// scale (from v2.3), a version's subresources.scale is copied to both
// (crossplane-runtime v2.4.0 pkg/xcrd/crd.go genCrdVersion), so that the
// API server checks its paths (specReplicasPath under .spec,
// statusReplicasPath under .status, both in the schema).
func derivedCRD(o *parser.Object, content map[string]any, claim, rootCEL, scale bool) (map[string]any, bool) {
	spec, _ := content["spec"].(map[string]any)
	group, _ := spec["group"].(string)
	names, _ := spec["names"].(map[string]any)
	name := o.ObjectMeta.Name
	scope := "Cluster"
	category := "composite"
	if claim {
		names, _ = spec["claimNames"].(map[string]any)
		plural, _ := names["plural"].(string)
		name = plural + "." + group
		scope = "Namespaced"
		category = "claim"
	} else {
		s, _ := spec["scope"].(string)
		if s == "" && o.GroupVersionKind().Version == "v2" {
			s = "Namespaced"
		}
		if s == "Namespaced" {
			scope = "Namespaced"
		}
	}
	cnames := map[string]any{}
	for k, v := range names {
		cnames[k] = v
	}
	cats, _ := cnames["categories"].([]any)
	cnames["categories"] = append(append([]any(nil), cats...), category)
	var versions []any
	vs, _ := spec["versions"].([]any)
	for _, e := range vs {
		vm, _ := e.(map[string]any)
		vname, _ := vm["name"].(string)
		s, err := lschema.DeriveSchema(content, vname, claim, rootCEL)
		if err != nil {
			return nil, false // reported by Crossplane's own checks
		}
		v := map[string]any{
			"name":         vname,
			"served":       vm["served"],
			"storage":      vm["referenceable"],
			"schema":       map[string]any{"openAPIV3Schema": s},
			"subresources": map[string]any{"status": map[string]any{}},
		}
		if sub, _ := vm["subresources"].(map[string]any); scale && sub != nil {
			if sc, ok := sub["scale"].(map[string]any); ok {
				v["subresources"].(map[string]any)["scale"] = sc
			}
		}
		for _, k := range []string{"deprecated", "deprecationWarning", "additionalPrinterColumns"} {
			if x, ok := vm[k]; ok {
				v[k] = x
			}
		}
		versions = append(versions, v)
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": name},
		"spec": map[string]any{
			"group":    group,
			"names":    cnames,
			"scope":    scope,
			"versions": versions,
		},
	}
	if c, ok := spec["conversion"]; ok {
		crd["spec"].(map[string]any)["conversion"] = c
	}
	return crd, true
}

// xrdPath maps a path of a derived CRD to the XRD's.
func xrdPath(content map[string]any, p []string, namesKey string) []string {
	if len(p) >= 2 && p[0] == "spec" && p[1] == "names" {
		p = append([]string{"spec", namesKey}, p[2:]...)
	}
	if len(p) >= 1 && p[0] == "metadata" && namesKey == "claimNames" {
		return []string{"spec", "claimNames", "plural"}
	}
	if len(p) >= 4 && p[0] == "spec" && p[1] == "versions" && p[3] == "storage" {
		return append(append([]string(nil), p[:3]...), "referenceable")
	}
	return p
}

var _ = fmt.Sprint
