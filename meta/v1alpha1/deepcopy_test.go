package v1alpha1_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/xpkgkit/xpkgkit/meta/internal/deepcopytest"
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
	cases := map[string]runtime.Object{
		"Provider": &v1alpha1.Provider{
			TypeMeta:   metav1.TypeMeta{APIVersion: "meta.pkg.crossplane.io/v1alpha1", Kind: "Provider"},
			ObjectMeta: om,
			Spec: v1alpha1.ProviderSpec{
				Controller: &v1.ControllerSpec{Image: ptr("img"), PermissionRequests: []v1.PolicyRule{{
					Verbs: []string{"get"}, APIGroups: []string{"g"}, Resources: []string{"r"},
					ResourceNames: []string{"n"}, NonResourceURLs: []string{"/u"},
				}}},
				MetaSpec: ms,
			},
		},
		"Configuration": &v1alpha1.Configuration{
			TypeMeta:   metav1.TypeMeta{APIVersion: "meta.pkg.crossplane.io/v1alpha1", Kind: "Configuration"},
			ObjectMeta: om,
			Spec:       v1alpha1.ConfigurationSpec{MetaSpec: ms},
		},
	}
	for name, obj := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			deepcopytest.Filled(t, obj)
			c := obj.DeepCopyObject()
			if diff := cmp.Diff(obj, c); diff != "" {
				t.Fatalf("DeepCopyObject (-original +copy):\n%s", diff)
			}
			deepcopytest.Independent(t, obj, c)
		})
	}
	if (*v1alpha1.Provider)(nil).DeepCopyObject() != nil || (*v1alpha1.Configuration)(nil).DeepCopyObject() != nil {
		t.Error("deep copy of nil is not nil")
	}
}
