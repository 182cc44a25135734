package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
)

// The API-design rules (XP750-XP769) read each CompositeResourceDefinition's
// schemas as a platform's public API, following the Kubernetes API
// conventions
// (https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md)
// and the list of crossplane/crossplane#5393 (crossplane/cli#69): overly
// restrictive status fields, arrays of objects without a merge key,
// booleans, missing server-side apply extensions, fields without
// descriptions. None is an error: Crossplane accepts each of these XRDs.

// xrdDesignHead starts the rules' examples.
const xrdDesignHead = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n---\napiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: xnetworks.example.org\nspec:\n  group: example.org\n  names: {kind: XNetwork, plural: xnetworks}\n  versions:\n  - name: v1alpha1\n    served: true\n    referenceable: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n"

// xrdField is one field of an XRD version's schema, as the walk visits it.
type xrdField struct {
	obj      *parser.Object
	version  string
	node     map[string]any
	at       []string // the node's path in the object
	data     []string // the field's path in the API's objects
	status   bool     // under status
	required bool     // required by its parent
}

// dataPath formats the field's path in the API's objects.
func (f *xrdField) path() string {
	var b strings.Builder
	for i, e := range f.data {
		if e == "[*]" {
			b.WriteString(e)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e)
	}
	return quote(b.String())
}

// walkXRDs calls visit for every field of every version's schema of the
// package's XRDs, stopping when the Lint call is cancelled. Depth is
// bounded by the parser's limits.
func walkXRDs(p *linter.Pass, visit func(f *xrdField)) error {
	for o := range each(p, p.Package.Objects) {
		gvk := o.GroupVersionKind()
		if gvk.Group != "apiextensions.crossplane.io" || gvk.Kind != "CompositeResourceDefinition" {
			continue
		}
		content, err := decodedXRD(p, o)
		if err != nil {
			continue
		}
		versions, _ := object(content, "spec")["versions"].([]any)
		for i, v := range versions {
			vm, _ := v.(map[string]any)
			name, _ := vm["name"].(string)
			s, _ := object(vm, "schema")["openAPIV3Schema"].(map[string]any)
			if s == nil {
				continue
			}
			at := []string{"spec", "versions", strconv.Itoa(i), "schema", "openAPIV3Schema"}
			props, _ := s["properties"].(map[string]any)
			req := requiredOf(s)
			for _, top := range []string{"spec", "status"} {
				n, _ := props[top].(map[string]any)
				if n == nil {
					continue
				}
				if err := walkSchema(p, &xrdField{obj: o, version: name, node: n, at: append(at, "properties", top),
					data: []string{top}, status: top == "status", required: req[top]}, visit, 0); err != nil {
					return err
				}
			}
		}
	}
	return p.Context().Err()
}

func requiredOf(n map[string]any) map[string]bool {
	l, _ := n["required"].([]any)
	out := make(map[string]bool, len(l))
	for _, e := range l {
		if s, ok := e.(string); ok {
			out[s] = true
		}
	}
	return out
}

