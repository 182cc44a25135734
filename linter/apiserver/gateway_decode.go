package apiserver

// This file is part of the gateway (gateway.go): it builds the API
// server's v1 CustomResourceDefinition type from decoded content.

import (
	"math"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kjson "sigs.k8s.io/json"
)

// decodeCRD decodes content, an apiextensions.k8s.io/v1
// CustomResourceDefinition as decoded JSON, into the v1 type exactly as
// kjson.UnmarshalCaseSensitivePreserveInts decodes content's JSON
// (marshalJSON), or reports false. The version schemas, most of a CRD's
// bytes, are built field by field from content without their JSON
// (decodeSchema; the JSON decoder's reflection took about a fifth of
// XP420's CPU on the upjet monolith); the rest, a few small fields,
// through its JSON. A schema that holds anything the fast path does not
// decode exactly as the JSON decoder would (a key it does not know, a
// value of another type, a string that is not valid UTF-8, a number its
// field may not hold), and any decoding error, reports false: the caller
// decodes the whole CRD through its JSON then, so that what the API
// server sees and the errors it reports are the JSON decoder's
// (TestDecodeCRDMatchesJSON).
func decodeCRD(content map[string]any) (*apiextensionsv1.CustomResourceDefinition, bool) {
	spec, ok := content["spec"].(map[string]any)
	if !ok {
		return nil, false
	}
	versions, ok := spec["versions"].([]any)
	if !ok {
		return nil, false
	}
	// The rest: content without the versions' schemas, shallow copies
	// along the way (content is the caller's, and YAML aliases may share
	// its maps between versions).
	schemas := make([]map[string]any, len(versions))
	rest := make([]any, len(versions))
	for i, v := range versions {
		vm, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		sv, has := vm["schema"]
		if !has || sv == nil {
			rest[i] = vm
			continue
		}
		sm, ok := sv.(map[string]any)
		if !ok {
			return nil, false
		}
		root, has := sm["openAPIV3Schema"]
		if !has || root == nil {
			rest[i] = vm
			continue
		}
		if schemas[i], ok = root.(map[string]any); !ok {
			return nil, false
		}
		sm2 := make(map[string]any, len(sm))
		for k, x := range sm {
			if k != "openAPIV3Schema" {
				sm2[k] = x
			}
		}
		vm2 := make(map[string]any, len(vm))
		for k, x := range vm {
			vm2[k] = x
		}
		vm2["schema"] = sm2
		rest[i] = vm2
	}
	spec2 := make(map[string]any, len(spec))
	for k, x := range spec {
		spec2[k] = x
	}
	spec2["versions"] = rest
	top := make(map[string]any, len(content))
	for k, x := range content {
		top[k] = x
	}
	top["spec"] = spec2
	crd, err := decodeCRDJSON(top)
	if err != nil || len(crd.Spec.Versions) != len(versions) {
		return nil, false
	}
	for i, s := range schemas {
		if s == nil {
			continue
		}
		v := &crd.Spec.Versions[i]
		if v.Schema == nil {
			return nil, false
		}
		props := new(apiextensionsv1.JSONSchemaProps)
		if !decodeSchema(s, props, 0) {
			return nil, false
		}
		v.Schema.OpenAPIV3Schema = props
	}
	return crd, true
}

// maxDecodeDepth leaves deeper schemas to the JSON decoder (content from
// the parser is depth-limited well below it).
const maxDecodeDepth = 1000

