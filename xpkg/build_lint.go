package xpkg

import (
	"context"

	"github.com/xpkgkit/xpkgkit/parser"
)

// WithCheck makes Build run check over the parsed package before it writes
// anything: an error refuses the build, and Build returns it as check
// gave it. Build runs no check by default: the linter's lint gate is
// linter/rules.BuildCheck.
func WithCheck(check func(ctx context.Context, pkg *parser.Package) error) BuildOption {
	return buildOptionFunc(func(c *buildConfig) { c.check = check })
}
