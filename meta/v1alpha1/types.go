package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
)

// ProviderSpec is the spec of a v1alpha1 Provider: the same fields as v1.
type ProviderSpec = v1.ProviderSpec

// ConfigurationSpec is the spec of a v1alpha1 Configuration: the same fields
// as v1.
type ConfigurationSpec = v1.ConfigurationSpec

// +kubebuilder:object:root=true

// Provider describes a Provider package at v1alpha1.
type Provider struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the provider's metadata.
	Spec ProviderSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// Configuration describes a Configuration package at v1alpha1.
type Configuration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the configuration's metadata.
	Spec ConfigurationSpec `json:"spec"`
}

// GetCrossplaneConstraints returns the provider's Crossplane version
// constraints, or nil when it has none.
func (p *Provider) GetCrossplaneConstraints() *v1.CrossplaneConstraints {
	return p.Spec.Crossplane
}

// GetDependencies returns the provider's dependencies.
func (p *Provider) GetDependencies() []v1.Dependency { return p.Spec.DependsOn }

// GetCapabilities returns the provider's declared capabilities.
func (p *Provider) GetCapabilities() []string { return p.Spec.Capabilities }

// GetCrossplaneConstraints returns the configuration's Crossplane version
// constraints, or nil when it has none.
func (c *Configuration) GetCrossplaneConstraints() *v1.CrossplaneConstraints {
	return c.Spec.Crossplane
}

// GetDependencies returns the configuration's dependencies.
func (c *Configuration) GetDependencies() []v1.Dependency { return c.Spec.DependsOn }

// GetCapabilities returns the configuration's declared capabilities.
func (c *Configuration) GetCapabilities() []string { return c.Spec.Capabilities }
