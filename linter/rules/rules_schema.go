package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/internal/celskip"
	"github.com/xpkgkit/xpkgkit/limit"
	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

// maxSchemaReports caps the diagnostics one schema rule reports per object.
const maxSchemaReports = 50

const kindTypesDoc = `

Besides the meta object, every object of a kind a package may hold is
type-checked against that kind's published schema: CompositeResourceDefinition,
Composition, ManagedResourceDefinition, ManagedResourceActivationPolicy,
Operation, CronOperation and WatchOperation against Crossplane's own CRDs
of the target's own release (v1.20.11 for 1.20, v2.0.2, v2.1.0, v2.2.4,
v2.3.4, v2.4.0; linter/schema.PackageKindsAt): a field a release added,
such as Composition and Operation requirements.requiredSchemas and XRD
defaultCompositionRevisionSelector (v2.2) or XRD
versions[].subresources.scale (v2.3), is type-checked from that release
and dropped as unknown before it, CustomResourceDefinition (v1, v1beta1),
ValidatingWebhookConfiguration and MutatingWebhookConfiguration against
Kubernetes' published OpenAPI (linter/schema.PackageKinds). Crossplane's
package parser (crossplane-runtime v2.1.0 pkg/parser, PackageParser.Parse)
decodes each object into its Go type with a non-strict JSON serializer: a
field holding a value of the wrong JSON type (a step written as a number,
served: "true", timeoutSeconds: "10") fails the decoding and the package is
refused, while unknown fields are silently dropped (XP106 covers the meta
object's). Each mistyped field is reported at its line and column, naming
the expected and found types. Objects are checked on the parser's outline
(parser.Object.Outline), and decoded whole only where the outline was cut
short above typed fields; but a CustomResourceDefinition is checked down to
the outline depth only (its names, versions, served, storage,
subresources...): the content of each version's openAPIV3Schema is not
decoded, to keep linting a provider of thousands of CRDs fast.`

// withKindTypes extends XP005 field-type with the type check of every object
// of a package kind.
func withKindTypes(r *linter.Rule) *linter.Rule {
	run := r.Run
	r.Doc += kindTypesDoc
	r.Run = func(p *linter.Pass) error {
		if err := run(p); err != nil {
			return err
		}
		return checkKindTypes(p)
	}
	return r
}

func checkKindTypes(p *linter.Pass) error {
	kinds := lschema.PackageKindsAt(release(p).Schemas)
	for _, o := range p.Package.Objects {
		if err := p.Context().Err(); err != nil {
			return err
		}
		gvk := o.GroupVersionKind()
		if !kinds.Serves(gvk) {
			continue
		}
		// The outline is checked first: it is already decoded. Only when
		// it was cut short where the schema types deeper fields is the
		// whole object decoded; a CRD's openAPIV3Schema is left at the
		// outline (see the doc).
		content := o.Outline()
		crd := gvk.Kind == "CustomResourceDefinition"
		if content == nil {
			u, err := o.Unstructured()
			if err != nil {
				continue // reported as a document error
			}
			content = u.Object
		}
		res, err := kinds.Validate(p.Context(), content, lschema.WithTypesOnly())
		if err == nil && res.Cut && !crd && o.Outline() != nil {
			u, uerr := o.Unstructured()
			if uerr != nil {
				continue
			}
			res, err = kinds.Validate(p.Context(), u.Object, lschema.WithTypesOnly())
		}
		if err != nil {
			if ctxErr := p.Context().Err(); ctxErr != nil {
				return ctxErr
			}
			continue
		}
		for i, v := range res.Violations {
			if i == maxSchemaReports {
				p.Reportf(o, nil, "%d more mistyped fields in %s %s", len(res.Violations)-i, o.Kind, quote(o.ObjectMeta.Name))
				break
			}
			p.Reportf(o, v.Path, "%s: want %s, found %s: Crossplane cannot decode this %s (%s)",
				fieldName(v), v.Expected, displayType(v), o.Kind, gvk.GroupVersion().String())
		}
	}
	return nil
}

