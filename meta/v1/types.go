package v1

import (
	"bytes"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CrossplaneConstraints states which Crossplane versions a package works with.
//
// It decodes from the released form, an object ({version: ">=v1.14.0"}),
// and also from a bare string ("v0.13.0"), the form the package format v2
// design document's examples use. Crossplane itself refuses the bare string,
// so a decoder keeps the package readable and marks it with Shorthand, and
// the linter reports it.
type CrossplaneConstraints struct {
	// Version is a semantic version constraint (for example ">=v1.14.0"),
	// in the syntax of github.com/Masterminds/semver.
	Version string `json:"version"`

	// Shorthand is true when the constraints were decoded from a bare
	// string rather than an object. It is never encoded.
	Shorthand bool `json:"-"`
}

// UnmarshalJSON decodes the constraints from an object or, as the package
// format v2 design's examples write it, a bare version string.
func (c *CrossplaneConstraints) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var v string
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		*c = CrossplaneConstraints{Version: v, Shorthand: true}
		return nil
	}
	type plain CrossplaneConstraints // no methods: no recursion
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*c = CrossplaneConstraints(p)
	c.Shorthand = false
	return nil
}

// Dependency is a package this package needs installed. The current form
// names the dependency by APIVersion, Kind and Package; the older form sets
// exactly one of Provider, Configuration or Function to the package
// reference instead. Version is a semantic version constraint in both.
type Dependency struct {
	// APIVersion of the dependency's package object, for example
	// "pkg.crossplane.io/v1".
	APIVersion *string `json:"apiVersion,omitempty"`

	// Kind of the dependency's package object, for example "Provider".
	Kind *string `json:"kind,omitempty"`

	// Package is the OCI reference of the dependency, without tag or digest.
	// It is used together with APIVersion and Kind.
	Package *string `json:"package,omitempty"`

	// Provider is the OCI reference of a Provider package.
	//
	// Deprecated: set APIVersion, Kind and Package instead.
	Provider *string `json:"provider,omitempty"`

	// Configuration is the OCI reference of a Configuration package.
	//
	// Deprecated: set APIVersion, Kind and Package instead.
	Configuration *string `json:"configuration,omitempty"`

	// Function is the OCI reference of a Function package.
	//
	// Deprecated: set APIVersion, Kind and Package instead.
	Function *string `json:"function,omitempty"`

	// Version is a semantic version constraint the dependency must satisfy.
	Version string `json:"version"`
}

// MetaSpec holds the fields every kind of package shares.
type MetaSpec struct {
	// Crossplane constrains the Crossplane versions the package works with.
	Crossplane *CrossplaneConstraints `json:"crossplane,omitempty"`

	// DependsOn lists the packages this package needs.
	DependsOn []Dependency `json:"dependsOn,omitempty"`

	// Capabilities lists features the package declares. Crossplane acts on
	// some (see meta.KnownCapabilities); others are free for any consumer.
	Capabilities []string `json:"capabilities,omitempty"`
}

// PolicyRule is an RBAC rule a Provider's controller asks for. It has the
// fields and JSON names of rbac/v1 PolicyRule, without depending on
// k8s.io/api.
type PolicyRule struct {
	// Verbs the rule allows, for example "get" or "*".
	Verbs []string `json:"verbs"`

	// APIGroups of the resources the rule applies to; "" is the core group.
	APIGroups []string `json:"apiGroups,omitempty"`

	// Resources the rule applies to, for example "secrets" or "pods/log".
	Resources []string `json:"resources,omitempty"`

	// ResourceNames restricts the rule to objects of these names.
	ResourceNames []string `json:"resourceNames,omitempty"`

	// NonResourceURLs the rule applies to, for example "/healthz".
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

// ControllerSpec configures a Provider's controller. Crossplane 1.x read it;
// Crossplane 2 ignores it, but published packages still carry it.
type ControllerSpec struct {
	// Image is the controller's OCI image.
	Image *string `json:"image,omitempty"`

	// PermissionRequests are RBAC rules the controller needs beyond those on
	// the resources the package installs.
	PermissionRequests []PolicyRule `json:"permissionRequests,omitempty"`
}

// ProviderSpec is the spec of a Provider.
type ProviderSpec struct {
	// Controller configures the provider's controller (Crossplane 1.x).
	Controller *ControllerSpec `json:"controller,omitempty"`

	MetaSpec `json:",inline"`
}

// ConfigurationSpec is the spec of a Configuration.
type ConfigurationSpec struct {
	MetaSpec `json:",inline"`
}

// FunctionSpec is the spec of a Function.
type FunctionSpec struct {
	MetaSpec `json:",inline"`

	// Image is the function's runtime OCI image, when it differs from the
	// package image.
	Image *string `json:"image,omitempty"`
}

// +kubebuilder:object:root=true

// Provider describes a Provider package: one that runs a controller and
// installs the custom resources it manages.
type Provider struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the provider's metadata.
	Spec ProviderSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// Configuration describes a Configuration package: one that installs
// composite resource definitions, compositions and operations.
type Configuration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the configuration's metadata.
	Spec ConfigurationSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// Function describes a Function package: one that runs a composition or
// operation function.
type Function struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the function's metadata.
	Spec FunctionSpec `json:"spec"`
}
