package v1

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/meta/internal/register"
)

const (
	// Group is the API group of Crossplane's package metadata.
	Group = "meta.pkg.crossplane.io"

	// Version is the API version of this package's types.
	Version = "v1"
)

// GroupVersion returns group/v1, with Group in place of an empty group.
func GroupVersion(group string) schema.GroupVersion {
	if group == "" {
		group = Group
	}
	return schema.GroupVersion{Group: group, Version: Version}
}

// AddToScheme registers Provider, Configuration and Function in s at group/v1, with
// Group (meta.pkg.crossplane.io) in place of an empty group, so a fork's meta
// group decodes into the same types. It returns an error, and registers
// nothing, when group is not a DNS-1123 subdomain or s already maps one of
// the kinds to another Go type.
func AddToScheme(s *runtime.Scheme, group string) error {
	if group == "" {
		group = Group
	}
	return register.Add(s, group, Version, &Provider{}, &Configuration{}, &Function{})
}