// displayType names the found type as a reader thinks of it: "number" for
// an integer where no number is wanted.
func displayType(v lschema.Violation) string {
	if v.Found == "integer" && !strings.Contains(v.Expected, "integer") && !strings.Contains(v.Expected, "number") {
		return "number"
	}
	return v.Found
}

func fieldName(v lschema.Violation) string {
	if f := v.Field(); f != "" {
		return f
	}
	return "the object"
}

// cel notes the CEL rules a validation left out.
func cel(r *lschema.Result) string {
	n := r.CEL.Skipped()
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d CEL rules of the schema not evaluated)", n)
}

// celTally adds up the CEL rules validations evaluated and skipped, for
// one info diagnostic per rule run (see report).
type celTally struct {
	skipped int               // rules no Extension evaluated (CELCounts.Unevaluated)
	counts  lschema.CELCounts // the others; its Unevaluated stays 0
	ext     bool
	parts   map[string]bool // schema parts reported as not validated
}

// notValidated reports, once per rule run, each pattern of a schema that
// was left out because it is beyond the validator's limits (longer than
// MaxPatternLength, or compiling to more than MaxPatternProgram
// instructions), at the first object validated against it: the value
// there was not checked, and a check that cannot run says so.
func (t *celTally) notValidated(p *linter.Pass, obj *parser.Object, prefix []string, what string, r *lschema.Result) {
	if r == nil {
		return
	}
	for _, part := range r.Skipped {
		if !strings.HasPrefix(part, "pattern") || t.parts[part] {
			continue
		}
		if t.parts == nil {
			t.parts = map[string]bool{}
		}
		t.parts[part] = true
		p.ReportSeverityf(linter.SeverityInfo, obj, prefix, "%s: not validated: %s", what, boundMsg(part))
	}
}

func (t *celTally) add(r *lschema.Result) {
	if r == nil {
		return
	}
	c := r.CEL
	if c.Rules > c.Unevaluated {
		t.ext = true // an Extension was asked to evaluate them
	}
	t.counts.Rules += c.Rules - c.Unevaluated
	t.counts.Transition += c.Transition
	t.counts.Cost += c.Cost
	t.counts.Partial += c.Partial
	t.counts.Blocked += c.Blocked
	t.counts.Regex += c.Regex
	t.skipped += c.Unevaluated
}

// report says, as one info diagnostic, how many CEL rule evaluations
// were left out and why.
func (t *celTally) report(p *linter.Pass, what string) {
	for k, n := range (celskip.Counts{Transition: t.counts.Transition, Cost: t.counts.Cost, Partial: t.counts.Partial, Blocked: t.counts.Blocked, Unevaluated: t.skipped}).Tallies() {
		p.Tally(k, n)
	}
	if t.ext && t.counts.Skipped() > 0 {
		c := t.counts
		p.ReportSeverityf(linter.SeverityInfo, nil, nil, "%s: %d CEL rule evaluations skipped: %d transition rules (oldSelf), %d beyond the cost budget, %d presence rules on templates, %d after a schema error",
			what, c.Skipped(), c.Transition, c.Cost, c.Partial, c.Blocked)
	}
	if t.ext && t.counts.Regex > 0 {
		p.ReportSeverityf(linter.SeverityInfo, nil, nil, "%s: not validated: %d CEL rule evaluations (of those beyond the cost budget) use a regular expression the cost model cannot price: built at run time (from the object's data, or by concatenation) or compiling to a program too large for the object's strings",
			what, t.counts.Regex)
	}
}

