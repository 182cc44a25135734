package register

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

// ErrInvalidGroup is returned for a group that is not a DNS-1123 subdomain.
var ErrInvalidGroup = errors.New("invalid meta API group")

// ErrConflict is returned when the scheme already maps a kind to another type.
var ErrConflict = errors.New("kind already registered with a different type")

// ValidateGroup reports whether group can name the meta API group.
func ValidateGroup(group string) error {
	if msgs := validation.IsDNS1123Subdomain(group); len(msgs) > 0 {
		return fmt.Errorf("%w %q: %s", ErrInvalidGroup, group, strings.Join(msgs, "; "))
	}
	return nil
}

// Add registers objs in s at group/version, each under its Go type name.
func Add(s *runtime.Scheme, group, version string, objs ...runtime.Object) error {
	if s == nil {
		return errors.New("nil scheme")
	}
	if err := ValidateGroup(group); err != nil {
		return err
	}
	gv := schema.GroupVersion{Group: group, Version: version}
	for _, o := range objs {
		t := reflect.TypeOf(o).Elem()
		gvk := gv.WithKind(t.Name())
		if !s.Recognizes(gvk) {
			continue
		}
		existing, err := s.New(gvk)
		if err != nil {
			return fmt.Errorf("%s: %w", gvk, err)
		}
		if reflect.TypeOf(existing).Elem() != t {
			return fmt.Errorf("%w: %s is %T, not %T", ErrConflict, gvk, existing, o)
		}
	}
	s.AddKnownTypes(gv, objs...)
	return nil
}
