package v1_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
)

func ptr(s string) *string { return &s }

func objectMeta() metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:        "pkg",
		Labels:      map[string]string{"l": "v"},
		Annotations: map[string]string{"a": "v"},
	}
}

func metaSpec() v1.MetaSpec {
	return v1.MetaSpec{
		Crossplane: &v1.CrossplaneConstraints{Version: ">=v1.0.0", Shorthand: true},
		DependsOn: []v1.Dependency{{
			APIVersion:    ptr("pkg.crossplane.io/v1"),
			Kind:          ptr("Provider"),
			Package:       ptr("xpkg.crossplane.io/p"),
			Provider:      ptr("p"),
			Configuration: ptr("c"),
			Function:      ptr("f"),
			Version:       "v1",
		}},
		Capabilities: []string{"safe-start"},
	}
}

// TestDeepCopy checks, for each type, that a fully set value copies equal
// and that changing the copy through every pointer, slice and map leaves the
// original alone: the generated copies are deep.
func TestDeepCopy(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		obj    runtime.Object
		mutate func(runtime.Object)
	}{
		"Provider": {
			obj: &v1.Provider{
				TypeMeta:   metav1.TypeMeta{APIVersion: "meta.pkg.crossplane.io/v1", Kind: "Provider"},
				ObjectMeta: objectMeta(),
				Spec: v1.ProviderSpec{
					Controller: &v1.ControllerSpec{
						Image: ptr("img"),
						PermissionRequests: []v1.PolicyRule{{
							Verbs:           []string{"get"},
							APIGroups:       []string{"rbac.authorization.k8s.io"},
							Resources:       []string{"secrets"},
							ResourceNames:   []string{"creds"},
							NonResourceURLs: []string{"/healthz"},
						}},
					},
					MetaSpec: metaSpec(),
				},
			},
			mutate: func(o runtime.Object) {
				p := o.(*v1.Provider)
				*p.Spec.Controller.Image = "x"
				p.Spec.Controller.PermissionRequests[0].Verbs[0] = "x"
				p.Spec.Controller.PermissionRequests[0].NonResourceURLs[0] = "x"
				*p.Spec.DependsOn[0].Package = "x"
				p.Spec.Crossplane.Version = "x"
				p.Spec.Capabilities[0] = "x"
				p.Annotations["a"] = "x"
			},
		},
		"Configuration": {
			obj: &v1.Configuration{
				TypeMeta:   metav1.TypeMeta{APIVersion: "meta.pkg.crossplane.io/v1", Kind: "Configuration"},
				ObjectMeta: objectMeta(),
				Spec:       v1.ConfigurationSpec{MetaSpec: metaSpec()},
			},
			mutate: func(o runtime.Object) {
				c := o.(*v1.Configuration)
				*c.Spec.DependsOn[0].Function = "x"
				c.Spec.Capabilities[0] = "x"
				c.Labels["l"] = "x"
			},
		},
		"Function": {
			obj: &v1.Function{
				TypeMeta:   metav1.TypeMeta{APIVersion: "meta.pkg.crossplane.io/v1", Kind: "Function"},
				ObjectMeta: objectMeta(),
				Spec:       v1.FunctionSpec{MetaSpec: metaSpec(), Image: ptr("img")},
			},
			mutate: func(o runtime.Object) {
				f := o.(*v1.Function)
				*f.Spec.Image = "x"
				*f.Spec.DependsOn[0].APIVersion = "x"
				f.Spec.Crossplane.Version = "x"
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := tc.obj.DeepCopyObject()
			if diff := cmp.Diff(tc.obj, c); diff != "" {
				t.Fatalf("DeepCopyObject (-original +copy):\n%s", diff)
			}
			before, err := json.Marshal(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			tc.mutate(c)
			after, err := json.Marshal(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if string(before) != string(after) {
				t.Fatalf("changing the copy changed the original: the copy shares memory\nbefore %s\nafter  %s", before, after)
			}
			if cmp.Equal(tc.obj, c) {
				t.Fatal("mutate changed nothing in the copy")
			}
			if diff := cmp.Diff(tc.obj, tc.obj.DeepCopyObject()); diff != "" {
				t.Errorf("copying again differs (-original +copy):\n%s", diff)
			}
		})
	}
}

// TestDeepCopyNil checks that DeepCopy of a nil pointer is nil and that
// DeepCopyObject of one is a nil interface.
func TestDeepCopyNil(t *testing.T) {
	t.Parallel()
	checks := map[string]bool{
		"Provider":              (*v1.Provider)(nil).DeepCopyObject() == nil,
		"Configuration":         (*v1.Configuration)(nil).DeepCopyObject() == nil,
		"Function":              (*v1.Function)(nil).DeepCopyObject() == nil,
		"ProviderSpec":          (*v1.ProviderSpec)(nil).DeepCopy() == nil,
		"ConfigurationSpec":     (*v1.ConfigurationSpec)(nil).DeepCopy() == nil,
		"FunctionSpec":          (*v1.FunctionSpec)(nil).DeepCopy() == nil,
		"ControllerSpec":        (*v1.ControllerSpec)(nil).DeepCopy() == nil,
		"PolicyRule":            (*v1.PolicyRule)(nil).DeepCopy() == nil,
		"MetaSpec":              (*v1.MetaSpec)(nil).DeepCopy() == nil,
		"Dependency":            (*v1.Dependency)(nil).DeepCopy() == nil,
		"CrossplaneConstraints": (*v1.CrossplaneConstraints)(nil).DeepCopy() == nil,
	}
	for name, ok := range checks {
		if !ok {
			t.Errorf("%s: deep copy of nil is not nil", name)
		}
	}
}
