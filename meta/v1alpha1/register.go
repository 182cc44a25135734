package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/meta/internal/register"
	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
)

// Version is the API version of this package's types; their group is
// v1.Group's.
const Version = "v1alpha1"

// GroupVersion returns group/v1alpha1, with v1.Group in place of an empty group.
func GroupVersion(group string) schema.GroupVersion {
	if group == "" {
		group = v1.Group
	}
	return schema.GroupVersion{Group: group, Version: Version}
}

// AddToScheme registers Provider and Configuration in s at group/v1alpha1, with
// v1.Group (meta.pkg.crossplane.io) in place of an empty group, so a fork's meta
// group decodes into the same types. It returns an error, and registers
// nothing, when group is not a DNS-1123 subdomain or s already maps one of
// the kinds to another Go type.
func AddToScheme(s *runtime.Scheme, group string) error {
	if group == "" {
		group = v1.Group
	}
	return register.Add(s, group, Version, &Provider{}, &Configuration{})
}
