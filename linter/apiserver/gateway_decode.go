package apiserver

// This file is part of the gateway (gateway.go): it builds the API
// server's v1 CustomResourceDefinition type from decoded content.

import (
	"math"
	"unicode/utf8"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	kjson "sigs.k8s.io/json"
)

// internalCRD returns content, an apiextensions.k8s.io/v1
// CustomResourceDefinition as decoded JSON, as the API server validates it
// on create: decoded into the v1 type as kjson.UnmarshalCaseSensitivePreserveInts
// decodes content's JSON (where a value of the wrong type is refused: a
// finding), Crossplane's webhook filled in (withCrossplaneWebhook), the v1
// defaults applied, the status the API server gives a new CRD, converted
// to the internal type. It does that through decodeCRD, or else through
// content's JSON (internalCRDJSON); an error is one of marshalJSON's.
func internalCRD(content map[string]any) (*apiextensions.CustomResourceDefinition, []finding, error) {
	if crd, ok := decodeCRD(content); ok {
		return crd, nil, nil
	}
	return internalCRDJSON(content)
}

// internalCRDJSON is internalCRD through content's JSON and the API
// server's own decoding and conversion.
func internalCRDJSON(content map[string]any) (*apiextensions.CustomResourceDefinition, []finding, error) {
	raw, err := marshalJSON(content)
	if err != nil {
		return nil, nil, err
	}
	v1 := new(apiextensionsv1.CustomResourceDefinition)
	// Unknown fields are dropped, as the API server's (and Crossplane's)
	// non-strict decoding drops them.
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, v1); err != nil {
		return nil, []finding{decodeFinding(content, err)}, nil
	}
	prepareV1(v1)
	var crd apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, &crd, nil); err != nil {
		return nil, []finding{{msg: "cannot convert: " + err.Error()}}, nil
	}
	return &crd, nil, nil
}

// prepareV1 does to a decoded v1 CRD what is done to it before its
// conversion: Crossplane's webhook, the v1 defaults, and the status.
func prepareV1(v1 *apiextensionsv1.CustomResourceDefinition) {
	withCrossplaneWebhook(v1)
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1)
	// The API server clears a new CRD's status and records its storage
	// version as stored before it validates it (pkg/registry/
	// customresourcedefinition strategy.PrepareForCreate): a status the
	// package carries is never looked at.
	v1.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	for _, v := range v1.Spec.Versions {
		if v.Storage {
			v1.Status.StoredVersions = []string{v.Name}
			break
		}
	}
}

// decodeCRD is internalCRD without the version schemas' JSON, or reports
// false. The version schemas, most of a CRD's bytes, are built field by
// field from content straight into the internal type (decodeSchema): the
// JSON decoder's reflection took about a fifth of XP420's CPU on the
// upjet monolith, and the conversion of each schema from the v1 type to
// the internal one about a tenth. The rest, a few small fields, goes
// through its JSON, the v1 type and the conversion, with the schemas left
// out; then the schemas are put in where the conversion puts them (on
// the spec when every version's is the same, else on each version:
// apiextensionsv1.Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec).
// A schema that holds anything the fast path does not decode exactly as
// the JSON decoder and the conversion would (a key it does not know, a
// value of another type, a string that is not valid UTF-8, a number its
// field may not hold), and any decoding error, reports false: the caller
// goes through content's JSON then, so that what the API server sees and
// the errors it reports are its own decoding's (TestDecodeCRDMatchesJSON).
func decodeCRD(content map[string]any) (*apiextensions.CustomResourceDefinition, bool) {
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
	v1, err := decodeCRDJSON(top)
	if err != nil || len(v1.Spec.Versions) != len(versions) {
		return nil, false
	}
	prepareV1(v1)
	// Each version's schema as the conversion would build it: nil where
	// the version has none, an empty one where it has no openAPIV3Schema.
	vals := make([]*apiextensions.CustomResourceValidation, len(versions))
	for i, s := range schemas {
		v := &v1.Spec.Versions[i]
		if v.Schema == nil {
			if s != nil {
				return nil, false
			}
			continue
		}
		if v.Schema.OpenAPIV3Schema != nil {
			return nil, false
		}
		vals[i] = new(apiextensions.CustomResourceValidation)
		if s != nil {
			props := new(apiextensions.JSONSchemaProps)
			if !decodeSchema(s, props, 0) {
				return nil, false
			}
			vals[i].OpenAPIV3Schema = props
		}
		// Left out of the conversion: with no version holding a schema,
		// the conversion moves none to the spec.
		v.Schema = nil
	}
	var crd apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, &crd, nil); err != nil {
		return nil, false
	}
	if len(crd.Spec.Versions) != len(vals) || crd.Spec.Validation != nil {
		return nil, false
	}
	if len(vals) == 0 {
		return &crd, true
	}
	identical := true
	for _, v := range vals {
		if !apiequality.Semantic.DeepEqual(v, vals[0]) {
			identical = false
			break
		}
	}
	if identical {
		crd.Spec.Validation = vals[0]
	} else {
		for i := range crd.Spec.Versions {
			crd.Spec.Versions[i].Schema = vals[i]
		}
	}
	return &crd, true
}

