package meta_test

import (
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/meta"
)

// decode decodes one YAML document the way the parser does: into a map, then
// into the object the scheme holds for the document's group, version and
// kind, with runtime.DefaultUnstructuredConverter.
func decode(s *runtime.Scheme, data []byte) (meta.Pkg, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	gv, err := schema.ParseGroupVersion(stringField(m, "apiVersion"))
	if err != nil {
		return nil, err
	}
	obj, err := s.New(gv.WithKind(stringField(m, "kind")))
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, obj); err != nil {
		return nil, err
	}
	return obj.(meta.Pkg), nil
}

func stringField(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func newScheme(t *testing.T, opts ...meta.SchemeOption) *runtime.Scheme {
	t.Helper()
	s, err := meta.NewScheme(opts...)
	if err != nil {
		t.Fatalf("NewScheme: %v", err)
	}
	return s
}

func readFile(t *testing.T, path ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(path...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ptr(s string) *string { return &s }

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

func objectMeta(name string, annotations map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Annotations: annotations}
}
