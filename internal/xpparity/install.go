package xpparity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsyaml "sigs.k8s.io/yaml"

	xpyaml "github.com/crossplane/crossplane-runtime/v2/pkg/xpkg/parser/yaml"
)

// crossplaneGroups are the API groups of Crossplane's own kinds that a
// package may hold and the package manager creates.
var crossplaneGroups = map[string]bool{"apiextensions.crossplane.io": true, "ops.crossplane.io": true}

// Refusal is the API server's refusal of one object the package manager
// creates.
type Refusal struct {
	GVK  schema.GroupVersionKind
	Name string
	Err  string
}

// InstallObjects does what Crossplane's package manager does with the
// objects of Crossplane's own kinds of a package.yaml stream at Target,
// with Crossplane's and the API server's own code: crossplane-runtime's
// parser decodes each into its Go type (crossplane apis/v2 at Target, the
// object scheme), the establisher creates that struct (crossplane
// internal/controller/pkg/revision/establisher.go APIEstablisher.create:
// the client encodes it with encoding/json), and the API server decodes it
// against Crossplane's CRD of the kind (crdsDir holds Target's
// cluster/crds), prunes and defaults it, and validates it on create
// (apiextensions-apiserver pkg/registry/customresource, the strategy's
// Validate: schema, metadata, embedded objects, list types, CEL). It
// returns the refusals; an error means the stream does not parse (the
// build path's to judge) or a CRD is missing.
func InstallObjects(ctx context.Context, stream []byte, crdsDir string) ([]Refusal, error) {
	pp, err := xpyaml.New()
	if err != nil {
		return nil, err
	}
	pkg, err := pp.Parse(ctx, io.NopCloser(bytes.NewReader(stream)))
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var out []Refusal
	for _, o := range pkg.GetObjects() {
		gvk := o.GetObjectKind().GroupVersionKind()
		if !crossplaneGroups[gvk.Group] {
			continue
		}
		// What the client sends.
		data, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		var obj map[string]any
		if err := utiljson.Unmarshal(data, &obj); err != nil {
			return nil, err
		}
		st, err := strategyFor(crdsDir, gvk)
		if err != nil {
			return nil, err
		}
		pruning.PruneWithOptions(obj, st.s, true, structuralschema.UnknownFieldPathOptions{})
		defaulting.PruneNonNullableNullsWithoutDefaults(obj, st.s)
		defaulting.Default(obj, st.s)
		u := &unstructured.Unstructured{Object: obj}
		if errs := st.strategy.Validate(ctx, u); len(errs) > 0 {
			out = append(out, Refusal{GVK: gvk, Name: u.GetName(), Err: errs.ToAggregate().Error()})
		}
	}
	return out, nil
}

// kindStrategy is the API server's create strategy for one of
// Crossplane's kinds, and its structural schema.
type kindStrategy struct {
	s        *structuralschema.Structural
	strategy interface {
		Validate(context.Context, runtime.Object) field.ErrorList
	}
}

// strategyFor builds the API server's strategy for gvk from the CRD of
// crdsDir that serves it, as the API server's CRD handler does
// (apiextensions-apiserver pkg/apiserver/customresource_handler.go
// getOrCreateServingInfoFor).
func strategyFor(crdsDir string, gvk schema.GroupVersionKind) (*kindStrategy, error) {
	files, err := filepath.Glob(filepath.Join(crdsDir, gvk.Group+"_*.yaml"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := sigsyaml.Unmarshal(data, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if crd.Spec.Names.Kind != gvk.Kind {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name != gvk.Version || v.Schema == nil {
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
			st := customresource.NewStrategy(nil, crd.Spec.Scope == apiextensionsv1.NamespaceScoped, gvk, sv, nil, s, nil, nil, nil)
			return &kindStrategy{s: s, strategy: st}, nil
		}
	}
	return nil, fmt.Errorf("no CRD in %s serves %s", crdsDir, gvk)
}
