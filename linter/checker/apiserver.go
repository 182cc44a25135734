package checker

import (
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/schema/apiserver"
)

// The command validates as the API server does (linter/schema/apiserver):
// its rules (XP420-XP423) join the built-in ones, and the CEL rules of the
// package's CRDs are evaluated on examples and composed resources.

// apiserverRules returns the rules of linter/schema/apiserver.
func apiserverRules() []*linter.Rule { return apiserver.Rules() }

// apiserverOptions returns the linter options of linter/schema/apiserver,
// new for each package (the CEL cost budget is per package).
func apiserverOptions() []linter.Option { return apiserver.LintOptions() }
