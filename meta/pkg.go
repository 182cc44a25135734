// Package meta is a placeholder until the meta implementation lands.
package meta

import "k8s.io/apimachinery/pkg/runtime"

// Pkg is a placeholder.
type Pkg interface{ runtime.Object }
