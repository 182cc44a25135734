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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