// decodeSchema decodes the schema m into out as the JSON decoder decodes
// its JSON into the v1 type, and reports false when it cannot be sure to
// (see decodeCRD).
func decodeSchema(m map[string]any, out *apiextensionsv1.JSONSchemaProps, depth int) bool {
	if depth > maxDecodeDepth {
		return false
	}
	for k, v := range m {
		if v == nil {
			// null leaves a field as it is (a pointer, a list or a map
			// nil), and every key comes once: no key is unknown to the
			// fast path, though (an unknown key is not decoded at all).
			if !schemaKeys[k] {
				return false
			}
			continue
		}
		ok := true
		switch k {
		case "id":
			out.ID, ok = str(v)
		case "$schema":
			var s string
			s, ok = str(v)
			out.Schema = apiextensionsv1.JSONSchemaURL(s)
		case "$ref":
			out.Ref, ok = strPtr(v)
		case "description":
			out.Description, ok = str(v)
		case "type":
			out.Type, ok = str(v)
		case "format":
			out.Format, ok = str(v)
		case "title":
			out.Title, ok = str(v)
		case "default":
			out.Default, ok = jsonPtr(v)
		case "example":
			out.Example, ok = jsonPtr(v)
		case "maximum":
			out.Maximum, ok = floatPtr(v)
		case "minimum":
			out.Minimum, ok = floatPtr(v)
		case "multipleOf":
			out.MultipleOf, ok = floatPtr(v)
		case "exclusiveMaximum":
			out.ExclusiveMaximum, ok = v.(bool)
		case "exclusiveMinimum":
			out.ExclusiveMinimum, ok = v.(bool)
		case "uniqueItems":
			out.UniqueItems, ok = v.(bool)
		case "nullable":
			out.Nullable, ok = v.(bool)
		case "x-kubernetes-embedded-resource":
			out.XEmbeddedResource, ok = v.(bool)
		case "x-kubernetes-int-or-string":
			out.XIntOrString, ok = v.(bool)
		case "x-kubernetes-preserve-unknown-fields":
			var b bool
			b, ok = v.(bool)
			out.XPreserveUnknownFields = &b
		case "maxLength":
			out.MaxLength, ok = intPtr(v)
		case "minLength":
			out.MinLength, ok = intPtr(v)
		case "maxItems":
			out.MaxItems, ok = intPtr(v)
		case "minItems":
			out.MinItems, ok = intPtr(v)
		case "maxProperties":
			out.MaxProperties, ok = intPtr(v)
		case "minProperties":
			out.MinProperties, ok = intPtr(v)
		case "pattern":
			out.Pattern, ok = str(v)
		case "enum":
			out.Enum, ok = jsonList(v)
		case "required":
			out.Required, ok = strList(v)
		case "x-kubernetes-list-map-keys":
			out.XListMapKeys, ok = strList(v)
		case "x-kubernetes-list-type":
			out.XListType, ok = strPtr(v)
		case "x-kubernetes-map-type":
			out.XMapType, ok = strPtr(v)
		case "items":
			out.Items, ok = schemaOrArray(v, depth)
		case "allOf":
			out.AllOf, ok = schemaList(v, depth)
		case "oneOf":
			out.OneOf, ok = schemaList(v, depth)
		case "anyOf":
			out.AnyOf, ok = schemaList(v, depth)
		case "not":
			var sm map[string]any
			if sm, ok = v.(map[string]any); ok {
				out.Not = new(apiextensionsv1.JSONSchemaProps)
				ok = decodeSchema(sm, out.Not, depth+1)
			}
		case "properties":
			out.Properties, ok = schemaMap(v, depth)
		case "patternProperties":
			out.PatternProperties, ok = schemaMap(v, depth)
		case "definitions":
			var d map[string]apiextensionsv1.JSONSchemaProps
			d, ok = schemaMap(v, depth)
			out.Definitions = d
		case "additionalProperties":
			out.AdditionalProperties, ok = schemaOrBool(v, depth)
		case "additionalItems":
			out.AdditionalItems, ok = schemaOrBool(v, depth)
		case "x-kubernetes-validations":
			out.XValidations, ok = validationRules(v)
		default:
			// dependencies and externalDocs (rare), and keys the JSON
			// decoder drops: the JSON decoder decides.
			return false
		}
		if !ok {
			return false
		}
	}
	return true
}

// schemaKeys are the keys decodeSchema decodes.
var schemaKeys = map[string]bool{
	"id": true, "$schema": true, "$ref": true, "description": true, "type": true, "format": true, "title": true,
	"default": true, "example": true, "maximum": true, "minimum": true, "multipleOf": true,
	"exclusiveMaximum": true, "exclusiveMinimum": true, "uniqueItems": true, "nullable": true,
	"x-kubernetes-embedded-resource": true, "x-kubernetes-int-or-string": true, "x-kubernetes-preserve-unknown-fields": true,
	"maxLength": true, "minLength": true, "maxItems": true, "minItems": true, "maxProperties": true, "minProperties": true,
	"pattern": true, "enum": true, "required": true, "x-kubernetes-list-map-keys": true, "x-kubernetes-list-type": true,
	"x-kubernetes-map-type": true, "items": true, "allOf": true, "oneOf": true, "anyOf": true, "not": true,
	"properties": true, "patternProperties": true, "definitions": true, "additionalProperties": true,
	"additionalItems": true, "x-kubernetes-validations": true,
}

// str is v as a JSON string decodes into a string: false for another
// type, and for a string that is not valid UTF-8 (its JSON holds U+FFFD
// in its place).
func str(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok && utf8.ValidString(s)
}

func strPtr(v any) (*string, bool) {
	s, ok := str(v)
	return &s, ok
}

// floatPtr is v as its JSON decodes into a *float64: an integer's digits
// and a float's shortest form parse back to the same float64.
func floatPtr(v any) (*float64, bool) {
	var f float64
	switch x := v.(type) {
	case int64:
		f = float64(x)
	case int:
		f = float64(x)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, false
		}
		f = x
	default:
		return nil, false
	}
	return &f, true
}

