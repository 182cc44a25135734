package meta

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
	"github.com/xpkgkit/xpkgkit/meta/v1alpha1"
	"github.com/xpkgkit/xpkgkit/meta/v1beta1"
)

// ErrUnknownType is returned (wrapped) by ToV1 for a nil Pkg (or nil
// pointer) or a Pkg that is not one of this module's meta types.
var ErrUnknownType = errors.New("not a known meta type")

// ToV1 returns p converted to v1: a *v1.Provider, *v1.Configuration or
// *v1.Function that shares no memory with p. A v1 input is returned as a
// deep copy. The result's apiVersion keeps p's group (DefaultGroup when p's
// apiVersion is empty or malformed) at version v1.
func ToV1(p Pkg) (Pkg, error) {
	switch in := p.(type) {
	case *v1.Provider:
		if in == nil {
			break
		}
		out := in.DeepCopy()
		out.TypeMeta = v1TypeMeta(in.APIVersion, KindProvider)
		return out, nil
	case *v1.Configuration:
		if in == nil {
			break
		}
		out := in.DeepCopy()
		out.TypeMeta = v1TypeMeta(in.APIVersion, KindConfiguration)
		return out, nil
	case *v1.Function:
		if in == nil {
			break
		}
		out := in.DeepCopy()
		out.TypeMeta = v1TypeMeta(in.APIVersion, KindFunction)
		return out, nil
	case *v1alpha1.Provider:
		if in == nil {
			break
		}
		out := &v1.Provider{TypeMeta: v1TypeMeta(in.APIVersion, KindProvider)}
		in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
		in.Spec.DeepCopyInto(&out.Spec)
		return out, nil
	case *v1alpha1.Configuration:
		if in == nil {
			break
		}
		out := &v1.Configuration{TypeMeta: v1TypeMeta(in.APIVersion, KindConfiguration)}
		in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
		in.Spec.DeepCopyInto(&out.Spec)
		return out, nil
	case *v1beta1.Function:
		if in == nil {
			break
		}
		out := &v1.Function{TypeMeta: v1TypeMeta(in.APIVersion, KindFunction)}
		in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
		in.Spec.DeepCopyInto(&out.Spec)
		return out, nil
	}
	return nil, fmt.Errorf("meta: convert %T to v1: %w", p, ErrUnknownType)
}

// v1TypeMeta returns the v1 TypeMeta of kind k in the group of apiVersion.
func v1TypeMeta(apiVersion string, k Kind) metav1.TypeMeta {
	group := DefaultGroup
	if gv, err := schema.ParseGroupVersion(apiVersion); err == nil && gv.Group != "" {
		group = gv.Group
	}
	return metav1.TypeMeta{APIVersion: v1.GroupVersion(group).String(), Kind: string(k)}
}
