package meta_test

import (
	"testing"

	"github.com/xpkgkit/xpkgkit/meta"
	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
	"github.com/xpkgkit/xpkgkit/meta/v1alpha1"
	"github.com/xpkgkit/xpkgkit/meta/v1beta1"
)

func TestKindOf(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in     meta.Pkg
		want   meta.Kind
		wantOK bool
	}{
		"V1Provider":            {&v1.Provider{}, meta.KindProvider, true},
		"V1Alpha1Provider":      {&v1alpha1.Provider{}, meta.KindProvider, true},
		"V1Configuration":       {&v1.Configuration{}, meta.KindConfiguration, true},
		"V1Alpha1Configuration": {&v1alpha1.Configuration{}, meta.KindConfiguration, true},
		"V1Function":            {&v1.Function{}, meta.KindFunction, true},
		"V1Beta1Function":       {&v1beta1.Function{}, meta.KindFunction, true},
		// The Go type decides, not a TypeMeta that may lie or be empty.
		"TypeMetaIgnored": {&v1.Function{TypeMeta: typeMeta("meta.pkg.crossplane.io/v1", "Provider")}, meta.KindFunction, true},
		"Nil":             {nil, "", false},
		"Foreign":         {&foreignPkg{}, "", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, ok := meta.KindOf(tc.in)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("KindOf() = %q, %v, want %q, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestKinds(t *testing.T) {
	t.Parallel()
	got := meta.Kinds()
	want := []meta.Kind{meta.KindProvider, meta.KindConfiguration, meta.KindFunction}
	if len(got) != len(want) {
		t.Fatalf("Kinds() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Kinds()[%d] = %q, want %q", i, got[i], want[i])
		}
	}
	got[0] = "mutated"
	if meta.Kinds()[0] != meta.KindProvider {
		t.Error("Kinds() returns shared memory")
	}
}
