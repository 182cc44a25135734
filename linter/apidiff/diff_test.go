package apidiff_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/apidiff"
	"github.com/xpkgkit/xpkgkit/parser"
)

// crdHead is a CRD's start; version() follows it.
const crdHead = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: buckets.example.org
spec:
  group: example.org
  names: {kind: Bucket, plural: buckets}
  scope: Cluster
  versions:
`

// version returns a served storage version v1 whose spec.forProvider
// schema is body (indented as under forProvider's type: object).
func version(name string, storage bool, body string) string {
	s := "  - name: " + name + "\n    served: true\n"
	if storage {
		s += "    storage: true\n"
	} else {
		s += "    storage: false\n"
	}
	s += "    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              forProvider:\n                type: object\n"
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		s += "                " + l + "\n"
	}
	return s
}

func crd(body string) string { return crdHead + version("v1", true, body) }

const xrdV1 = `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xnetworks.example.org
spec:
  group: example.org
  names: {kind: XNetwork, plural: xnetworks}
  claimNames: {kind: Network, plural: networks} #O
  versions:
  - name: v1alpha1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cidr: {type: string}
`

const xrdV2 = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata:
  name: xnetworks.example.org
spec:
  group: example.org
  names: {kind: XNetwork, plural: xnetworks}
  versions:
  - name: v1alpha1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties: #N
              cidr: {type: string}
              region: {type: string} #O
`

