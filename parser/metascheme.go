package parser

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/xpkgkit/xpkgkit/meta"
)

// newMetaScheme returns the scheme of the meta types under group.
func newMetaScheme(group string) (*runtime.Scheme, error) {
	return meta.NewScheme(meta.WithGroup(group))
}
