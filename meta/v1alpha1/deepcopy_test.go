package v1alpha1_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
	"github.com/xpkgkit/xpkgkit/meta/v1alpha1"
)

func ptr(s string) *string { return &s }

func TestDeepCopy(t *testing.T) {
	t.Parallel()
	om := metav1.ObjectMeta{Name: "pkg", Annotations: map[string]string{"a": "v"}}
	ms := v1.MetaSpec{
		Crossplane: &v1.CrossplaneConstraints{Version: ">=v1.0.0", Shorthand: true},
		DependsOn: []v1.Dependency{{
			APIVersion: ptr("pkg.crossplane.io/v1"), Kind: ptr("Provider"), Package: ptr("p"),
			Provider: ptr("p"), Configuration: ptr("c"), Function: ptr("f"), Version: "v1",
		}},
		Capabilities: []string{"x"},
	}
	cases := map[string]struct {
		obj    runtime.Object
		mutate func(runtime.Object)
	}{
		"Provider": {obj: &v1alpha1.Provider{
			TypeMeta:   metav1.TypeMeta{APIVersion: "meta.pkg.crossplane.io/v1alpha1", Kind: "Provider"},
			ObjectMeta: om,
			Spec: v1alpha1.ProviderSpec{
				Controller: &v1.ControllerSpec{Image: ptr("img"), PermissionRequests: []v1.PolicyRule{{
					Verbs: []string{"get"}, APIGroups: []string{"g"}, Resources: []string{"r"},
					ResourceNames: []string{"n"}, NonResourceURLs: []string{"/u"},
				}}},
				MetaSpec: ms,
			},
		}, mutate: func(o runtime.Object) {
			p := o.(*v1alpha1.Provider)
			p.Spec.Controller.PermissionRequests[0].Verbs[0] = "x"
			*p.Spec.Controller.Image = "x"
			*p.Spec.DependsOn[0].Package = "x"
			p.Annotations["a"] = "x"
		}},
		"Configuration": {obj: &v1alpha1.Configuration{
			TypeMeta:   metav1.TypeMeta{APIVersion: "meta.pkg.crossplane.io/v1alpha1", Kind: "Configuration"},
			ObjectMeta: om,
			Spec:       v1alpha1.ConfigurationSpec{MetaSpec: ms},
		}, mutate: func(o runtime.Object) {
			c := o.(*v1alpha1.Configuration)
			c.Spec.Crossplane.Version = "x"
			c.Spec.Capabilities[0] = "y"
			*c.Spec.DependsOn[0].Kind = "x"
		}},
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
		})
	}
	if (*v1alpha1.Provider)(nil).DeepCopyObject() != nil || (*v1alpha1.Configuration)(nil).DeepCopyObject() != nil {
		t.Error("deep copy of nil is not nil")
	}
}