func TestDiff(t *testing.T) {
	t.Parallel()
	major := []apidiff.Option{apidiff.WithVersions("v1.0.0", "v2.0.0")}
	zero := []apidiff.Option{apidiff.WithVersions("v0.3.0", "v0.4.0")}
	none := []apidiff.Option{}
	cases := []struct {
		name     string
		old, new string
		opts     []apidiff.Option // default: v1.0.0 -> v1.1.0
		kind     apidiff.Kind
		class    apidiff.Class
		isErr    bool // Change.Error
		path     string
		msg      string         // a substring of the message
		others   []apidiff.Kind // the other kinds reported
	}{
		// Fields.
		{name: "field removed", kind: apidiff.FieldRemoved, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.size",
			old: crd("properties:\n  name: {type: string}\n  size: {type: integer} #O\n"),
			new: crd("properties: #N\n  name: {type: string}\n"), msg: "semver violation"},
		{name: "field renamed", kind: apidiff.FieldRemoved, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.size", msg: `renamed to "capacity"`,
			old: crd("properties:\n  size: {type: integer} #O\n"),
			new: crd("properties: #N\n  capacity: {type: integer}\n"), others: []apidiff.Kind{apidiff.FieldAdded}},
		{name: "optional field added", kind: apidiff.FieldAdded, class: apidiff.Compatible, path: "spec.forProvider.tier",
			old: crd("properties: #O\n  size: {type: integer}\n"),
			new: crd("properties:\n  size: {type: integer}\n  tier: {type: string} #N\n")},
		{name: "required field added with default", kind: apidiff.FieldAdded, class: apidiff.Compatible, path: "spec.forProvider.tier", msg: "with a default",
			old: crd("properties: #O\n  size: {type: integer}\n"),
			new: crd("required: [tier]\nproperties:\n  size: {type: integer}\n  tier: {type: string, default: standard} #N\n")},
		{name: "required field added without default", kind: apidiff.FieldRequired, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.tier",
			old: crd("properties: #O\n  size: {type: integer}\n"),
			new: crd("required: [tier]\nproperties:\n  size: {type: integer}\n  tier: {type: string} #N\n")},
		{name: "field made required", kind: apidiff.FieldRequired, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.size",
			old: crd("required: [name] #O\nproperties:\n  name: {type: string}\n  size: {type: integer}\n"),
			new: crd("required: [name, size] #N\nproperties:\n  name: {type: string}\n  size: {type: integer}\n")},
		{name: "field made optional", kind: "", old: crd("required: [size]\nproperties:\n  size: {type: integer}\n"), new: crd("properties:\n  size: {type: integer}\n")},
		{name: "type changed", kind: apidiff.TypeChanged, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.size", msg: "from integer to string",
			old: crd("properties:\n  size:\n    type: integer #O\n"), new: crd("properties:\n  size:\n    type: string #N\n")},
		{name: "type widened to number", kind: apidiff.TypeChanged, class: apidiff.Compatible, path: "spec.forProvider.size",
			old: crd("properties:\n  size:\n    type: integer #O\n"), new: crd("properties:\n  size:\n    type: number #N\n")},
		{name: "type widened to int-or-string", kind: apidiff.TypeChanged, class: apidiff.Compatible, path: "spec.forProvider.port",
			old: crd("properties:\n  port:\n    type: integer #O\n"), new: crd("properties:\n  port: #N\n    x-kubernetes-int-or-string: true\n")},
		{name: "type given to an untyped field", kind: apidiff.TypeChanged, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.raw", msg: "from any to object",
			old: crd("properties:\n  raw: #O\n    x-kubernetes-preserve-unknown-fields: true\n"), new: crd("properties:\n  raw:\n    type: object #N\n")},
		{name: "object type of an array's items changed", kind: apidiff.TypeChanged, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.ports[*]",
			old: crd("properties:\n  ports:\n    type: array\n    items:\n      type: integer #O\n"), new: crd("properties:\n  ports:\n    type: array\n    items:\n      type: string #N\n")},
		{name: "field removed in array items", kind: apidiff.FieldRemoved, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.tags[*].value",
			old: crd("properties:\n  tags:\n    type: array\n    items:\n      type: object\n      properties:\n        key: {type: string}\n        value: {type: string} #O\n"),
			new: crd("properties:\n  tags:\n    type: array\n    items:\n      type: object\n      properties: #N\n        key: {type: string}\n")},
		{name: "map value type changed", kind: apidiff.TypeChanged, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.labels.*",
			old: crd("properties:\n  labels:\n    type: object\n    additionalProperties:\n      type: string #O\n"), new: crd("properties:\n  labels:\n    type: object\n    additionalProperties:\n      type: integer #N\n")},
		// Enums.
		{name: "enum narrowed", kind: apidiff.EnumNarrowed, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.tier", msg: `"premium"`,
			old: crd("properties:\n  tier:\n    type: string\n    enum: [basic, standard, premium] #O\n"), new: crd("properties:\n  tier:\n    type: string\n    enum: [basic, standard] #N\n")},
		{name: "enum widened", kind: apidiff.EnumWidened, class: apidiff.Compatible, path: "spec.forProvider.tier", msg: `"premium"`,
			old: crd("properties:\n  tier:\n    type: string\n    enum: [basic, standard] #O\n"), new: crd("properties:\n  tier:\n    type: string\n    enum: [basic, standard, premium] #N\n")},
		{name: "enum added", kind: apidiff.EnumNarrowed, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.tier",
			old: crd("properties:\n  tier: #O\n    type: string\n"), new: crd("properties:\n  tier:\n    type: string\n    enum: [basic] #N\n")},
		{name: "enum removed", kind: apidiff.EnumWidened, class: apidiff.Compatible, path: "spec.forProvider.tier",
			old: crd("properties:\n  tier:\n    type: string\n    enum: [basic] #O\n"), new: crd("properties:\n  tier: #N\n    type: string\n")},
		{name: "enum widened and narrowed", kind: apidiff.EnumNarrowed, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.tier",
			old: crd("properties:\n  tier:\n    type: string\n    enum: [a, b] #O\n"), new: crd("properties:\n  tier:\n    type: string\n    enum: [a, c] #N\n"), others: []apidiff.Kind{apidiff.EnumWidened}},
		// Limits.
		{name: "minimum raised", kind: apidiff.LimitTightened, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.size", msg: "minimum tightened from 1 to 10",
			old: crd("properties:\n  size:\n    type: integer\n    minimum: 1 #O\n"), new: crd("properties:\n  size:\n    type: integer\n    minimum: 10 #N\n")},
		{name: "maximum lowered", kind: apidiff.LimitTightened, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.size",
			old: crd("properties:\n  size:\n    type: integer\n    maximum: 100 #O\n"), new: crd("properties:\n  size:\n    type: integer\n    maximum: 50 #N\n")},
		{name: "minLength added", kind: apidiff.LimitTightened, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.name",
			old: crd("properties:\n  name: #O\n    type: string\n"), new: crd("properties:\n  name:\n    type: string\n    minLength: 3 #N\n")},
		{name: "maxLength lowered", kind: apidiff.LimitTightened, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.name",
			old: crd("properties:\n  name:\n    type: string\n    maxLength: 63 #O\n"), new: crd("properties:\n  name:\n    type: string\n    maxLength: 32 #N\n")},
		{name: "maxItems lowered", kind: apidiff.LimitTightened, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.zones",
			old: crd("properties:\n  zones:\n    type: array\n    maxItems: 3 #O\n    items: {type: string}\n"), new: crd("properties:\n  zones:\n    type: array\n    maxItems: 2 #N\n    items: {type: string}\n")},
		{name: "minItems raised", kind: apidiff.LimitTightened, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.zones",
			old: crd("properties:\n  zones: #O\n    type: array\n    items: {type: string}\n"), new: crd("properties:\n  zones:\n    type: array\n    minItems: 1 #N\n    items: {type: string}\n")},
		{name: "maxProperties lowered", kind: apidiff.LimitTightened, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.labels",
			old: crd("properties:\n  labels:\n    type: object\n    maxProperties: 10 #O\n"), new: crd("properties:\n  labels:\n    type: object\n    maxProperties: 5 #N\n")},
		{name: "exclusiveMinimum set", kind: apidiff.LimitTightened, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.size",
			old: crd("properties:\n  size: #O\n    type: integer\n    minimum: 0\n"), new: crd("properties:\n  size:\n    type: integer\n    minimum: 0\n    exclusiveMinimum: true #N\n")},
		{name: "minimum lowered", kind: apidiff.LimitRelaxed, class: apidiff.Compatible, path: "spec.forProvider.size",
			old: crd("properties:\n  size:\n    type: integer\n    minimum: 10 #O\n"), new: crd("properties:\n  size:\n    type: integer\n    minimum: 1 #N\n")},
		{name: "maxLength removed", kind: apidiff.LimitRelaxed, class: apidiff.Compatible, path: "spec.forProvider.name",
			old: crd("properties:\n  name:\n    type: string\n    maxLength: 10 #O\n"), new: crd("properties:\n  name: #N\n    type: string\n")},
		// Patterns, formats, defaults.
		{name: "pattern changed", kind: apidiff.PatternChanged, class: apidiff.MayBreak, path: "spec.forProvider.name", msg: "may break",
			old: crd("properties:\n  name:\n    type: string\n    pattern: '^[a-z]+$' #O\n"), new: crd("properties:\n  name:\n    type: string\n    pattern: '^[a-z0-9]+$' #N\n")},
		{name: "pattern added", kind: apidiff.PatternChanged, class: apidiff.MayBreak, path: "spec.forProvider.name",
			old: crd("properties:\n  name: #O\n    type: string\n"), new: crd("properties:\n  name:\n    type: string\n    pattern: '^[a-z]+$' #N\n")},
		{name: "pattern removed", kind: apidiff.LimitRelaxed, class: apidiff.Compatible, path: "spec.forProvider.name",
			old: crd("properties:\n  name:\n    type: string\n    pattern: '^[a-z]+$' #O\n"), new: crd("properties:\n  name: #N\n    type: string\n")},
		{name: "format added", kind: apidiff.FormatChanged, class: apidiff.MayBreak, path: "spec.forProvider.since",
			old: crd("properties:\n  since: #O\n    type: string\n"), new: crd("properties:\n  since:\n    type: string\n    format: date-time #N\n")},
		{name: "number format added", kind: "",
			old: crd("properties:\n  size: {type: integer}\n"), new: crd("properties:\n  size: {type: integer, format: int64}\n")},
		{name: "default changed", kind: apidiff.DefaultChanged, class: apidiff.MayBreak, path: "spec.forProvider.tier",
			old: crd("properties:\n  tier:\n    type: string\n    default: basic #O\n"), new: crd("properties:\n  tier:\n    type: string\n    default: standard #N\n")},
		// List and map types, unknown fields.
		{name: "list-type set on an atomic list", kind: apidiff.ListTypeChanged, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.zones",
			old: crd("properties:\n  zones: #O\n    type: array\n    items: {type: string}\n"), new: crd("properties:\n  zones:\n    type: array\n    x-kubernetes-list-type: set #N\n    items: {type: string}\n")},
		{name: "list map keys changed", kind: apidiff.ListTypeChanged, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.rules",
			old: crd("properties:\n  rules:\n    type: array\n    x-kubernetes-list-type: map\n    x-kubernetes-list-map-keys: [name] #O\n    items: {type: object, required: [name, port], properties: {name: {type: string}, port: {type: integer}}}\n"),
			new: crd("properties:\n  rules:\n    type: array\n    x-kubernetes-list-type: map\n    x-kubernetes-list-map-keys: [name, port] #N\n    items: {type: object, required: [name, port], properties: {name: {type: string}, port: {type: integer}}}\n")},
		{name: "map-type changed", kind: apidiff.ListTypeChanged, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.selector",
			old: crd("properties:\n  selector:\n    type: object\n    x-kubernetes-map-type: granular #O\n"), new: crd("properties:\n  selector:\n    type: object\n    x-kubernetes-map-type: atomic #N\n")},
		{name: "preserve-unknown-fields removed", kind: apidiff.UnknownFieldsPruned, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.parameters",
			old: crd("properties:\n  parameters:\n    type: object\n    x-kubernetes-preserve-unknown-fields: true #O\n"), new: crd("properties:\n  parameters: #N\n    type: object\n")},
		// Validation rules.
		{name: "CEL rule added to an existing field", kind: apidiff.ValidationAdded, class: apidiff.MayBreak, path: "spec.forProvider.size", msg: "self > 0",
			old: crd("properties:\n  size: #O\n    type: integer\n"), new: crd("properties:\n  size:\n    type: integer\n    x-kubernetes-validations:\n    - rule: self > 0 #N\n")},
		{name: "CEL rule on a new field", kind: apidiff.FieldAdded, class: apidiff.Compatible, path: "spec.forProvider.size",
			old: crd("properties: #O\n  name: {type: string}\n"), new: crd("properties:\n  name: {type: string}\n  size: #N\n    type: integer\n    x-kubernetes-validations:\n    - rule: self > 0\n")},
		{name: "CEL rule unchanged", kind: "",
			old: crd("properties:\n  size:\n    type: integer\n    x-kubernetes-validations:\n    - rule: self > 0\n"), new: crd("properties:\n  size:\n    type: integer\n    x-kubernetes-validations:\n    - {rule: self > 0, message: positive}\n")},
		{name: "oneOf added", kind: apidiff.ConstraintChanged, class: apidiff.MayBreak, path: "spec.forProvider",
			old: strings.Replace(crd("properties:\n  a: {type: string}\n  b: {type: string}\n"), "forProvider:", "forProvider: #O", 1), new: crd("oneOf: #N\n- required: [a]\n- required: [b]\nproperties:\n  a: {type: string}\n  b: {type: string}\n")},
		// Semver.
		{name: "breaking, major bump", opts: major, kind: apidiff.FieldRemoved, class: apidiff.Breaking, path: "spec.forProvider.size", msg: "major version change",
			old: crd("properties:\n  name: {type: string}\n  size: {type: integer} #O\n"), new: crd("properties: #N\n  name: {type: string}\n")},
		{name: "breaking, 0.x minor", opts: zero, kind: apidiff.FieldRemoved, class: apidiff.Breaking, path: "spec.forProvider.size", msg: "0.x",
			old: crd("properties:\n  name: {type: string}\n  size: {type: integer} #O\n"), new: crd("properties: #N\n  name: {type: string}\n")},
		{name: "breaking, versions unknown", opts: none, kind: apidiff.FieldRemoved, class: apidiff.Breaking, path: "spec.forProvider.size", msg: "versions unknown",
			old: crd("properties:\n  name: {type: string}\n  size: {type: integer} #O\n"), new: crd("properties: #N\n  name: {type: string}\n")},
		{name: "identical", kind: "", old: crd("properties:\n  size: {type: integer}\n"), new: crd("properties:\n  size: {type: integer}\n")},
		{name: "reformatted only", kind: "", old: crd("properties:\n  size: {type: integer}\n"), new: crd("properties:\n  size:\n    type: integer\n")},
		// Versions.
		{name: "served version removed", kind: apidiff.VersionRemoved, class: apidiff.Breaking, isErr: true,
			old: crdHead + strings.Replace(version("v1beta1", false, "type: object"), "  - name: v1beta1", "  - name: v1beta1 #O", 1) + version("v1", true, "type: object"),
			new: strings.Replace(crdHead, "  versions:", "  versions: #N", 1) + version("v1", true, "type: object")},
		{name: "version unserved", kind: apidiff.VersionUnserved, class: apidiff.Breaking, isErr: true,
			old: crdHead + strings.Replace(version("v1beta1", false, "type: object"), "served: true", "served: true #O", 1) + version("v1", true, "type: object"),
			new: crdHead + strings.Replace(version("v1beta1", false, "type: object"), "served: true", "served: false #N", 1) + version("v1", true, "type: object")},
		{name: "version added", kind: apidiff.VersionAdded, class: apidiff.Compatible,
			old: strings.Replace(crdHead, "  versions:", "  versions: #O", 1) + version("v1", true, "type: object"),
			new: crdHead + version("v1", true, "type: object") + strings.Replace(version("v2", false, "type: object"), "  - name: v2", "  - name: v2 #N", 1)},
		{name: "storage version changed without conversion", kind: apidiff.StorageChanged, class: apidiff.Breaking, isErr: true,
			old: crdHead + strings.Replace(version("v1", true, "properties: {size: {type: integer}}"), "storage: true", "storage: true #O", 1) + version("v2", false, "properties: {capacity: {type: integer}}"),
			new: crdHead + version("v1", false, "properties: {size: {type: integer}}") + strings.Replace(version("v2", true, "properties: {capacity: {type: integer}}"), "storage: true", "storage: true #N", 1)},
		{name: "storage version changed with a webhook", kind: apidiff.StorageChanged, class: apidiff.Compatible,
			old: crdHead + strings.Replace(version("v1", true, "properties: {size: {type: integer}}"), "storage: true", "storage: true #O", 1) + version("v2", false, "properties: {capacity: {type: integer}}"),
			new: strings.Replace(crdHead, "  versions:", "  conversion: {strategy: Webhook}\n  versions:", 1) + version("v1", false, "properties: {size: {type: integer}}") + strings.Replace(version("v2", true, "properties: {capacity: {type: integer}}"), "storage: true", "storage: true #N", 1)},
		{name: "storage version changed, schemas equal but for descriptions", kind: apidiff.StorageChanged, class: apidiff.Compatible, msg: "equal but for their documentation",
			old: crdHead + strings.Replace(version("v1", true, "description: old\nproperties: {size: {type: integer, description: the size}}"), "storage: true", "storage: true #O", 1) + version("v2", false, "properties: {size: {type: integer, description: how big}}"),
			new: crdHead + version("v1", false, "description: old\nproperties: {size: {type: integer, description: the size}}") + strings.Replace(version("v2", true, "properties: {size: {type: integer, description: how big}}"), "storage: true", "storage: true #N", 1)},
		{name: "storage version changed, a field named description differs", kind: apidiff.StorageChanged, class: apidiff.Breaking, isErr: true,
			old: crdHead + strings.Replace(version("v1", true, "properties: {description: {type: string}}"), "storage: true", "storage: true #O", 1) + version("v2", false, "properties: {description: {type: integer}}"),
			new: crdHead + version("v1", false, "properties: {description: {type: string}}") + strings.Replace(version("v2", true, "properties: {description: {type: integer}}"), "storage: true", "storage: true #N", 1)},
		// Definitions.
		{name: "scope changed", kind: apidiff.ScopeChanged, class: apidiff.Breaking, isErr: true,
			old: strings.Replace(crd("type: object"), "scope: Cluster", "scope: Cluster #O", 1), new: strings.Replace(crd("type: object"), "scope: Cluster", "scope: Namespaced #N", 1)},
		{name: "kind changed", kind: apidiff.NamesChanged, class: apidiff.Breaking, isErr: true, msg: "kind changed",
			old: strings.Replace(crd("type: object"), "names: {kind: Bucket, plural: buckets}", "names:\n    kind: Bucket #O\n    plural: buckets", 1),
			new: strings.Replace(crd("type: object"), "names: {kind: Bucket, plural: buckets}", "names:\n    kind: Pail #N\n    plural: buckets", 1)},
		{name: "group changed", kind: apidiff.NamesChanged, class: apidiff.Breaking, isErr: true, msg: "group changed",
			old: strings.Replace(crd("type: object"), "group: example.org", "group: example.org #O", 1),
			new: strings.NewReplacer("group: example.org", "group: example.com #N", "buckets.example.org", "buckets.example.com").Replace(crd("type: object"))},
		{name: "plural changed", kind: apidiff.NamesChanged, class: apidiff.Breaking, isErr: true, msg: "plural changed",
			old: strings.Replace(crd("type: object"), "plural: buckets}", "plural: buckets} #O", 1),
			new: strings.NewReplacer("plural: buckets}", "plural: pails} #N", "buckets.example.org", "pails.example.org").Replace(crd("type: object"))},
		{name: "definition removed", kind: apidiff.DefinitionRemoved, class: apidiff.Breaking, isErr: true,
			old: crd("type: object"), new: strings.NewReplacer("Bucket", "Table", "buckets", "tables").Replace(crd("type: object")), others: []apidiff.Kind{apidiff.DefinitionAdded}},
		{name: "definition added", kind: apidiff.DefinitionAdded, class: apidiff.Compatible,
			old: crd("type: object"), new: crd("type: object") + "---\n" + strings.NewReplacer("Bucket", "Table", "buckets", "tables", "apiVersion: apiextensions.k8s.io/v1\n", "apiVersion: apiextensions.k8s.io/v1 #N\n").Replace(crd("type: object"))},
		{name: "v1beta1 CRD field removed", kind: apidiff.FieldRemoved, class: apidiff.Breaking, isErr: true, path: "spec.size",
			old: "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: buckets.example.org}\nspec:\n  group: example.org\n  names: {kind: Bucket, plural: buckets}\n  scope: Cluster\n  version: v1\n  validation:\n    openAPIV3Schema:\n      properties:\n        spec:\n          properties:\n            size: {type: integer} #O\n",
			new: "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: buckets.example.org}\nspec:\n  group: example.org\n  names: {kind: Bucket, plural: buckets}\n  scope: Cluster\n  version: v1\n  validation:\n    openAPIV3Schema:\n      properties:\n        spec:\n          properties: #N\n            name: {type: string}\n", others: []apidiff.Kind{apidiff.FieldAdded}},
		{name: "MRD type changed", kind: apidiff.TypeChanged, class: apidiff.Breaking, isErr: true, path: "spec.forProvider.size",
			old: strings.Replace(crd("properties:\n  size:\n    type: integer #O\n"), "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition", "apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceDefinition", 1),
			new: strings.Replace(crd("properties:\n  size:\n    type: string #N\n"), "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition", "apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceDefinition", 1)},
		{name: "CRD shipped as an MRD", kind: "",
			old: crd("properties:\n  size: {type: integer}\n"),
			new: strings.Replace(crd("properties:\n  size: {type: integer}\n"), "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition", "apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceDefinition", 1)},
		{name: "scope changed, major bump: still refused", opts: major, kind: apidiff.ScopeChanged, class: apidiff.Breaking, isErr: true, msg: "cannot install",
			old: strings.Replace(crd("type: object"), "scope: Cluster", "scope: Cluster #O", 1), new: strings.Replace(crd("type: object"), "scope: Cluster", "scope: Namespaced #N", 1)},
		{name: "kind changed, major bump: still refused", opts: major, kind: apidiff.NamesChanged, class: apidiff.Breaking, isErr: true, msg: "validateCustomResourceDefinitionSpecUpdate",
			old: strings.Replace(crd("type: object"), "names: {kind: Bucket, plural: buckets}", "names:\n    kind: Bucket #O\n    plural: buckets", 1),
			new: strings.Replace(crd("type: object"), "names: {kind: Bucket, plural: buckets}", "names:\n    kind: Pail #N\n    plural: buckets", 1)},
		{name: "plural changed, major bump: a new CRD", opts: major, kind: apidiff.NamesChanged, class: apidiff.Breaking, msg: "major version change",
			old: strings.Replace(crd("type: object"), "plural: buckets}", "plural: buckets} #O", 1),
			new: strings.NewReplacer("plural: buckets}", "plural: pails} #N", "buckets.example.org", "pails.example.org").Replace(crd("type: object"))},
		// XRDs.
		{name: "XRD claim kind removed", kind: apidiff.ClaimRemoved, class: apidiff.Breaking, isErr: true,
			old: xrdV1, new: strings.Replace(strings.Replace(xrdV1, "  claimNames: {kind: Network, plural: networks} #O\n", "", 1), "spec:\n  group", "spec: #N\n  group", 1)},
		{name: "XRD v1 to v2: scope and claims", kind: apidiff.ScopeChanged, class: apidiff.Breaking, isErr: true, msg: "LegacyCluster to Namespaced",
			old:    strings.Replace(strings.Replace(xrdV1, " #O", "", 1), "spec:\n  group", "spec: #O\n  group", 1),
			new:    strings.Replace(strings.Replace(strings.Replace(xrdV2, "              region: {type: string} #O\n", "", 1), " #N", "", 1), "spec:\n  group", "spec: #N\n  group", 1),
			others: []apidiff.Kind{apidiff.ClaimRemoved}},
		{name: "XRD claim kind changed, major bump: still refused", opts: major, kind: apidiff.ClaimRemoved, class: apidiff.Breaking, isErr: true, msg: "immutable",
			old: xrdV1, new: strings.Replace(xrdV1, "  claimNames: {kind: Network, plural: networks} #O\n", "  claimNames: {kind: Net, plural: networks} #N\n", 1)},
		{name: "XRD v1 to v2 scope, major bump: defaulted, not refused", opts: major, kind: apidiff.ScopeChanged, class: apidiff.Breaking,
			old:    strings.Replace(strings.Replace(xrdV1, " #O", "", 1), "spec:\n  group", "spec: #O\n  group", 1),
			new:    strings.Replace(strings.Replace(strings.Replace(xrdV2, "              region: {type: string} #O\n", "", 1), " #N", "", 1), "spec:\n  group", "spec: #N\n  group", 1),
			others: []apidiff.Kind{apidiff.ClaimRemoved}},
		{name: "XRD field removed", kind: apidiff.FieldRemoved, class: apidiff.Breaking, isErr: true, path: "spec.region",
			old: strings.Replace(xrdV2, " #N", "", 1), new: strings.Replace(xrdV2, "              region: {type: string} #O\n", "", 1)},
		{name: "XRD referenceable version changed", kind: apidiff.StorageChanged, class: apidiff.Breaking, isErr: true,
			old: strings.Replace(strings.Replace(strings.Replace(xrdV2, " #N", "", 1), " #O", "", 1), "referenceable: true", "referenceable: true #O", 1) + "  - name: v1beta1\n    served: true\n    referenceable: false\n    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object}}}}\n",
			new: strings.Replace(strings.Replace(strings.Replace(xrdV2, " #N", "", 1), " #O", "", 1), "referenceable: true", "referenceable: false", 1) + "  - name: v1beta1\n    served: true\n    referenceable: true #N\n    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object}}}}\n"},
	}
	if len(cases) < 40 {
		t.Fatalf("%d cases, want at least 40", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			oldPkg := parse(t, "old.yaml", tc.old)
			newPkg := parse(t, "new.yaml", tc.new)
			opts := tc.opts
			if opts == nil {
				opts = []apidiff.Option{apidiff.WithVersions("v1.0.0", "v1.1.0")}
			}
			res, err := apidiff.Diff(context.Background(), oldPkg, newPkg, opts...)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []apidiff.Kind
			for _, c := range res.Changes {
				kinds = append(kinds, c.Kind)
			}
			if tc.kind == "" {
				if len(res.Changes) > 0 {
					t.Fatalf("changes %v, want none: %+v", kinds, res.Changes)
				}
				return
			}
			want := append([]apidiff.Kind{tc.kind}, tc.others...)
			slices.Sort(want)
			got := slices.Clone(kinds)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("kinds %v, want %v: %+v", kinds, want, res.Changes)
			}
			i := slices.Index(kinds, tc.kind)
			c := res.Changes[i]
			if c.Class != tc.class || c.Error != tc.isErr || c.Path != tc.path {
				t.Errorf("class %v error %v path %q, want %v %v %q (%s)", c.Class, c.Error, c.Path, tc.class, tc.isErr, tc.path, c.Message)
			}
			if !strings.Contains(c.Message, tc.msg) {
				t.Errorf("message %q lacks %q", c.Message, tc.msg)
			}
			if w := markerLine(tc.old, "#O"); c.Old.Pos.Line != w || c.Old.Pos.File != "old.yaml" {
				t.Errorf("old position %s, want old.yaml:%d (%s)", c.Old.Pos, w, c.Message)
			}
			if w := markerLine(tc.new, "#N"); c.New.Pos.Line != w || c.New.Pos.File != "new.yaml" {
				t.Errorf("new position %s, want new.yaml:%d (%s)", c.New.Pos, w, c.Message)
			}
			if tc.class == apidiff.Breaking && res.Major != (len(tc.opts) > 0 && tc.opts[0] != nil && &tc.opts[0] == &major[0]) {
				t.Errorf("Major = %v", res.Major)
			}
		})
	}
}

func parse(t testing.TB, file, text string) *parser.Package {
	t.Helper()
	p, err := parser.Parse(context.Background(), strings.NewReader(text), parser.WithFile(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Errors) > 0 {
		t.Fatalf("%s: %v", file, p.Errors)
	}
	return p
}

// markerLine returns the line of text holding marker, 1 when none does
// (the object's or the package's start).
func markerLine(text, marker string) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	return 1
}

// TestStatusIgnored checks that a definition differing only in its status
// section (crossplane xpkg build writes controller-gen's) is skipped
// without decoding, and draws no change.
func TestStatusIgnored(t *testing.T) {
	t.Parallel()
	body := crd("properties:\n  size: {type: integer}\n")
	for _, status := range []string{
		"status:\n  acceptedNames:\n    kind: \"\"\n    plural: \"\"\n  conditions: null\n  storedVersions: null\n",
		"status: {}\n",
	} {
		res, err := apidiff.Diff(context.Background(), parse(t, "old.yaml", body+status), parse(t, "new.yaml", body))
		if err != nil || len(res.Changes) != 0 || res.Compared != 1 {
			t.Errorf("status %q: %v %+v", status, err, res)
		}
	}
}
