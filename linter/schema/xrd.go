package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/parser"
)

// Crossplane derives a CustomResourceDefinition from each
// CompositeResourceDefinition for its composite resource (XR) and, when
// spec.claimNames is set, one for its claim. The facts below are those of
// Crossplane v2.1.0 (internal/xcrd: ForCompositeResource,
// ForCompositeResourceClaim, genCrdVersion, BaseProps and the
// CompositeResource*Props functions):
//
//   - the schema keeps only the XRD schema's description and its spec and
//     status (their properties, required, oneOf, x-kubernetes-validations,
//     description, and for spec x-kubernetes-preserve-unknown-fields), on a
//     base of apiVersion, kind, metadata (name only, a string of at most 63
//     characters, or the XRD's own smaller maxLength) and a required spec;
//   - Crossplane's own fields are added to spec and status, replacing any
//     of the same name. For an XR of a v1 XRD (scope LegacyCluster) they
//     sit directly in spec (compositionRef, compositionSelector,
//     compositionRevisionRef, compositionRevisionSelector,
//     compositionUpdatePolicy, resourceRefs, claimRef,
//     writeConnectionSecretToRef); for Namespaced and Cluster XRs (v2 XRDs,
//     whose scope defaults to Namespaced) they sit under spec.crossplane,
//     without claimRef and writeConnectionSecretToRef. Claims get
//     compositionRef, compositionSelector, compositionRevisionRef,
//     compositionRevisionSelector, compositionUpdatePolicy,
//     compositeDeletePolicy, resourceRef and writeConnectionSecretToRef;
//   - a version is served as the XRD's version is.
const (
	refSchema      = `{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`
	selectorSchema = `{"type":"object","required":["matchLabels"],"properties":{"matchLabels":{"type":"object","additionalProperties":{"type":"string"}}}}`
	policySchema   = `{"type":"string","enum":["Automatic","Manual"]}`
	conditions     = `{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["type"],"items":{"type":"object","required":["lastTransitionTime","reason","status","type"],"properties":{"lastTransitionTime":{"type":"string","format":"date-time"},"message":{"type":"string"},"reason":{"type":"string"},"status":{"type":"string"},"type":{"type":"string"},"observedGeneration":{"type":"integer","format":"int64"}}}}`
)

func resourceRefs(namespaced bool) string {
	ns := `,"namespace":{"type":"string"}`
	if namespaced {
		ns = ""
	}
	return `{"type":"array","x-kubernetes-list-type":"atomic","items":{"type":"object","required":["apiVersion","kind"],"properties":{"apiVersion":{"type":"string"},"name":{"type":"string"},"kind":{"type":"string"}` + ns + `}}}`
}

func mustJSON(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err) // constant input
	}
	return v
}

func withDefault(s string, def string) any {
	m := mustJSON(s).(map[string]any)
	if def != "" {
		m["default"] = def
	}
	return m
}

// xrSpecProps returns the fields Crossplane adds to an XR's spec.
func xrSpecProps(scope, updatePolicy string) map[string]any {
	props := map[string]any{
		"compositionRef":              mustJSON(refSchema),
		"compositionSelector":         mustJSON(selectorSchema),
		"compositionRevisionRef":      mustJSON(refSchema),
		"compositionRevisionSelector": mustJSON(selectorSchema),
		"compositionUpdatePolicy":     withDefault(policySchema, updatePolicy),
		"resourceRefs":                mustJSON(resourceRefs(scope == "Namespaced")),
	}
	if scope == "LegacyCluster" {
		props["claimRef"] = mustJSON(`{"type":"object","required":["apiVersion","kind","namespace","name"],"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"namespace":{"type":"string"},"name":{"type":"string"}}}`)
		props["writeConnectionSecretToRef"] = mustJSON(`{"type":"object","required":["name","namespace"],"properties":{"name":{"type":"string"},"namespace":{"type":"string"}}}`)
		return props
	}
	return map[string]any{"crossplane": map[string]any{"type": "object", "properties": props}}
}

