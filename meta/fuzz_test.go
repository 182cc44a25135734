package meta_test

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/meta"
)

// FuzzDecode feeds arbitrary YAML to every meta kind and checks that
// decoding, the Pkg accessors, KindOf, ToV1 and CapabilitiesContain never panic,
// and that ToV1 of a decoded object always succeeds.
func FuzzDecode(f *testing.F) {
	for _, dir := range []string{"roundtrip", "seeds"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.yaml"))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	s, err := meta.NewScheme()
	if err != nil {
		f.Fatal(err)
	}
	gvks := meta.GroupVersionKinds("")
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil || m == nil {
			return
		}
		for _, gvk := range gvks {
			obj, err := s.New(gvk)
			if err != nil {
				t.Fatal(err)
			}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, obj); err != nil {
				continue
			}
			p := obj.(meta.Pkg)
			kind, ok := meta.KindOf(p)
			if !ok || string(kind) != gvk.Kind {
				t.Fatalf("KindOf(%T) = %q, %v", p, kind, ok)
			}
			_ = p.GetCrossplaneConstraints()
			_ = p.GetDependencies()
			for _, c := range p.GetCapabilities() {
				_ = meta.CapabilitiesContain(meta.KnownCapabilities(kind), c)
			}
			if _, err := meta.ToV1(p); err != nil {
				t.Fatalf("ToV1: %v", err)
			}
		}
	})
}
