package meta

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/meta/internal/register"
	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
	"github.com/xpkgkit/xpkgkit/meta/v1alpha1"
	"github.com/xpkgkit/xpkgkit/meta/v1beta1"
)

// ErrInvalidGroup is returned (wrapped) for an API group that is not a
// DNS-1123 subdomain.
var ErrInvalidGroup = register.ErrInvalidGroup

// ErrKindConflict is returned (wrapped) by the version packages'
// AddToScheme when the scheme already maps one of their kinds to
// another Go type.
var ErrKindConflict = register.ErrConflict

// schemeConfig holds what SchemeOptions set.
type schemeConfig struct {
	group string
}

// SchemeOption configures NewScheme.
type SchemeOption func(*schemeConfig)

// WithGroup registers the meta types under group instead of DefaultGroup,
// for a fork of Crossplane with its own meta group (for example
// "meta.pkg.ibm.crossplane.io"). The last WithGroup wins.
func WithGroup(group string) SchemeOption {
	return func(c *schemeConfig) { c.group = group }
}

// NewScheme returns a new scheme holding every meta kind at every version
// Crossplane accepts (Kinds, each at the versions Crossplane serves). It returns an error wrapping
// ErrInvalidGroup when WithGroup names an invalid group.
func NewScheme(opts ...SchemeOption) (*runtime.Scheme, error) {
	c := schemeConfig{group: DefaultGroup}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if err := register.ValidateGroup(c.group); err != nil {
		// The version packages' AddToScheme read "" as DefaultGroup;
		// WithGroup("") is refused.
		return nil, fmt.Errorf("meta scheme: %w", err)
	}
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme, string) error{
		v1.AddToScheme,
		v1alpha1.AddToScheme,
		v1beta1.AddToScheme,
	} {
		if err := add(s, c.group); err != nil {
			return nil, fmt.Errorf("meta scheme: %w", err)
		}
	}
	return s, nil
}

// groupVersionKinds returns every meta kind and version Crossplane accepts,
// under group (DefaultGroup when empty): Provider and Configuration at v1
// and v1alpha1, Function at v1 and v1beta1. The newest version of each kind
// comes first.
func groupVersionKinds(group string) []schema.GroupVersionKind {
	v1gv := v1.GroupVersion(group)
	alpha := v1alpha1.GroupVersion(group)
	beta := v1beta1.GroupVersion(group)
	return []schema.GroupVersionKind{
		v1gv.WithKind(string(KindProvider)),
		alpha.WithKind(string(KindProvider)),
		v1gv.WithKind(string(KindConfiguration)),
		alpha.WithKind(string(KindConfiguration)),
		v1gv.WithKind(string(KindFunction)),
		beta.WithKind(string(KindFunction)),
	}
}