func walkSchema(p *linter.Pass, f *xrdField, visit func(*xrdField), depth int) error {
	if err := p.Context().Err(); err != nil {
		return err
	}
	if depth > 256 {
		return nil
	}
	visit(f)
	if props, ok := f.node["properties"].(map[string]any); ok {
		req := requiredOf(f.node)
		for _, k := range schemaKeys(props) {
			n, _ := props[k].(map[string]any)
			if n == nil {
				continue
			}
			c := &xrdField{obj: f.obj, version: f.version, node: n, at: join(f.at, "properties", k), data: join(f.data, k), status: f.status, required: req[k]}
			if err := walkSchema(p, c, visit, depth+1); err != nil {
				return err
			}
		}
	}
	if items, ok := f.node["items"].(map[string]any); ok {
		c := &xrdField{obj: f.obj, version: f.version, node: items, at: join(f.at, "items"), data: join(f.data, "[*]"), status: f.status}
		if err := walkSchema(p, c, visit, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func schemaKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func typeOf(n map[string]any) string {
	t, _ := n["type"].(string)
	return t
}

func hasDescription(n map[string]any) bool {
	d, _ := n["description"].(string)
	return strings.TrimSpace(d) != ""
}

// designRule builds an XRD design rule from its visit function. Each
// design rule walks the XRDs itself, visiting the fields as it meets them
// and keeping none; the design rules of one Lint call share each XRD's
// decoded content (Pass.Shared), so an XRD is decoded once for all of
// them. Keeping the walk's fields instead, for every rule to read, held
// every field of every XRD at once: on five 8 MB XRDs, a live heap that
// made the collector work twice as hard under xpkg-lint's memory limit.
func designRule(id, name string, sev linter.Severity, doc, bad, good string, visit func(p *linter.Pass, f *xrdField)) *linter.Rule {
	return &linter.Rule{
		ID: id, Name: name, Severity: sev, Kinds: []meta.Kind{meta.KindConfiguration},
		Doc: doc, Bad: bad, Good: good,
		Run: func(p *linter.Pass) error {
			return walkXRDs(p, func(f *xrdField) { visit(p, f) })
		},
	}
}

// xrdContentKey is the Pass.Shared key of an XRD's decoded content.
type xrdContentKey struct{ obj *parser.Object }

// xrdContent is an XRD's decoded content, shared by the design rules.
type xrdContent struct {
	obj map[string]any
	err error
}

// decodedXRD returns o's decoded content, decoding it once for every
// design rule of the Lint call.
func decodedXRD(p *linter.Pass, o *parser.Object) (map[string]any, error) {
	c := p.Shared(xrdContentKey{o}, func() any {
		u, err := o.Unstructured()
		if err != nil {
			return &xrdContent{err: err}
		}
		return &xrdContent{obj: u.Object}
	}).(*xrdContent)
	return c.obj, c.err
}

func ruleXRDListMapKeys() *linter.Rule {
	return designRule("XP750", "xrd-list-map-keys", linter.SeverityInfo, `An XRD's array of objects has no merge key

An array of objects without x-kubernetes-list-type: map and
x-kubernetes-list-map-keys is atomic for server-side apply: two managers
(a user's manifest, a controller, a GitOps tool) cannot each own an entry,
and every apply replaces the whole list. The Kubernetes API conventions ask
for lists of objects keyed by a name ("Lists of named subobjects preferred
over maps"), and crossplane#5393 lists "arrays of objects missing a name
field" and "missing server-side apply merge OpenAPI extensions". Give the
items a required name (or another key) and declare it. An array declared
x-kubernetes-list-type: atomic on purpose is not reported. Info: the list
may be meant as a whole.`,
		xrdDesignHead+"          spec:\n            type: object\n            properties:\n              subnets:\n                type: array\n                items:\n                  type: object\n                  properties:\n                    cidr: {type: string}\n",
		xrdDesignHead+"          spec:\n            type: object\n            properties:\n              subnets:\n                type: array\n                x-kubernetes-list-type: map\n                x-kubernetes-list-map-keys: [name]\n                items:\n                  type: object\n                  required: [name]\n                  properties:\n                    name: {type: string}\n                    cidr: {type: string}\n",
		func(p *linter.Pass, f *xrdField) {
			if typeOf(f.node) != "array" || f.status {
				return
			}
			items, _ := f.node["items"].(map[string]any)
			if typeOf(items) != "object" || items["properties"] == nil {
				return
			}
			lt, _ := f.node["x-kubernetes-list-type"].(string)
			if lt == "map" || lt == "atomic" {
				return
			}
			p.Reportf(f.obj, f.at, "XRD version %s: %s is an array of objects without x-kubernetes-list-type: map and list-map-keys: server-side apply replaces it whole", token(f.version), f.path())
		})
}

func ruleXRDBoolean() *linter.Rule {
	return designRule("XP751", "xrd-boolean-field", linter.SeverityInfo, `An XRD field is a boolean

The Kubernetes API conventions: "Think twice about bool fields. Many ideas
start as boolean but eventually trend towards a small set of mutually
exclusive options. Plan for future expansions by describing the policy
options explicitly as a string type alias." An enum of strings can gain a
third value in a compatible release; a boolean cannot. crossplane#5393
lists boolean fields. Spec fields only; info, as many booleans stay
booleans.`,
		xrdDesignHead+"          spec:\n            type: object\n            properties:\n              public: {type: boolean}\n",
		xrdDesignHead+"          spec:\n            type: object\n            properties:\n              exposure: {type: string, enum: [Private, Public], default: Private}\n",
		func(p *linter.Pass, f *xrdField) {
			if f.status || typeOf(f.node) != "boolean" {
				return
			}
			p.Reportf(f.obj, f.at, "XRD version %s: %s is a boolean: an enum of strings can grow a third option in a compatible release", token(f.version), f.path())
		})
}

func ruleXRDFieldDescription() *linter.Rule {
	return designRule("XP752", "xrd-field-description", linter.SeverityInfo, `An XRD field has no description

An optional spec field without a description: kubectl explain, the
Crossplane docs and IDEs show users nothing. The Kubernetes API conventions
ask for every field to be documented. Required fields without one are
XP756's. Info.`,
		xrdDesignHead+"          spec:\n            type: object\n            properties:\n              region: {type: string}\n",
		xrdDesignHead+"          spec:\n            type: object\n            properties:\n              region: {type: string, description: The cloud region the network is created in.}\n",
		func(p *linter.Pass, f *xrdField) {
			if f.status || f.required || len(f.data) < 2 || f.data[len(f.data)-1] == "[*]" || hasDescription(f.node) {
				return
			}
			p.Reportf(f.obj, f.at, "XRD version %s: %s has no description", token(f.version), f.path())
		})
}

func ruleXRDStatusRequired() *linter.Rule {
	return designRule("XP753", "xrd-status-required", linter.SeverityWarning, `An XRD status field is required

Status is written by Crossplane and the composition functions, step by step
and not by the user: a required status field makes every status update
that does not set it fail validation, so the XR's conditions and the
function's other fields are not written either. crossplane#5393: "Status
fields aren't written by users, so they typically shouldn't be required".`,
		xrdDesignHead+"          status:\n            type: object\n            required: [vpcId]\n            properties:\n              vpcId: {type: string}\n",
		xrdDesignHead+"          status:\n            type: object\n            properties:\n              vpcId: {type: string}\n",
		func(p *linter.Pass, f *xrdField) {
			if !f.status || !f.required {
				return
			}
			p.Reportf(f.obj, f.at, "XRD version %s: status field %s is required: status updates that do not set it are refused", token(f.version), f.path())
		})
}

func ruleXRDPreserveSpec() *linter.Rule {
	return designRule("XP754", "xrd-preserve-unknown-spec", linter.SeverityWarning, `An XRD's whole spec keeps unknown fields

x-kubernetes-preserve-unknown-fields: true on spec makes the API server
keep any field a user writes, misspelled or not, unvalidated: the XR's API
is whatever users send, and no schema change can be checked for
compatibility. Declare the fields; keep unknown fields only on a field
meant to carry free-form data.`,
		xrdDesignHead+"          spec:\n            type: object\n            x-kubernetes-preserve-unknown-fields: true\n",
		xrdDesignHead+"          spec:\n            type: object\n            properties:\n              parameters:\n                type: object\n                x-kubernetes-preserve-unknown-fields: true\n",
		func(p *linter.Pass, f *xrdField) {
			if len(f.data) != 1 || f.data[0] != "spec" {
				return
			}
			if b, _ := f.node["x-kubernetes-preserve-unknown-fields"].(bool); b {
				p.Reportf(f.obj, join(f.at, "x-kubernetes-preserve-unknown-fields"), "XRD version %s: the whole spec keeps unknown fields: the API is unvalidated", token(f.version))
			}
		})
}

// kubeVersion is a version name Kubernetes orders as a version
// (k8s.io/apimachinery/pkg/version.CompareKubeAwareVersionStrings).
var kubeVersion = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)

func ruleXRDVersionName() *linter.Rule {
	return &linter.Rule{
		ID: "XP755", Name: "xrd-version-name", Severity: linter.SeverityWarning, Kinds: []meta.Kind{meta.KindConfiguration},
		Doc: `An XRD version does not follow Kubernetes version naming

Versions named v1, v2beta1, v1alpha2 (vN, vNalphaM, vNbetaM) are ordered by
stability and number: kubectl and discovery prefer the highest stable one
(k8s.io/apimachinery/pkg/version, CompareKubeAwareVersionStrings), and the
names tell users what to expect. Any other name (v1.0, 1, latest) sorts
after them all, alphabetically. The API server accepts it: a warning.`,
		Bad:  strings.Replace(xrdDesignHead, "v1alpha1", "v1.0", 1) + "          spec: {type: object}\n",
		Good: xrdDesignHead + "          spec: {type: object}\n",
		Run: func(p *linter.Pass) error {
			for o := range each(p, p.Package.Objects) {
				gvk := o.GroupVersionKind()
				if gvk.Group != "apiextensions.crossplane.io" || gvk.Kind != "CompositeResourceDefinition" {
					continue
				}
				versions, _ := object(outline(o), "spec")["versions"].([]any)
				for i, v := range versions {
					vm, _ := v.(map[string]any)
					if name, ok := vm["name"].(string); ok && !kubeVersion.MatchString(name) {
						p.Reportf(o, []string{"spec", "versions", strconv.Itoa(i), "name"}, "XRD version %s does not follow Kubernetes version naming (v1, v1beta1, v2alpha1): it sorts after every version that does", quote(name))
					}
				}
			}
			return p.Context().Err()
		},
	}
}

func ruleXRDRequiredDescription() *linter.Rule {
	return designRule("XP756", "xrd-required-description", linter.SeverityInfo, `A required XRD field has no description

Every user of the XR must set a required field, and a required field
without a description tells them nothing about what to put in it (kubectl
explain, the docs and IDEs show nothing). The Kubernetes API conventions
ask for every field to be documented; the required ones first. Info, as a
design matter.`,
		xrdDesignHead+"          spec:\n            type: object\n            required: [cidr]\n            properties:\n              cidr: {type: string}\n",
		xrdDesignHead+"          spec:\n            type: object\n            required: [cidr]\n            properties:\n              cidr: {type: string, description: The network's IPv4 range in CIDR notation.}\n",
		func(p *linter.Pass, f *xrdField) {
			if f.status || !f.required || len(f.data) < 2 || hasDescription(f.node) {
				return
			}
			p.Reportf(f.obj, f.at, "XRD version %s: required field %s has no description", token(f.version), f.path())
		})
}

func ruleXRDEnumDefault() *linter.Rule {
	return designRule("XP757", "xrd-enum-default", linter.SeverityInfo, `An optional XRD enum field has no default

An optional field whose values are an enum, without a default: when a user
leaves it out, the meaning of its absence is left to each Composition (and
each reader of the XR). The Kubernetes API conventions ask for defaults
where the absence of a value is meaningful, so that the stored object says
what applies. Info: absence may mean "none of these" on purpose.`,
		xrdDesignHead+"          spec:\n            type: object\n            properties:\n              tier: {type: string, enum: [Basic, Premium]}\n",
		xrdDesignHead+"          spec:\n            type: object\n            properties:\n              tier: {type: string, enum: [Basic, Premium], default: Basic}\n",
		func(p *linter.Pass, f *xrdField) {
			if f.status || f.required || f.node["enum"] == nil {
				return
			}
			if _, ok := f.node["default"]; ok {
				return
			}
			p.Reportf(f.obj, f.at, "XRD version %s: optional enum field %s has no default: what its absence means is left to each Composition", token(f.version), f.path())
		})
}

func ruleXRDStatusValidation() *linter.Rule {
	return designRule("XP758", "xrd-status-validation", linter.SeverityInfo, `An XRD status field is validated beyond its type

A status field with an enum, a pattern, a format or bounds (minimum,
maximum, minLength, maxLength, minItems, maxItems): status is written by
functions from what the composed resources report, and a value outside the
schema makes the whole status update fail. crossplane#5393: status fields
should not be "generally validated beyond their type (e.g maximum
integers, etc)". Info.`,
		xrdDesignHead+"          status:\n            type: object\n            properties:\n              replicas: {type: integer, maximum: 10}\n",
		xrdDesignHead+"          status:\n            type: object\n            properties:\n              replicas: {type: integer}\n",
		func(p *linter.Pass, f *xrdField) {
			if !f.status {
				return
			}
			for _, k := range []string{"enum", "pattern", "format", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"} {
				if _, ok := f.node[k]; ok {
					p.Reportf(f.obj, join(f.at, k), "XRD version %s: status field %s is validated by %s: a value outside it makes the whole status update fail", token(f.version), f.path(), k)
					return
				}
			}
		})
}