func ruleExampleSchema() *linter.Rule {
	return &linter.Rule{
		ID: "XP408", Name: "example-schema", Severity: linter.SeverityWarning,
		Doc: `An example does not validate against the package's CRDs

The package's examples (the examples/ directory of a package directory, the
.up/examples.yaml file of an image's examples layer) are not installed, but
a user who applies one gets the API server's answer. Each example of a kind
a CustomResourceDefinition of the package serves (or a
CompositeResourceDefinition, through the CRDs Crossplane derives for its
composite resource and claim) is validated as the API server validates a
custom resource (linter/schema): types, required fields, enums, formats,
patterns, limits, list types, and unknown fields, which the API server
prunes. CEL rules (x-kubernetes-validations) are evaluated only when a CEL
extension is installed (WithSchemaOptions; linter/apiserver's
LintOptions, which the xpkg-lint CLI uses, installs the API server's own
validator, see its doc for what is skipped); otherwise each diagnostic
says how many the schema holds. With the extension, one info diagnostic
counts the rule evaluations skipped (transition rules, cost budget). An example of a kind no
definition of the package serves (it may come from a dependency) is
reported once per kind, as info. The rule runs only when the linter is
given the examples (WithExamples; LintPackage does so).`,
		Bad:  "# a package whose CRD gives Bucket's spec.size type: integer, and\n# examples/bucket.yaml:\napiVersion: example.org/v1\nkind: Bucket\nmetadata:\n  name: example\nspec:\n  size: \"10\"\n",
		Good: "# a package whose CRD gives Bucket's spec.size type: integer, and\n# examples/bucket.yaml:\napiVersion: example.org/v1\nkind: Bucket\nmetadata:\n  name: example\nspec:\n  size: 10\n",
		Run: func(p *linter.Pass) error {
			if examples(p) == nil || len(examples(p).Objects) == 0 {
				return nil
			}
			v := lschema.New(p.Package.Objects, append([]lschema.Option{lschema.WithCrossplaneRelease(release(p).Schemas)}, schemaOptions(p)...)...)
			unserved := map[schema.GroupKind]bool{}
			var tally celTally
			for _, o := range examples(p).Objects {
				if err := p.Context().Err(); err != nil {
					return err
				}
				gvk := o.GroupVersionKind()
				if !v.Serves(gvk) {
					if gk := gvk.GroupKind(); !unserved[gk] {
						unserved[gk] = true
						what := "kind"
						if v.ServesKind(gk) {
							what = "version"
						}
						if owner := builtinTypeOwner(gk.Group); owner != "" && what == "kind" {
							// No dependency serves it: say whose it is.
							p.ReportSeverityf(linter.SeverityInfo, o, []string{"kind"}, "example %s %s: %s %s is %s, which no package serves, so it is not validated",
								o.Kind, quote(o.ObjectMeta.Name), token(o.APIVersion), token(o.Kind), owner)
							continue
						}
						p.ReportSeverityf(linter.SeverityInfo, o, []string{"kind"}, "example %s %s: no definition of the package serves this %s (it may come from a dependency), so it is not validated",
							o.Kind, quote(o.ObjectMeta.Name), what)
					}
					continue
				}
				what := "example " + o.Kind + " " + quote(o.ObjectMeta.Name)
				res := reportSchema(p, v, o, nil, nil, what)
				tally.add(res)
				tally.notValidated(p, o, nil, what, res)
			}
			tally.report(p, "examples")
			return nil
		},
	}
}

// builtinTypeOwner returns who serves the types of group when no package
// can: "a Kubernetes type" for the core group, the groups without a dot
// (apps, batch, policy, ...) and *.k8s.io, "a Crossplane type" for
// Crossplane's own API groups; "" for any other group, which a package (a
// dependency's) may serve.
func builtinTypeOwner(group string) string {
	switch {
	case group == "", !strings.Contains(group, "."), strings.HasSuffix(group, ".k8s.io"):
		return "a Kubernetes type"
	case group == "pkg.crossplane.io", group == "apiextensions.crossplane.io", group == "ops.crossplane.io",
		group == "protection.crossplane.io", group == "meta.pkg.crossplane.io":
		return "a Crossplane type"
	}
	return ""
}

