package xpkg

import (
	"context"
	"errors"

	"github.com/xpkgkit/xpkgkit/linter"
)

// Lint lints the package with the built-in rules (linter.Builtin) plus
// opts, passing the image facts (linter.WithImageFacts) when the package was
// read from an image, so that the image rules (XP5xx) run. Options given in
// opts come after the facts; a linter.WithImageFacts among them replaces
// them. The meta group is the one the package was opened with
// (parser.WithMetaGroup in WithParserOptions).
// Each diagnostic's Source is the package's Source. Errors are those of
// linter.Lint.
func (p *Package) Lint(ctx context.Context, opts ...linter.Option) (*linter.Result, error) {
	if p == nil || p.Package == nil {
		return nil, errors.New("xpkg: Lint: nil package")
	}
	if p.Image != nil {
		facts := p.Image.Facts
		opts = append([]linter.Option{linter.WithImageFacts(&facts)}, opts...)
	}
	if p.Examples != nil {
		opts = append([]linter.Option{linter.WithExamples(p.Examples)}, opts...)
	}
	res, err := linter.Lint(ctx, p.Package, opts...)
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
