package xpkg

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
	"github.com/xpkgkit/xpkgkit/parser"
)

// BuildOption configures Build. Open's options (Option) are a separate
// type: an option of one given to the other does not compile. The parsing
// of the package and its examples is configured and bounded with
// WithBuildParserOptions (parser.WithLimits among them).
type BuildOption func(*buildConfig)

type buildConfig struct {
	imageOptions
	check      func(ctx context.Context, pkg *parser.Package) error
	parseOpts  []parser.Option
	noExamples bool
	examplesFS fs.FS
}

func newBuildConfig(opts []BuildOption) *buildConfig {
	c := &buildConfig{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}

// examples returns the file system the examples come from, or nil when the
// build has none.
func (c *buildConfig) examples(fsys fs.FS) (fs.FS, error) {
	switch {
	case c.noExamples:
		return nil, nil
	case c.examplesFS != nil:
		return c.examplesFS, nil
	}
	fi, err := fs.Stat(fsys, ExamplesDir)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("xpkg: %w", err)
	}
	sub, err := fs.Sub(fsys, ExamplesDir)
	if err != nil {
		return nil, fmt.Errorf("xpkg: %w", err)
	}
	return sub, nil
}

// WithoutExamples leaves the examples layer out, even when the package has
// an ExamplesDir.
func WithoutExamples() BuildOption {
	return func(c *buildConfig) { c.noExamples = true }
}

// WithExamplesFS takes the examples from fsys (its YAML files, listed as
// the package's are) instead of the package's ExamplesDir.
func WithExamplesFS(fsys fs.FS) BuildOption {
	return func(c *buildConfig) { c.examplesFS = fsys; c.noExamples = false }
}

// WithTags names the image: each tag (a full reference such as
// "xpkg.example.org/acme/provider-example:v1.0.0") becomes a ref name in
// the OCI layout's index.json and a RepoTags entry in the `.xpkg` file. It
// does not change the image's digest.
func WithTags(tags ...string) BuildOption {
	return func(c *buildConfig) { c.tags = append(c.tags, slices.Clone(tags)...) }
}

// WithOCIMediaTypes writes OCI image-spec media types in the manifest
// instead of the Docker schema 2 types the Crossplane CLI writes. It
// changes the image's digest, not its config digest.
func WithOCIMediaTypes() BuildOption {
	return func(c *buildConfig) { c.mediaTypes = ociwrite.OCIMediaTypes }
}

// WithBuildParserOptions passes options to the parser, for the package and
// its examples: parser.WithLimits bounds them (default parser's
// DefaultLimits), parser.WithObjectScheme, parser.WithMetaGroup,
// parser.WithStrictKinds and parser.WithConcurrency configure them as they
// do Open's (WithParserOptions). A file name given with parser.WithFile is
// ignored.
func WithBuildParserOptions(opts ...parser.Option) BuildOption {
	return func(c *buildConfig) { c.parseOpts = append(c.parseOpts, opts...) }
}

// WithCheck makes Build run check over the parsed package before it writes
// anything: an error refuses the build, and Build returns it as check
// gave it. Build runs no check by default: the linter's lint gate is
// linter/rules.BuildCheck.
func WithCheck(check func(ctx context.Context, pkg *parser.Package) error) BuildOption {
	return func(c *buildConfig) { c.check = check }
}