// maxDecodeDepth leaves deeper schemas to the JSON decoder (content from
// the parser is depth-limited well below it).
const maxDecodeDepth = 1000

// decodeSchema decodes the schema m into out as the JSON decoder decodes
// its JSON into the v1 type, and reports false when it cannot be sure to
// (see decodeCRD).
func decodeSchema(m map[string]any, out *apiextensions.JSONSchemaProps, depth int) bool {
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
			out.Schema = apiextensions.JSONSchemaURL(s)
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
				out.Not = new(apiextensions.JSONSchemaProps)
				ok = decodeSchema(sm, out.Not, depth+1)
			}
		case "properties":
			out.Properties, ok = schemaMap(v, depth)
		case "patternProperties":
			out.PatternProperties, ok = schemaMap(v, depth)
		case "definitions":
			var d map[string]apiextensions.JSONSchemaProps
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

// jsonPtr is v (not nil) as the API server's conversion turns its JSON
// into the internal type's JSON (jsonValue).
func jsonPtr(v any) (*apiextensions.JSON, bool) {
	x, ok := jsonValue(v)
	if !ok {
		return nil, false
	}
	j := apiextensions.JSON(x)
	return &j, true
}

// jsonValue is v as the v1 type keeps its JSON and the conversion to the
// internal type decodes that JSON again (apiextensionsv1.
// Convert_v1_JSON_To_apiextensions_JSON, through k8s.io/apimachinery's
// json.Unmarshal): nil for null, a string, a bool and an int64 as they
// are (a string only when valid UTF-8, which its JSON keeps as it is),
// anything else (a float, a map, a list) through its JSON and back, as
// the conversion decodes it.
func jsonValue(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool, int64:
		return x, true
	case int:
		return int64(x), true
	case string:
		return x, utf8.ValidString(x)
	}
	raw, err := marshalJSON(v)
	if err != nil {
		return nil, false
	}
	var x any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &x); err != nil {
		return nil, false
	}
	return x, true
}

func jsonList(v any) ([]apiextensions.JSON, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]apiextensions.JSON, len(l))
	for i, e := range l {
		x, ok := jsonValue(e)
		if !ok {
			return nil, false
		}
		out[i] = x
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

func schemaList(v any, depth int) ([]apiextensions.JSONSchemaProps, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]apiextensions.JSONSchemaProps, len(l))
	for i, e := range l {
		m, ok := e.(map[string]any)
		if !ok || !decodeSchema(m, &out[i], depth+1) {
			return nil, false
		}
	}
	return out, true
}

func schemaMap(v any, depth int) (map[string]apiextensions.JSONSchemaProps, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	out := make(map[string]apiextensions.JSONSchemaProps, len(m))
	for k, e := range m {
		sm, ok := e.(map[string]any)
		if !ok || !utf8.ValidString(k) {
			return nil, false
		}
		var p apiextensions.JSONSchemaProps
		if !decodeSchema(sm, &p, depth+1) {
			return nil, false
		}
		out[k] = p
	}
	return out, true
}

// schemaOrArray decodes items as JSONSchemaPropsOrArray.UnmarshalJSON does
// (a schema, or a list of them).
func schemaOrArray(v any, depth int) (*apiextensions.JSONSchemaPropsOrArray, bool) {
	switch x := v.(type) {
	case map[string]any:
		s := new(apiextensions.JSONSchemaProps)
		if !decodeSchema(x, s, depth+1) {
			return nil, false
		}
		return &apiextensions.JSONSchemaPropsOrArray{Schema: s}, true
	case []any:
		l, ok := schemaList(x, depth)
		return &apiextensions.JSONSchemaPropsOrArray{JSONSchemas: l}, ok
	}
	return nil, false
}

// schemaOrBool decodes as JSONSchemaPropsOrBool.UnmarshalJSON does (a
// schema, which allows, or a bool).
func schemaOrBool(v any, depth int) (*apiextensions.JSONSchemaPropsOrBool, bool) {
	switch x := v.(type) {
	case map[string]any:
		s := new(apiextensions.JSONSchemaProps)
		if !decodeSchema(x, s, depth+1) {
			return nil, false
		}
		return &apiextensions.JSONSchemaPropsOrBool{Allows: true, Schema: s}, true
	case bool:
		return &apiextensions.JSONSchemaPropsOrBool{Allows: x}, true
	}
	return nil, false
}

func validationRules(v any) (apiextensions.ValidationRules, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make(apiextensions.ValidationRules, len(l))
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
				reason := apiextensions.FieldValueErrorReason(s)
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
