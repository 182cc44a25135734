package xpkg

import (
	"context"
	"fmt"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

// LintError reports why the linter refused a package: its error-level
// diagnostics, and the rules that could not finish (a package whose lint is
// incomplete is not built either).
type LintError struct {
	// Diagnostics holds the error-level diagnostics, sorted as the linter
	// sorts them.
	Diagnostics []linter.Diagnostic
	// Failures holds the rules that failed to run.
	Failures []*linter.RuleError
}

// Error lists up to five diagnostics and the failed rules.
func (e *LintError) Error() string {
	s := listErrors(ErrLint.Error(), len(e.Diagnostics), func(i int) string { return e.Diagnostics[i].String() })
	if len(e.Failures) > 0 {
		s = listErrors(s+"\nrules that failed:", len(e.Failures), func(i int) string { return e.Failures[i].Error() })
	}
	return s
}

// Is reports whether target is ErrLint.
func (e *LintError) Is(target error) bool { return target == ErrLint }

// WithLintOptions passes options to the linter (rules to disable,
// severities, the Crossplane version, ...).
func WithLintOptions(opts ...linter.Option) BuildOption {
	return buildOptionFunc(func(c *buildConfig) { c.lintOpts = append(c.lintOpts, opts...) })
}

// lintPackage runs the linter over pkg and returns a *LintError when it
// reports error-level findings or a rule fails.
func lintPackage(ctx context.Context, pkg *parser.Package, c *buildConfig) error {
	res, err := linter.Lint(ctx, pkg, c.lintOpts...)
	if err != nil {
		return fmt.Errorf("xpkg: linting: %w", err)
	}
	le := &LintError{Failures: res.Failures}
	for _, d := range res.Diagnostics {
		if d.Severity >= linter.SeverityError {
			le.Diagnostics = append(le.Diagnostics, d)
		}
	}
	if len(le.Diagnostics) > 0 || len(le.Failures) > 0 {
		return le
	}
	return nil
}
