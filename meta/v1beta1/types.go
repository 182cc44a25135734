package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
)

// FunctionSpec is the spec of a v1beta1 Function: the same fields as v1.
type FunctionSpec = v1.FunctionSpec

// +kubebuilder:object:root=true

// Function describes a Function package at v1beta1.
type Function struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the function's metadata.
	Spec FunctionSpec `json:"spec"`
}

// GetCrossplaneConstraints returns the function's Crossplane version
// constraints, or nil when it has none.
func (f *Function) GetCrossplaneConstraints() *v1.CrossplaneConstraints {
	return f.Spec.Crossplane
}

// GetDependencies returns the function's dependencies.
func (f *Function) GetDependencies() []v1.Dependency { return f.Spec.DependsOn }

// GetCapabilities returns the function's declared capabilities.
func (f *Function) GetCapabilities() []string { return f.Spec.Capabilities }
