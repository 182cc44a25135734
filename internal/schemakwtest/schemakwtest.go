// Package schemakwtest lists the OpenAPI schema keywords and Kubernetes
// extensions the Validator of linter/schema checks objects against: the
// list its tests hold against kube-openapi's schema fields and the hostile
// corpus covers with a worst case each.
package schemakwtest

// keywords are the schema keywords and Kubernetes extensions a Validator
// checks.
var keywords = []string{
	"type", "format", "nullable", "enum", "pattern", "default", "required",
	"properties", "additionalProperties", "items", "uniqueItems",
	"maxLength", "minLength", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf",
	"maxItems", "minItems", "maxProperties", "minProperties",
	"allOf", "anyOf", "oneOf", "not",
	"x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-embedded-resource",
	"x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string",
}

// Keywords returns the OpenAPI schema keywords and Kubernetes extensions
// (x-kubernetes-…) the Validator of linter/schema checks objects against,
// in no particular order. Other keywords of a schema are left out (CEL
// rules, counted in Result.CEL; $ref, patternProperties,
// dependencies, recorded in Result.Skipped) or only describe it
// (description, title, example).
func Keywords() []string { return append([]string(nil), keywords...) }
