package meta_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/xpkgkit/xpkgkit/meta"
	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
	"github.com/xpkgkit/xpkgkit/meta/v1alpha1"
	"github.com/xpkgkit/xpkgkit/meta/v1beta1"
)

func TestToV1(t *testing.T) {
	t.Parallel()
	om := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: "pkg", Annotations: map[string]string{meta.AnnotationLicense: "Apache-2.0"}}
	}
	ms := func() v1.MetaSpec {
		return v1.MetaSpec{
			Crossplane:   &v1.CrossplaneConstraints{Version: ">=v1.14.0"},
			DependsOn:    []v1.Dependency{{Provider: ptr("xpkg.crossplane.io/p"), Version: "v1"}},
			Capabilities: []string{"SafeStart"},
		}
	}
	ctrl := func() *v1.ControllerSpec {
		return &v1.ControllerSpec{Image: ptr("img"), PermissionRequests: []v1.PolicyRule{{Verbs: []string{"get"}}}}
	}
	cases := map[string]struct {
		in   meta.Pkg
		want meta.Pkg
	}{
		"V1Provider": {
			in:   &v1.Provider{TypeMeta: typeMeta("meta.pkg.crossplane.io/v1", "Provider"), ObjectMeta: om(), Spec: v1.ProviderSpec{Controller: ctrl(), MetaSpec: ms()}},
			want: &v1.Provider{TypeMeta: typeMeta("meta.pkg.crossplane.io/v1", "Provider"), ObjectMeta: om(), Spec: v1.ProviderSpec{Controller: ctrl(), MetaSpec: ms()}},
		},
		"V1Alpha1Provider": {
			in:   &v1alpha1.Provider{TypeMeta: typeMeta("meta.pkg.crossplane.io/v1alpha1", "Provider"), ObjectMeta: om(), Spec: v1alpha1.ProviderSpec{Controller: ctrl(), MetaSpec: ms()}},
			want: &v1.Provider{TypeMeta: typeMeta("meta.pkg.crossplane.io/v1", "Provider"), ObjectMeta: om(), Spec: v1.ProviderSpec{Controller: ctrl(), MetaSpec: ms()}},
		},
		"V1Alpha1ProviderForkGroup": {
			in:   &v1alpha1.Provider{TypeMeta: typeMeta(forkGroup+"/v1alpha1", "Provider"), ObjectMeta: om()},
			want: &v1.Provider{TypeMeta: typeMeta(forkGroup+"/v1", "Provider"), ObjectMeta: om()},
		},
		"V1Configuration": {
			in:   &v1.Configuration{ObjectMeta: om(), Spec: v1.ConfigurationSpec{MetaSpec: ms()}},
			want: &v1.Configuration{TypeMeta: typeMeta("meta.pkg.crossplane.io/v1", "Configuration"), ObjectMeta: om(), Spec: v1.ConfigurationSpec{MetaSpec: ms()}},
		},
		"V1Alpha1Configuration": {
			in:   &v1alpha1.Configuration{TypeMeta: typeMeta("meta.pkg.crossplane.io/v1alpha1", "Configuration"), ObjectMeta: om(), Spec: v1alpha1.ConfigurationSpec{MetaSpec: ms()}},
			want: &v1.Configuration{TypeMeta: typeMeta("meta.pkg.crossplane.io/v1", "Configuration"), ObjectMeta: om(), Spec: v1.ConfigurationSpec{MetaSpec: ms()}},
		},
		"V1Function": {
			in:   &v1.Function{TypeMeta: typeMeta("meta.pkg.crossplane.io/v1", "Function"), ObjectMeta: om(), Spec: v1.FunctionSpec{Image: ptr("fn"), MetaSpec: ms()}},
			want: &v1.Function{TypeMeta: typeMeta("meta.pkg.crossplane.io/v1", "Function"), ObjectMeta: om(), Spec: v1.FunctionSpec{Image: ptr("fn"), MetaSpec: ms()}},
		},
		"V1Beta1FunctionMalformedAPIVersion": {
			in:   &v1beta1.Function{TypeMeta: typeMeta("a/b/c", "Function"), ObjectMeta: om(), Spec: v1beta1.FunctionSpec{Image: ptr("fn"), MetaSpec: ms()}},
			want: &v1.Function{TypeMeta: typeMeta("meta.pkg.crossplane.io/v1", "Function"), ObjectMeta: om(), Spec: v1.FunctionSpec{Image: ptr("fn"), MetaSpec: ms()}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			before := tc.in.DeepCopyObject()
			got, err := meta.ToV1(tc.in)
			if err != nil {
				t.Fatalf("ToV1: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("ToV1 (-want +got):\n%s", diff)
			}
			// The result must share no memory with the input.
			got.SetName("changed")
			got.GetAnnotations()[meta.AnnotationLicense] = "changed"
			if c := got.GetCrossplaneConstraints(); c != nil {
				c.Version = "changed"
			}
			if d := got.GetDependencies(); len(d) > 0 {
				//lint:ignore SA1019 the deprecated field is what the deep copy must not share
				*d[0].Provider = "changed"
			}
			if c := got.GetCapabilities(); len(c) > 0 {
				c[0] = "changed"
			}
			if diff := cmp.Diff(before, tc.in); diff != "" {
				t.Errorf("input changed through the result (-before +after):\n%s", diff)
			}
		})
	}
}

func TestToV1Errors(t *testing.T) {
	t.Parallel()
	cases := map[string]meta.Pkg{
		"Nil":                   nil,
		"NilV1Provider":         (*v1.Provider)(nil),
		"NilV1Alpha1Config":     (*v1alpha1.Configuration)(nil),
		"NilV1Beta1Function":    (*v1beta1.Function)(nil),
		"ForeignImplementation": &foreignPkg{},
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := meta.ToV1(in)
			if !errors.Is(err, meta.ErrUnknownType) {
				t.Errorf("ToV1() error = %v, want %v", err, meta.ErrUnknownType)
			}
			if got != nil {
				t.Errorf("ToV1() = %v, want nil", got)
			}
		})
	}
}

// foreignPkg implements meta.Pkg without being one of the module's types.
type foreignPkg struct{ v1.Provider }

func (f *foreignPkg) DeepCopyObject() runtime.Object {
	return &foreignPkg{Provider: *f.Provider.DeepCopy()}
}