// intPtr is v as its JSON decodes into an *int64: integers only (a float,
// even a whole one, is left to the JSON decoder).
func intPtr(v any) (*int64, bool) {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case int:
		n = int64(x)
	default:
		return nil, false
	}
	return &n, true
}

// jsonPtr is v's JSON, as apiextensionsv1.JSON keeps it (v is not nil).
func jsonPtr(v any) (*apiextensionsv1.JSON, bool) {
	raw, err := marshalJSON(v)
	if err != nil {
		return nil, false
	}
	return &apiextensionsv1.JSON{Raw: raw}, true
}

func jsonList(v any) ([]apiextensionsv1.JSON, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]apiextensionsv1.JSON, len(l))
	for i, e := range l {
		if e == nil {
			// JSON.UnmarshalJSON keeps nothing of null.
			continue
		}
		raw, err := marshalJSON(e)
		if err != nil {
			return nil, false
		}
		out[i].Raw = raw
	}
	return out, true
}

func strList(v any) ([]string, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(l))
	for i, e := range l {
		if out[i], ok = str(e); !ok {
			return nil, false
		}
	}
	return out, true
}

func schemaList(v any, depth int) ([]apiextensionsv1.JSONSchemaProps, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]apiextensionsv1.JSONSchemaProps, len(l))
	for i, e := range l {
		m, ok := e.(map[string]any)
		if !ok || !decodeSchema(m, &out[i], depth+1) {
			return nil, false
		}
	}
	return out, true
}

func schemaMap(v any, depth int) (map[string]apiextensionsv1.JSONSchemaProps, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	out := make(map[string]apiextensionsv1.JSONSchemaProps, len(m))
	for k, e := range m {
		sm, ok := e.(map[string]any)
		if !ok || !utf8.ValidString(k) {
			return nil, false
		}
		var p apiextensionsv1.JSONSchemaProps
		if !decodeSchema(sm, &p, depth+1) {
			return nil, false
		}
		out[k] = p
	}
	return out, true
}

// schemaOrArray decodes items as JSONSchemaPropsOrArray.UnmarshalJSON does
// (a schema, or a list of them).
func schemaOrArray(v any, depth int) (*apiextensionsv1.JSONSchemaPropsOrArray, bool) {
	switch x := v.(type) {
	case map[string]any:
		s := new(apiextensionsv1.JSONSchemaProps)
		if !decodeSchema(x, s, depth+1) {
			return nil, false
		}
		return &apiextensionsv1.JSONSchemaPropsOrArray{Schema: s}, true
	case []any:
		l, ok := schemaList(x, depth)
		return &apiextensionsv1.JSONSchemaPropsOrArray{JSONSchemas: l}, ok
	}
	return nil, false
}

// schemaOrBool decodes as JSONSchemaPropsOrBool.UnmarshalJSON does (a
// schema, which allows, or a bool).
func schemaOrBool(v any, depth int) (*apiextensionsv1.JSONSchemaPropsOrBool, bool) {
	switch x := v.(type) {
	case map[string]any:
		s := new(apiextensionsv1.JSONSchemaProps)
		if !decodeSchema(x, s, depth+1) {
			return nil, false
		}
		return &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: s}, true
	case bool:
		return &apiextensionsv1.JSONSchemaPropsOrBool{Allows: x}, true
	}
	return nil, false
}

func validationRules(v any) (apiextensionsv1.ValidationRules, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make(apiextensionsv1.ValidationRules, len(l))
	for i, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		r := &out[i]
		for k, x := range m {
			if x == nil {
				switch k {
				case "rule", "message", "messageExpression", "reason", "fieldPath", "optionalOldSelf":
					continue
				}
				return nil, false
			}
			switch k {
			case "rule":
				r.Rule, ok = str(x)
			case "message":
				r.Message, ok = str(x)
			case "messageExpression":
				r.MessageExpression, ok = str(x)
			case "fieldPath":
				r.FieldPath, ok = str(x)
			case "reason":
				var s string
				s, ok = str(x)
				reason := apiextensionsv1.FieldValueErrorReason(s)
				r.Reason = &reason
			case "optionalOldSelf":
				var b bool
				b, ok = x.(bool)
				r.OptionalOldSelf = &b
			default:
				return nil, false
			}
			if !ok {
				return nil, false
			}
		}
	}
	return out, true
}

// decodeCRDJSON decodes content through its JSON.
func decodeCRDJSON(content map[string]any) (*apiextensionsv1.CustomResourceDefinition, error) {
	raw, err := marshalJSON(content)
	if err != nil {
		return nil, err
	}
	var v1 apiextensionsv1.CustomResourceDefinition
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &v1); err != nil {
		return nil, err
	}
	return &v1, nil
}
