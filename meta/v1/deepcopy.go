package v1

import "k8s.io/apimachinery/pkg/runtime"

// The deep copies below are written by hand (the types are few and small);
// deepcopy_test.go checks that a copy shares no memory with its original.

func copyString(in *string) *string {
	if in == nil {
		return nil
	}
	out := *in
	return &out
}

func copyStrings(in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	copy(out, in)
	return out
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *CrossplaneConstraints) DeepCopyInto(out *CrossplaneConstraints) {
	*out = *in
}

// DeepCopy returns a deep copy of the receiver, or nil if it is nil.
func (in *CrossplaneConstraints) DeepCopy() *CrossplaneConstraints {
	if in == nil {
		return nil
	}
	out := new(CrossplaneConstraints)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *Dependency) DeepCopyInto(out *Dependency) {
	*out = *in
	out.APIVersion = copyString(in.APIVersion)
	out.Kind = copyString(in.Kind)
	out.Package = copyString(in.Package)
	out.Provider = copyString(in.Provider)
	out.Configuration = copyString(in.Configuration)
	out.Function = copyString(in.Function)
}

// DeepCopy returns a deep copy of the receiver, or nil if it is nil.
func (in *Dependency) DeepCopy() *Dependency {
	if in == nil {
		return nil
	}
	out := new(Dependency)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *MetaSpec) DeepCopyInto(out *MetaSpec) {
	*out = *in
	out.Crossplane = in.Crossplane.DeepCopy()
	if in.DependsOn != nil {
		out.DependsOn = make([]Dependency, len(in.DependsOn))
		for i := range in.DependsOn {
			in.DependsOn[i].DeepCopyInto(&out.DependsOn[i])
		}
	}
	out.Capabilities = copyStrings(in.Capabilities)
}

// DeepCopy returns a deep copy of the receiver, or nil if it is nil.
func (in *MetaSpec) DeepCopy() *MetaSpec {
	if in == nil {
		return nil
	}
	out := new(MetaSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *PolicyRule) DeepCopyInto(out *PolicyRule) {
	out.Verbs = copyStrings(in.Verbs)
	out.APIGroups = copyStrings(in.APIGroups)
	out.Resources = copyStrings(in.Resources)
	out.ResourceNames = copyStrings(in.ResourceNames)
	out.NonResourceURLs = copyStrings(in.NonResourceURLs)
}

// DeepCopy returns a deep copy of the receiver, or nil if it is nil.
func (in *PolicyRule) DeepCopy() *PolicyRule {
	if in == nil {
		return nil
	}
	out := new(PolicyRule)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *ControllerSpec) DeepCopyInto(out *ControllerSpec) {
	out.Image = copyString(in.Image)
	out.PermissionRequests = nil
	if in.PermissionRequests != nil {
		out.PermissionRequests = make([]PolicyRule, len(in.PermissionRequests))
		for i := range in.PermissionRequests {
			in.PermissionRequests[i].DeepCopyInto(&out.PermissionRequests[i])
		}
	}
}

// DeepCopy returns a deep copy of the receiver, or nil if it is nil.
func (in *ControllerSpec) DeepCopy() *ControllerSpec {
	if in == nil {
		return nil
	}
	out := new(ControllerSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *ProviderSpec) DeepCopyInto(out *ProviderSpec) {
	out.Controller = in.Controller.DeepCopy()
	in.MetaSpec.DeepCopyInto(&out.MetaSpec)
}

// DeepCopy returns a deep copy of the receiver, or nil if it is nil.
func (in *ProviderSpec) DeepCopy() *ProviderSpec {
	if in == nil {
		return nil
	}
	out := new(ProviderSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *ConfigurationSpec) DeepCopyInto(out *ConfigurationSpec) {
	in.MetaSpec.DeepCopyInto(&out.MetaSpec)
}

// DeepCopy returns a deep copy of the receiver, or nil if it is nil.
func (in *ConfigurationSpec) DeepCopy() *ConfigurationSpec {
	if in == nil {
		return nil
	}
	out := new(ConfigurationSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *FunctionSpec) DeepCopyInto(out *FunctionSpec) {
	in.MetaSpec.DeepCopyInto(&out.MetaSpec)
	out.Image = copyString(in.Image)
}

// DeepCopy returns a deep copy of the receiver, or nil if it is nil.
func (in *FunctionSpec) DeepCopy() *FunctionSpec {
	if in == nil {
		return nil
	}
	out := new(FunctionSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *Provider) DeepCopyInto(out *Provider) {
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopy returns a deep copy of the receiver, or nil if it is nil.
func (in *Provider) DeepCopy() *Provider {
	if in == nil {
		return nil
	}
	out := new(Provider)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy of the receiver as a runtime.Object.
func (in *Provider) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *Configuration) DeepCopyInto(out *Configuration) {
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopy returns a deep copy of the receiver, or nil if it is nil.
func (in *Configuration) DeepCopy() *Configuration {
	if in == nil {
		return nil
	}
	out := new(Configuration)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy of the receiver as a runtime.Object.
func (in *Configuration) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *Function) DeepCopyInto(out *Function) {
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopy returns a deep copy of the receiver, or nil if it is nil.
func (in *Function) DeepCopy() *Function {
	if in == nil {
		return nil
	}
	out := new(Function)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy of the receiver as a runtime.Object.
func (in *Function) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}