// reportSchema validates content (obj's own when nil) against v and
// reports every violation, at prefix+path in obj.
func reportSchema(p *linter.Pass, v *lschema.Validator, obj *parser.Object, content map[string]any, prefix []string, what string, opts ...lschema.ValidateOption) *lschema.Result {
	if content == nil {
		u, err := obj.Unstructured()
		if err != nil {
			return nil
		}
		content = u.Object
	}
	res, err := v.Validate(p.Context(), content, opts...)
	if err != nil {
		if errors.Is(err, lschema.ErrInvalidSchema) || errors.Is(err, limit.ErrExceeded) {
			p.ReportSeverityf(linter.SeverityInfo, obj, prefix, "%s: not validated: %s", what, boundMsg(err.Error()))
		}
		return nil
	}
	if !res.Served {
		p.Reportf(obj, append(append([]string(nil), prefix...), "apiVersion"), "%s: version %s of %s is not served: the API server refuses it", what, quote(res.GVK.Version), res.Definition)
	}
	for i, x := range res.Violations {
		if i == maxSchemaReports {
			p.Reportf(obj, prefix, "%s: %d more violations", what, len(res.Violations)-i+res.Omitted)
			break
		}
		path := append(append([]string(nil), prefix...), x.Path...)
		field := fieldName(x)
		var msg string
		switch x.Kind {
		case lschema.KindUnknownField:
			msg = "unknown field: the API server prunes it"
		case lschema.KindType:
			msg = fmt.Sprintf("want %s, found %s", x.Expected, displayType(x))
		default:
			msg = x.Message
		}
		p.Reportf(obj, path, "%s: %s: %s (%s version %s)%s", what, field, msg, res.Definition, strconv.Quote(res.GVK.Version), cel(res))
	}
	return res
}

