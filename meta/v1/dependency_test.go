package v1_test

import (
	"testing"

	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
)

func TestDependencyTarget(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	cases := map[string]struct {
		dep  *v1.Dependency
		kind string
		ref  string
		ok   bool
	}{
		"current form": {
			dep:  &v1.Dependency{APIVersion: s("pkg.crossplane.io/v1"), Kind: s("Function"), Package: s("xpkg.example.org/acme/function-a")},
			kind: "Function", ref: "xpkg.example.org/acme/function-a", ok: true,
		},
		"provider key": {
			dep:  &v1.Dependency{Provider: s("xpkg.example.org/acme/provider-a")},
			kind: "Provider", ref: "xpkg.example.org/acme/provider-a", ok: true,
		},
		"configuration key": {
			dep:  &v1.Dependency{Configuration: s("xpkg.example.org/acme/configuration-a")},
			kind: "Configuration", ref: "xpkg.example.org/acme/configuration-a", ok: true,
		},
		"function key": {
			dep:  &v1.Dependency{Function: s("xpkg.example.org/acme/function-a")},
			kind: "Function", ref: "xpkg.example.org/acme/function-a", ok: true,
		},
		"current form wins over a deprecated key": {
			dep:  &v1.Dependency{APIVersion: s("pkg.crossplane.io/v1"), Kind: s("Provider"), Package: s("xpkg.example.org/acme/p"), Function: s("xpkg.example.org/acme/f")},
			kind: "Provider", ref: "xpkg.example.org/acme/p", ok: true,
		},
		"configuration before provider, as Crossplane": {
			dep:  &v1.Dependency{Provider: s("xpkg.example.org/acme/p"), Configuration: s("xpkg.example.org/acme/c")},
			kind: "Configuration", ref: "xpkg.example.org/acme/c", ok: true,
		},
		"package without kind falls back to a deprecated key": {
			dep:  &v1.Dependency{Package: s("xpkg.example.org/acme/p"), Provider: s("xpkg.example.org/acme/q")},
			kind: "Provider", ref: "xpkg.example.org/acme/q", ok: true,
		},
		"package without kind": {dep: &v1.Dependency{Package: s("xpkg.example.org/acme/p")}},
		"nothing":              {dep: &v1.Dependency{Version: ">=v1.0.0"}},
		"nil":                  {},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			kind, ref, ok := tc.dep.Target()
			if kind != tc.kind || ref != tc.ref || ok != tc.ok {
				t.Errorf("Target() = %q, %q, %v; want %q, %q, %v", kind, ref, ok, tc.kind, tc.ref, tc.ok)
			}
		})
	}
}
