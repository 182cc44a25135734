package meta_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/meta"
)

const forkGroup = "meta.pkg.ibm.crossplane.io"

// TestRoundTrip decodes every kind at every version, under the default group
// and a fork's, both with sigs.k8s.io/yaml and through the unstructured
// converter, and checks that encoding the typed object gives the input back.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		file string
		gvk  schema.GroupVersionKind
		kind meta.Kind
	}{
		"V1Provider":            {"v1-provider.yaml", schema.GroupVersionKind{Version: "v1", Kind: "Provider"}, meta.KindProvider},
		"V1Alpha1Provider":      {"v1alpha1-provider.yaml", schema.GroupVersionKind{Version: "v1alpha1", Kind: "Provider"}, meta.KindProvider},
		"V1Configuration":       {"v1-configuration.yaml", schema.GroupVersionKind{Version: "v1", Kind: "Configuration"}, meta.KindConfiguration},
		"V1Alpha1Configuration": {"v1alpha1-configuration.yaml", schema.GroupVersionKind{Version: "v1alpha1", Kind: "Configuration"}, meta.KindConfiguration},
		"V1Function":            {"v1-function.yaml", schema.GroupVersionKind{Version: "v1", Kind: "Function"}, meta.KindFunction},
		"V1Beta1Function":       {"v1beta1-function.yaml", schema.GroupVersionKind{Version: "v1beta1", Kind: "Function"}, meta.KindFunction},
	}
	for name, tc := range cases {
		for _, group := range []string{meta.DefaultGroup, forkGroup} {
			t.Run(name+"/"+group, func(t *testing.T) {
				t.Parallel()
				s := newScheme(t, meta.WithGroup(group))
				data := readFile(t, "testdata", "roundtrip", tc.file)
				data = bytes.Replace(data, []byte(meta.DefaultGroup+"/"), []byte(group+"/"), 1)
				gvk := tc.gvk
				gvk.Group = group

				var want map[string]any
				if err := yaml.Unmarshal(data, &want); err != nil {
					t.Fatal(err)
				}

				t.Run("YAML", func(t *testing.T) {
					obj, err := s.New(gvk)
					if err != nil {
						t.Fatal(err)
					}
					if err := yaml.UnmarshalStrict(data, obj); err != nil {
						t.Fatalf("UnmarshalStrict: %v", err)
					}
					checkDecoded(t, obj, gvk, tc.kind)
					out, err := yaml.Marshal(obj)
					if err != nil {
						t.Fatal(err)
					}
					var got map[string]any
					if err := yaml.Unmarshal(out, &got); err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("YAML round trip (-want +got):\n%s", diff)
					}
				})

				t.Run("Unstructured", func(t *testing.T) {
					obj, err := s.New(gvk)
					if err != nil {
						t.Fatal(err)
					}
					if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(want, obj, true); err != nil {
						t.Fatalf("FromUnstructured (strict): %v", err)
					}
					checkDecoded(t, obj, gvk, tc.kind)
					got, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("unstructured round trip (-want +got):\n%s", diff)
					}
				})
			})
		}
	}
}

// checkDecoded checks what the parser relies on after decoding: the object
// is a meta.Pkg of the right kind, and its TypeMeta is filled in.
func checkDecoded(t *testing.T, obj runtime.Object, gvk schema.GroupVersionKind, kind meta.Kind) {
	t.Helper()
	if got := obj.GetObjectKind().GroupVersionKind(); got != gvk {
		t.Errorf("GroupVersionKind() = %v, want %v", got, gvk)
	}
	p, ok := obj.(meta.Pkg)
	if !ok {
		t.Fatalf("%T is not a meta.Pkg", obj)
	}
	if k, ok := meta.KindOf(p); !ok || k != kind {
		t.Errorf("KindOf() = %q, %v, want %q, true", k, ok, kind)
	}
	if p.GetName() == "" {
		t.Error("GetName() is empty")
	}
}
