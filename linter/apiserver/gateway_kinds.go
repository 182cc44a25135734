package apiserver

// This file is part of the gateway (gateway.go): the API server's code for
// objects of Crossplane's own kinds (XP422).

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/xpkgkit/xpkgkit/linter/internal/kinds"
)

// kindSchema is one version of one of Crossplane's CRDs, ready to
// validate with.
type kindSchema struct {
	s   *structuralschema.Structural
	v   validation.SchemaValidator
	cel *cel.Validator
}

// kindSchemas caches the compiled versions of Crossplane's CRDs, keyed by
// release and group/version/kind: they are the same for every package.
var kindSchemas sync.Map // string -> *kindEntry

type kindEntry struct {
	once sync.Once
	ks   *kindSchema
	err  error
}

func kindSchemaFor(release string, gvk schema.GroupVersionKind) (*kindSchema, error) {
	key := release + "\x00" + gvk.String()
	e, _ := kindSchemas.LoadOrStore(key, &kindEntry{})
	ke := e.(*kindEntry)
	ke.once.Do(func() { ke.ks, ke.err = compileKind(release, gvk) })
	return ke.ks, ke.err
}

var errNoSchema = fmt.Errorf("no schema")

func compileKind(release string, gvk schema.GroupVersionKind) (ks *kindSchema, err error) {
	defer func() {
		if r := recover(); r != nil {
			ks, err = nil, fmt.Errorf("compiling %s: %v", gvk, r)
		}
	}()
	raw, ok := kinds.CRD(release, gvk.Group, gvk.Kind)
	if !ok {
		return nil, errNoSchema
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(raw, &crd); err != nil {
		return nil, err
	}
	for _, v := range crd.Spec.Versions {
		if v.Name != gvk.Version || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			return nil, err
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			return nil, err
		}
		sv, _, err := validation.NewSchemaValidator(&internal)
		if err != nil {
			return nil, err
		}
		return &kindSchema{s: s, v: sv, cel: cel.NewValidator(s, true, celconfig.PerCallLimit)}, nil
	}
	return nil, errNoSchema
}

// validateKind validates obj (decoded; it is pruned and defaulted in
// place) as the API server validates a custom resource on create
// (k8s.io/apiextensions-apiserver pkg/registry/customresource/strategy.go
// customResourceStrategy.Validate): pruning, defaulting, the OpenAPI
// schema, embedded resources' apiVersion, kind and metadata, list types,
// then, unless an error blocks them, the CEL rules
// with the per-object budget, taken from *budget.
func validateKind(ctx context.Context, ks *kindSchema, obj map[string]any, budget *int64) (errs field.ErrorList, costSkipped bool) {
	defer func() {
		if r := recover(); r != nil {
			errs = field.ErrorList{field.InternalError(nil, fmt.Errorf("validation failed: %v", r))}
		}
	}()
	pruning.PruneWithOptions(obj, ks.s, true, structuralschema.UnknownFieldPathOptions{})
	defaulting.PruneNonNullableNullsWithoutDefaults(obj, ks.s)
	defaulting.Default(obj, ks.s)
	errs = validation.ValidateCustomResource(nil, obj, ks.v)
	// Embedded resources (a function's input, a template): apiVersion,
	// kind and metadata, as the strategy validates them.
	errs = append(errs, objectmeta.Validate(ctx, nil, obj, ks.s, false)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, ks.s, obj)...)
	if ks.cel == nil {
		return errs, false
	}
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return errs, false
		}
	}
	b := min(*budget, int64(celconfig.RuntimeCELCostBudget))
	if b <= 0 {
		return errs, true
	}
	celErrs, remaining := ks.cel.Validate(ctx, nil, ks.s, obj, nil, b)
	*budget -= b - max(remaining, 0)
	for _, e := range celErrs {
		if b < celconfig.RuntimeCELCostBudget && strings.Contains(e.Detail, outOfBudget) {
			costSkipped = true
			continue
		}
		errs = append(errs, e)
	}
	return errs, costSkipped
}
