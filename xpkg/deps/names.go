package deps

import (
	"github.com/xpkgkit/xpkgkit/internal/target"
)

// parseConstraint reads a version constraint as Crossplane of release
// line t does; the one place the graph parses constraints (the target
// table, internal/target, says which engine).
func parseConstraint(t target.Release, s string) (target.Constraint, error) {
	return t.ParseConstraint(s)
}
