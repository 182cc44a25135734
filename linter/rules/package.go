package rules

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// LintPackage lints a package opened with xpkg (xpkg.Open and its kin)
// with the built-in rules (Builtin) plus opts, giving the image facts
// (WithImageFacts) when the package was read from an image, so that the
// image rules (XP5xx) run, and its examples (WithExamples). Options given
// in opts come after those; a WithImageFacts among them replaces the
// facts, and linter.WithRuleSet the built-in rules. The meta group is the
// one the package was opened with (parser.WithMetaGroup in
// xpkg.WithParserOptions). Each diagnostic's Source is the package's
// Source. Errors are those of linter.Lint.
func LintPackage(ctx context.Context, p *xpkg.Package, opts ...linter.Option) (*linter.Result, error) {
	if p == nil || p.Package == nil {
		return nil, errors.New("rules: LintPackage: nil package")
	}
	first := []linter.Option{linter.WithRuleSet(Builtin()...)}
	if p.Examples != nil {
		first = append(first, WithExamples(p.Examples))
	}
	if p.Image != nil {
		facts := p.Image.Facts
		first = append(first, WithImageFacts(&facts))
	}
	res, err := linter.Lint(ctx, p.Package, append(first, opts...)...)
	if err != nil {
		return nil, err
	}
	for _, list := range [][]linter.Diagnostic{res.Diagnostics, res.Suppressed} {
		for i := range list {
			list[i].Source = p.Source
		}
	}
	return res, nil
}

// ErrLint is the class of the errors of BuildCheck's check when the
// linter finds error-level problems: they are *LintError.
var ErrLint = errors.New("xpkg: package has lint errors")

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

// listErrors formats head and up to five of n items, saying how many more
// there are.
func listErrors(head string, n int, item func(int) string) string {
	const show = 5
	var b strings.Builder
	b.WriteString(head)
	for i := 0; i < n && i < show; i++ {
		b.WriteString("\n\t")
		b.WriteString(item(i))
	}
	if n > show {
		fmt.Fprintf(&b, "\n\t... and %d more", n-show)
	}
	return b.String()
}

// BuildCheck returns the lint gate of xpkg.Build (xpkg.WithCheck): it
// lints the package with the built-in rules plus opts (rules to disable,
// severities, the Crossplane version, ...) and refuses it with a
// *LintError when the linter reports error-level findings or a rule
// fails to run.
func BuildCheck(opts ...linter.Option) func(ctx context.Context, pkg *parser.Package) error {
	return func(ctx context.Context, pkg *parser.Package) error {
		res, err := linter.Lint(ctx, pkg, append([]linter.Option{linter.WithRuleSet(Builtin()...)}, opts...)...)
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
}