// claimSpecProps returns the fields Crossplane adds to a claim's spec.
func claimSpecProps(deletePolicy string) map[string]any {
	return map[string]any{
		"compositionRef":              mustJSON(refSchema),
		"compositionSelector":         mustJSON(selectorSchema),
		"compositionRevisionRef":      mustJSON(refSchema),
		"compositionRevisionSelector": mustJSON(selectorSchema),
		"compositionUpdatePolicy":     mustJSON(policySchema),
		"compositeDeletePolicy":       withDefault(`{"type":"string","enum":["Background","Foreground"]}`, deletePolicy),
		"resourceRef":                 mustJSON(`{"type":"object","required":["apiVersion","kind","name"],"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"name":{"type":"string"}}}`),
		"writeConnectionSecretToRef":  mustJSON(`{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`),
	}
}

// statusProps returns the fields Crossplane adds to a status.
func statusProps(scope string) map[string]any {
	props := map[string]any{"conditions": mustJSON(conditions)}
	if scope == "LegacyCluster" {
		props["connectionDetails"] = mustJSON(`{"type":"object","properties":{"lastPublishedTime":{"type":"string","format":"date-time"}}}`)
		props["claimConditionTypes"] = mustJSON(`{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}`)
	}
	return props
}

// addXRD indexes the XR and claim kinds of every version of a
// CompositeResourceDefinition.
func (v *Validator) addXRD(o *parser.Object) {
	m := outlineOf(o)
	group := getString(m, "spec", "group")
	kind := getString(m, "spec", "names", "kind")
	if group == "" || kind == "" {
		return
	}
	claimKind := getString(m, "spec", "claimNames", "kind")
	def := fmt.Sprintf("CompositeResourceDefinition %s", strconv.Quote(bounded(o.ObjectMeta.Name)))
	for i, e := range getList(m, "spec", "versions") {
		em, _ := e.(map[string]any)
		name, _ := em["name"].(string)
		served, _ := em["served"].(bool)
		i, name := i, name
		v.add(&entry{
			gvk: schema.GroupVersionKind{Group: group, Version: name, Kind: kind}, definition: def + " (composite resource)", served: served,
			build: func() (any, bool, error) { return xrdSchema(o, i, name, false, v.rootCEL) },
		})
		if claimKind != "" && claimKind != kind {
			v.add(&entry{
				gvk: schema.GroupVersionKind{Group: group, Version: name, Kind: claimKind}, definition: def + " (claim)", served: served,
				build: func() (any, bool, error) { return xrdSchema(o, i, name, true, v.rootCEL) },
			})
		}
	}
}

// xrdSchema derives the schema of version i (name) of an XRD's XR or claim.
func xrdSchema(o *parser.Object, i int, name string, claim, rootCEL bool) (any, bool, error) {
	m, err := content(o)
	if err != nil {
		return nil, false, err
	}
	return xrdSchemaOf(m, i, name, claim, rootCEL)
}

// xrdSchemaOf is xrdSchema of the XRD's decoded content m.
func xrdSchemaOf(m map[string]any, i int, name string, claim, rootCEL bool) (any, bool, error) {
	v2 := strings.HasSuffix(getString(m, "apiVersion"), "/v2")
	vs := getList(m, "spec", "versions")
	if i >= len(vs) {
		return nil, false, fmt.Errorf("%w: version %s not found", ErrInvalidSchema, strconv.Quote(bounded(name)))
	}
	vm, _ := vs[i].(map[string]any)
	s, _ := get(vm, "schema", "openAPIV3Schema").(map[string]any)
	if s == nil {
		// Crossplane cannot generate the CRD: "custom resource validation
		// cannot be nil".
		return nil, false, fmt.Errorf("%w: version %s has no schema.openAPIV3Schema, so Crossplane cannot derive its CRD", ErrInvalidSchema, strconv.Quote(bounded(name)))
	}
	scope := getString(m, "spec", "scope")
	if scope == "" {
		scope = "LegacyCluster"
		if v2 {
			scope = "Namespaced"
		}
	}
	updatePolicy := getString(m, "spec", "defaultCompositionUpdatePolicy")
	if updatePolicy == "" {
		updatePolicy = "Automatic"
	}
	deletePolicy := getString(m, "spec", "defaultCompositeDeletePolicy")
	if deletePolicy == "" && !v2 {
		deletePolicy = "Background"
	}
	d := deriveSchema(s, scope, claim, updatePolicy, deletePolicy)
	if rootCEL {
		copyKeys(d, s, "x-kubernetes-validations")
	}
	return d, false, nil
}

