package meta_test

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/meta"
	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
	"github.com/xpkgkit/xpkgkit/meta/v1alpha1"
	"github.com/xpkgkit/xpkgkit/meta/v1beta1"
)

func TestNewScheme(t *testing.T) {
	t.Parallel()
	gvk := func(group, version, kind string) schema.GroupVersionKind {
		return schema.GroupVersionKind{Group: group, Version: version, Kind: kind}
	}
	cases := map[string]struct {
		opts         []meta.SchemeOption
		recognizes   []schema.GroupVersionKind
		unrecognized []schema.GroupVersionKind
	}{
		"Default": {
			recognizes: meta.GroupVersionKinds(""),
			unrecognized: []schema.GroupVersionKind{
				gvk(meta.DefaultGroup, "v1alpha1", "Function"),
				gvk(meta.DefaultGroup, "v1beta1", "Provider"),
				gvk(meta.DefaultGroup, "v2", "Provider"),
				gvk(forkGroup, "v1", "Provider"),
				gvk("pkg.crossplane.io", "v1", "Provider"),
			},
		},
		"Fork": {
			opts:         []meta.SchemeOption{meta.WithGroup(forkGroup)},
			recognizes:   meta.GroupVersionKinds(forkGroup),
			unrecognized: []schema.GroupVersionKind{gvk(meta.DefaultGroup, "v1", "Provider")},
		},
		"LastGroupWins": {
			opts:         []meta.SchemeOption{meta.WithGroup(forkGroup), nil, meta.WithGroup(meta.DefaultGroup)},
			recognizes:   meta.GroupVersionKinds(meta.DefaultGroup),
			unrecognized: []schema.GroupVersionKind{gvk(forkGroup, "v1", "Provider")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newScheme(t, tc.opts...)
			for _, k := range tc.recognizes {
				obj, err := s.New(k)
				if err != nil {
					t.Errorf("New(%v): %v", k, err)
					continue
				}
				if _, ok := obj.(meta.Pkg); !ok {
					t.Errorf("New(%v) = %T, not a meta.Pkg", k, obj)
				}
			}
			for _, k := range tc.unrecognized {
				if s.Recognizes(k) {
					t.Errorf("Recognizes(%v) = true, want false", k)
				}
			}
		})
	}
}

func TestNewSchemeInvalidGroup(t *testing.T) {
	t.Parallel()
	for name, group := range map[string]string{
		"Empty":     "",
		"Upper":     "Meta.Pkg.Crossplane.io",
		"Slash":     "meta.pkg/crossplane.io",
		"Underline": "meta_pkg.crossplane.io",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := meta.NewScheme(meta.WithGroup(group))
			if !errors.Is(err, meta.ErrInvalidGroup) {
				t.Errorf("NewScheme(WithGroup(%q)) error = %v, want %v", group, err, meta.ErrInvalidGroup)
			}
			if s != nil {
				t.Error("NewScheme returned a scheme with its error")
			}
		})
	}
}

func TestAddToScheme(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		setup   func(s *runtime.Scheme)
		add     func(s *runtime.Scheme) error
		wantErr error
	}{
		"Twice": {
			setup: func(s *runtime.Scheme) { _ = v1.AddToScheme(s, "") },
			add:   func(s *runtime.Scheme) error { return v1.AddToScheme(s, "") },
		},
		"SameTypesTwoGroups": {
			setup: func(s *runtime.Scheme) { _ = v1alpha1.AddToScheme(s, "") },
			add:   func(s *runtime.Scheme) error { return v1alpha1.AddToScheme(s, forkGroup) },
		},
		"Conflict": {
			setup: func(s *runtime.Scheme) {
				s.AddKnownTypeWithName(v1beta1.GroupVersion("").WithKind("Function"), &v1.Function{})
			},
			add:     func(s *runtime.Scheme) error { return v1beta1.AddToScheme(s, "") },
			wantErr: meta.ErrKindConflict,
		},
		"InvalidGroup": {
			add:     func(s *runtime.Scheme) error { return v1.AddToScheme(s, "-bad-") },
			wantErr: meta.ErrInvalidGroup,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := runtime.NewScheme()
			if tc.setup != nil {
				tc.setup(s)
			}
			err := tc.add(s)
			if tc.wantErr == nil && err != nil {
				t.Fatalf("add: %v", err)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("add error = %v, want %v", err, tc.wantErr)
			}
		})
	}
	t.Run("NilScheme", func(t *testing.T) {
		t.Parallel()
		if err := v1.AddToScheme(nil, ""); err == nil {
			t.Error("AddToScheme(nil): want an error")
		}
	})
}