func boundMsg(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

const bucketCRD = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: buckets.example.org\nspec:\n  group: example.org\n  names: {kind: Bucket, plural: buckets}\n  scope: Cluster\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size: {type: integer}\n"

func ruleComposedResourceSchema() *linter.Rule {
	return &linter.Rule{
		ID: "XP409", Name: "composed-resource-schema", Severity: linter.SeverityWarning,
		Doc: `A Composition's composed resource does not validate against the package's CRDs

Each composed resource template of a Composition, the base of every entry
of spec.resources (legacy Resources mode) and of spec.pipeline[].input.resources
of a function-patch-and-transform step (input kind Resources), whose kind a
CustomResourceDefinition of the package serves (or an XRD, through its
derived CRDs), is validated as the API server validates a custom resource
(linter/schema): types, enums, formats, patterns, limits and unknown fields
(which the API server prunes). Required fields are not checked: patches fill
fields in later. CEL rules are evaluated only with a CEL extension
(WithSchemaOptions, as for XP408), and then not those that test a
field's presence (has()), nor failures on a field the template lacks
("no such key"): patches and functions may fill those fields in. Kinds no definition of the
package serves are left alone (they come from dependencies).`,
		Bad:  bucketCRD + "---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: buckets\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XBucket}\n  mode: Pipeline\n  pipeline:\n  - step: patch-and-transform\n    functionRef: {name: function-patch-and-transform}\n    input:\n      apiVersion: pt.fn.crossplane.io/v1beta1\n      kind: Resources\n      resources:\n      - name: bucket\n        base:\n          apiVersion: example.org/v1\n          kind: Bucket\n          spec:\n            size: \"10\"  # the package's Bucket CRD wants an integer\n",
		Good: bucketCRD + "---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: buckets\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XBucket}\n  mode: Pipeline\n  pipeline:\n  - step: patch-and-transform\n    functionRef: {name: function-patch-and-transform}\n    input:\n      apiVersion: pt.fn.crossplane.io/v1beta1\n      kind: Resources\n      resources:\n      - name: bucket\n        base:\n          apiVersion: example.org/v1\n          kind: Bucket\n          spec:\n            size: 10\n",
		Run: func(p *linter.Pass) error {
			var v *lschema.Validator
			var mentions func(raw []byte, except string) bool
			var tally celTally
			defer tally.report(p, "composed resources")
			for _, o := range p.Package.Objects {
				gvk := o.GroupVersionKind()
				if gvk.Group != "apiextensions.crossplane.io" || gvk.Kind != "Composition" {
					continue
				}
				if err := p.Context().Err(); err != nil {
					return err
				}
				if v == nil {
					v = lschema.New(p.Package.Objects, append([]lschema.Option{lschema.WithCrossplaneRelease(release(p).Schemas)}, schemaOptions(p)...)...)
					if len(v.Kinds()) == 0 {
						return nil
					}
					mentions = kindMentions(v)
				}
				// Decode only a Composition that names a kind the package
				// defines, besides its own composite type.
				own, _ := object(outline(o), "spec", "compositeTypeRef")["kind"].(string)
				if !mentions(o.Raw(), own) {
					continue
				}
				u, err := o.Unstructured()
				if err != nil {
					continue
				}
				for _, b := range composedBases(u.Object) {
					apiVersion, _ := b.base["apiVersion"].(string)
					kind, _ := b.base["kind"].(string)
					if !v.Serves(schema.FromAPIVersionAndKind(apiVersion, kind)) {
						continue
					}
					what := "composed resource " + quote(b.name) + " (" + kind + ")"
					res := reportSchema(p, v, o, b.base, b.path, what, lschema.WithoutRequired())
					tally.add(res)
					tally.notValidated(p, o, b.path, what, res)
				}
			}
			return nil
		},
	}
}

// kindMentions returns a test of whether a document's bytes name, as a
// kind, one of the kinds v serves other than except: a cheap filter before
// decoding a Composition (a false positive costs a decode; raw bytes that
// are not kept make it always true).
func kindMentions(v *lschema.Validator) func(raw []byte, except string) bool {
	kinds := map[string]bool{}
	for _, gvk := range v.Kinds() {
		kinds[gvk.Kind] = true
	}
	var alts []string
	for k := range kinds {
		alts = append(alts, regexp.QuoteMeta(k))
	}
	sort.Strings(alts)
	re := regexp.MustCompile(`kind["']?\s*:\s*["']?(` + strings.Join(alts, "|") + `)\b`)
	return func(raw []byte, except string) bool {
		if raw == nil {
			return true
		}
		for _, m := range re.FindAllSubmatch(raw, -1) {
			if string(m[1]) != except {
				return true
			}
		}
		return false
	}
}

type composedBase struct {
	name string
	path []string
	base map[string]any
}

// composedBases lists the composed resource bases of a Composition: the
// legacy spec.resources[].base and the bases of function-patch-and-transform
// inputs, spec.pipeline[].input.resources[].base.
func composedBases(c map[string]any) []composedBase {
	var out []composedBase
	collect := func(list []any, prefix []string) {
		for i, r := range list {
			rm, _ := r.(map[string]any)
			base, _ := rm["base"].(map[string]any)
			if base == nil {
				continue
			}
			name, _ := rm["name"].(string)
			if name == "" {
				name = strconv.Itoa(i)
			}
			out = append(out, composedBase{name: name, path: append(append([]string(nil), prefix...), strconv.Itoa(i), "base"), base: base})
		}
	}
	spec, _ := c["spec"].(map[string]any)
	if res, ok := spec["resources"].([]any); ok {
		collect(res, []string{"spec", "resources"})
	}
	pipeline, _ := spec["pipeline"].([]any)
	for i, s := range pipeline {
		sm, _ := s.(map[string]any)
		input, _ := sm["input"].(map[string]any)
		if input == nil {
			continue
		}
		apiVersion, _ := input["apiVersion"].(string)
		kind, _ := input["kind"].(string)
		if !strings.HasPrefix(apiVersion, "pt.fn.crossplane.io/") || kind != "Resources" {
			continue
		}
		if res, ok := input["resources"].([]any); ok {
			collect(res, []string{"spec", "pipeline", strconv.Itoa(i), "input", "resources"})
		}
	}
	return out
}