// deriveSchema builds the CRD schema Crossplane generates from an XRD
// version's schema s.
func deriveSchema(s map[string]any, scope string, claim bool, updatePolicy, deletePolicy string) map[string]any {
	maxLen := int64(63)
	if ml, ok := numberOf(get(s, "properties", "metadata", "properties", "name", "maxLength")); ok && ml < maxLen {
		maxLen = ml
	}
	spec := map[string]any{"type": "object"}
	status := map[string]any{"type": "object"}
	xSpec := getMap(s, "properties", "spec")
	xStatus := getMap(s, "properties", "status")
	copyKeys(spec, xSpec, "required", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-validations", "oneOf", "description")
	copyKeys(status, xStatus, "required", "x-kubernetes-validations", "oneOf", "description")
	specProps := map[string]any{}
	for k, p := range getMap(xSpec, "properties") {
		specProps[k] = p
	}
	statusProps0 := map[string]any{}
	for k, p := range getMap(xStatus, "properties") {
		statusProps0[k] = p
	}
	var add map[string]any
	statusScope := scope
	if claim {
		add = claimSpecProps(deletePolicy)
		statusScope = "LegacyCluster"
	} else {
		add = xrSpecProps(scope, updatePolicy)
	}
	for k, p := range add {
		specProps[k] = p
	}
	for k, p := range statusProps(statusScope) {
		statusProps0[k] = p
	}
	spec["properties"] = specProps
	status["properties"] = statusProps0
	out := map[string]any{
		"type":     "object",
		"required": []any{"spec"},
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string"},
			"kind":       map[string]any{"type": "string"},
			"metadata": map[string]any{"type": "object", "properties": map[string]any{
				"name": map[string]any{"type": "string", "maxLength": maxLen},
			}},
			"spec":   spec,
			"status": status,
		},
	}
	if d, ok := s["description"]; ok {
		out["description"] = d
	}
	return out
}

func copyKeys(dst, src map[string]any, keys ...string) {
	for _, k := range keys {
		if v, ok := src[k]; ok {
			dst[k] = v
		}
	}
}

func numberOf(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		return int64(x), true
	}
	return 0, false
}

// DeriveSchema returns the openAPIV3Schema of version version of the CRD
// Crossplane derives from xrd, the decoded content of a
// CompositeResourceDefinition: the composite resource's, or, with claim,
// the claim's (see New for what Crossplane adds). rootCEL copies the XRD
// schema's root-level x-kubernetes-validations into it, as Crossplane v2.2
// and later do. The result may share values with xrd: modify neither. It
// returns an error wrapping ErrInvalidSchema when the XRD has no such
// version or the version no schema (Crossplane cannot derive the CRD then).
func DeriveSchema(xrd map[string]any, version string, claim, rootCEL bool) (map[string]any, error) {
	for i, e := range getList(xrd, "spec", "versions") {
		em, _ := e.(map[string]any)
		if name, _ := em["name"].(string); name == version {
			s, _, err := xrdSchemaOf(xrd, i, version, claim, rootCEL)
			if err != nil {
				return nil, err
			}
			out, _ := s.(map[string]any)
			return out, nil
		}
	}
	return nil, fmt.Errorf("%w: version %s not found", ErrInvalidSchema, strconv.Quote(bounded(version)))
}
