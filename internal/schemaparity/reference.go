// Package schemaparity compares the verdicts of linter/schema with those of
// the Kubernetes API server's own custom resource validation
// (k8s.io/apiextensions-apiserver), on a table of objects and in a
// differential fuzz target. It is a nested module so that the main module
// does not depend on the API server.
//
// Run it from this directory:
//
//	go test ./...
//	go test -run '^$' -fuzz FuzzParity -fuzztime 60s
package schemaparity

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// Reference validates obj as the API server validates a custom resource
// of the given schema (an apiextensions.k8s.io/v1 openAPIV3Schema, as
// decoded JSON) on create: prune unknown fields, drop non-nullable nulls,
// default, then the OpenAPI schema, list types and embedded resources. CEL
// rules are not evaluated (neither does linter/schema). It returns the
// errors and the pruned field paths; an error means the schema is not one
// the API server would accept.
func Reference(schema any, obj map[string]any) (field.ErrorList, []string, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, nil, err
	}
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(b, &v1); err != nil {
		return nil, nil, err
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		return nil, nil, err
	}
	s, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, nil, fmt.Errorf("not structural: %w", err)
	}
	if errs := structuralschema.ValidateStructural(nil, s); len(errs) > 0 {
		return nil, nil, fmt.Errorf("not structural: %v", errs.ToAggregate())
	}
	pruned := pruning.PruneWithOptions(obj, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	defaulting.PruneNonNullableNullsWithoutDefaults(obj, s)
	defaulting.Default(obj, s)
	validator, _, err := validation.NewSchemaValidator(&internal)
	if err != nil {
		return nil, nil, err
	}
	errs := validation.ValidateCustomResource(nil, obj, validator)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, s, obj)...)
	errs = append(errs, objectmeta.Validate(context.Background(), nil, obj, s, false)...)
	return errs, pruned, nil
}

// ReferenceCRD validates a CustomResourceDefinition (one YAML or JSON
// document) as the API server does on create, with its own code path:
// the apiextensions scheme's universal decoder (decoding, v1 defaults,
// conversion to the internal type), what the registry strategy's
// PrepareForCreate does (k8s.io/apiextensions-apiserver
// pkg/registry/customresourcedefinition: the status cleared, the storage
// version recorded as stored; its package is not imported, it brings etcd
// in), and the strategy's Validate, validation.ValidateCustomResourceDefinition.
// A conversion webhook's client config is filled in first, as
// Crossplane's package manager fills it in before it creates the CRD
// (the package never carries it). A decoding error is returned as one
// error.
func ReferenceCRD(doc []byte) field.ErrorList {
	obj, _, err := crdCodecs.UniversalDecoder().Decode(doc, nil, nil)
	if err != nil {
		return field.ErrorList{field.Invalid(nil, nil, "cannot decode: "+err.Error())}
	}
	crd, ok := obj.(*apiextensions.CustomResourceDefinition)
	if !ok {
		return field.ErrorList{field.Invalid(nil, nil, fmt.Sprintf("decoded a %T", obj))}
	}
	if c := crd.Spec.Conversion; c != nil && c.Strategy == apiextensions.WebhookConverter {
		c.WebhookClientConfig = &apiextensions.WebhookClientConfig{
			Service:  &apiextensions.ServiceReference{Name: "package", Namespace: "crossplane-system", Port: 9443},
			CABundle: []byte("-----BEGIN CERTIFICATE-----"),
		}
	}
	crd.Status = apiextensions.CustomResourceDefinitionStatus{}
	crd.Generation = 1
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			crd.Status.StoredVersions = []string{v.Name}
			break
		}
	}
	return crdvalidation.ValidateCustomResourceDefinition(context.Background(), crd)
}

var (
	crdScheme = func() *runtime.Scheme {
		s := runtime.NewScheme()
		install.Install(s)
		return s
	}()
	crdCodecs = serializer.NewCodecFactory(crdScheme)
)

// ReferenceCEL validates obj as the API server validates a custom resource
// of the given schema on create, CEL rules included: Reference, then,
// unless an error blocks them (the custom resource strategy's
// hasBlockingErr), the CEL rules with the per-call cost limit and the
// per-object budget. It returns the schema errors and the CEL errors.
func ReferenceCEL(schema any, obj map[string]any) (schemaErrs, celErrs field.ErrorList, err error) {
	schemaErrs, _, err = Reference(schema, obj)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range schemaErrs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return schemaErrs, nil, nil
		}
	}
	ss, err := structuralOf(schema)
	if err != nil {
		return nil, nil, err
	}
	v := cel.NewValidator(ss, true, celconfig.PerCallLimit)
	if v == nil {
		return schemaErrs, nil, nil
	}
	celErrs, _ = v.Validate(context.Background(), nil, ss, obj, nil, celconfig.RuntimeCELCostBudget)
	return schemaErrs, celErrs, nil
}

func structuralOf(schema any) (*structuralschema.Structural, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(b, &v1); err != nil {
		return nil, err
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		return nil, err
	}
	return structuralschema.NewStructural(&internal)
}
