package meta

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
	"github.com/xpkgkit/xpkgkit/meta/v1alpha1"
	"github.com/xpkgkit/xpkgkit/meta/v1beta1"
)

// DefaultGroup is the API group of Crossplane's package metadata.
const DefaultGroup = v1.Group

// Pkg is the version-independent view of a meta object. Every meta type of
// every version implements it; older versions return their fields as v1
// values.
type Pkg interface {
	runtime.Object
	metav1.Object

	// GetCrossplaneConstraints returns the Crossplane versions the package
	// works with, or nil when it does not say.
	GetCrossplaneConstraints() *v1.CrossplaneConstraints

	// GetDependencies returns the packages the package depends on.
	GetDependencies() []v1.Dependency

	// GetCapabilities returns the capabilities the package declares.
	GetCapabilities() []string
}

var (
	_ Pkg = (*v1.Provider)(nil)
	_ Pkg = (*v1.Configuration)(nil)
	_ Pkg = (*v1.Function)(nil)
	_ Pkg = (*v1alpha1.Provider)(nil)
	_ Pkg = (*v1alpha1.Configuration)(nil)
	_ Pkg = (*v1beta1.Function)(nil)
)

// Kind is the kind of a package: what its meta object is.
type Kind string

// The kinds of package.
const (
	KindProvider      Kind = "Provider"
	KindConfiguration Kind = "Configuration"
	KindFunction      Kind = "Function"
)

// Kinds returns every kind of package.
func Kinds() []Kind {
	return []Kind{KindProvider, KindConfiguration, KindFunction}
}

// KindOf returns the kind of p, or false when p is nil or not one of this
// module's meta types. The kind comes from p's Go type, not from its
// TypeMeta, which may be empty.
func KindOf(p Pkg) (Kind, bool) {
	switch p.(type) {
	case *v1.Provider, *v1alpha1.Provider:
		return KindProvider, true
	case *v1.Configuration, *v1alpha1.Configuration:
		return KindConfiguration, true
	case *v1.Function, *v1beta1.Function:
		return KindFunction, true
	default:
		return "", false
	}
}
