package v1beta1_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
	"github.com/xpkgkit/xpkgkit/meta/v1beta1"
)

func ptr(s string) *string { return &s }

func TestDeepCopy(t *testing.T) {
	t.Parallel()
	fn := &v1beta1.Function{
		TypeMeta:   metav1.TypeMeta{APIVersion: "meta.pkg.crossplane.io/v1beta1", Kind: "Function"},
		ObjectMeta: metav1.ObjectMeta{Name: "fn", Labels: map[string]string{"l": "v"}},
		Spec: v1beta1.FunctionSpec{
			Image: ptr("img"),
			MetaSpec: v1.MetaSpec{
				Crossplane: &v1.CrossplaneConstraints{Version: ">=v1.14.0", Shorthand: true},
				DependsOn: []v1.Dependency{{
					APIVersion: ptr("pkg.crossplane.io/v1"), Kind: ptr("Function"), Package: ptr("p"),
					Provider: ptr("p"), Configuration: ptr("c"), Function: ptr("f"), Version: "v1",
				}},
				Capabilities: []string{"composition"},
			},
		},
	}
	c := fn.DeepCopyObject()
	if diff := cmp.Diff(fn, c); diff != "" {
		t.Fatalf("DeepCopyObject (-original +copy):\n%s", diff)
	}
	f := c.(*v1beta1.Function)
	*f.Spec.Image = "x"
	*f.Spec.DependsOn[0].Kind = "x"
	f.Spec.Capabilities[0] = "x"
	f.Labels["l"] = "x"
	if diff := cmp.Diff(fn, c); diff == "" {
		t.Fatal("changing the copy changed the original too: the copy shares memory")
	}
	for name, got := range map[string]string{
		"Image": *fn.Spec.Image, "Kind": *fn.Spec.DependsOn[0].Kind,
		"Capabilities[0]": fn.Spec.Capabilities[0], "Labels[l]": fn.Labels["l"],
	} {
		if got == "x" {
			t.Errorf("changing the copy's %s changed the original's", name)
		}
	}
	if (*v1beta1.Function)(nil).DeepCopyObject() != nil {
		t.Error("deep copy of nil is not nil")
	}
}
