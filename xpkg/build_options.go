package xpkg

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

// BuildOption configures Build. Besides the options made for Build
// (WithoutLint, WithLintOptions, WithTags, ...), every Option of Open is a
// BuildOption: WithParserOptions and WithLimits (its Parser limits) apply to
// parsing the package and its examples as they do in Open; WithPlatform and
// WithSourceName have nothing to act on in Build.
type BuildOption interface {
	applyBuild(*buildConfig)
}

// buildOptionFunc is a BuildOption made for Build alone.
type buildOptionFunc func(*buildConfig)

func (f buildOptionFunc) applyBuild(c *buildConfig) { f(c) }

// applyBuild makes an Option a BuildOption: its limits and parser options
// become Build's parser options.
func (o Option) applyBuild(c *buildConfig) {
	if o == nil {
		return
	}
	var oc openConfig
	o(&oc)
	if oc.limitsSet {
		c.parseOpts = append(c.parseOpts, parser.WithLimits(oc.limits.withDefaults().Parser))
	}
	c.parseOpts = append(c.parseOpts, oc.parserOpts...)
}

type buildConfig struct {
	imageOptions
	lint       bool
	parseOpts  []parser.Option
	lintOpts   []linter.Option
	noExamples bool
	examplesFS fs.FS
}

func newBuildConfig(opts []BuildOption) *buildConfig {
	c := &buildConfig{lint: true}
	for _, o := range opts {
		if o != nil {
			o.applyBuild(c)
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

// WithoutLint builds the package without linting it. Documents that cannot
// be parsed still stop the build.
func WithoutLint() BuildOption {
	return buildOptionFunc(func(c *buildConfig) { c.lint = false })
}

// WithoutExamples leaves the examples layer out, even when the package has
// an ExamplesDir.
func WithoutExamples() BuildOption {
	return buildOptionFunc(func(c *buildConfig) { c.noExamples = true })
}

// WithExamplesFS takes the examples from fsys (its YAML files, listed as
// the package's are) instead of the package's ExamplesDir.
func WithExamplesFS(fsys fs.FS) BuildOption {
	return buildOptionFunc(func(c *buildConfig) { c.examplesFS = fsys; c.noExamples = false })
}

// WithTags names the image: each tag (a full reference such as
// "xpkg.example.org/acme/provider-example:v1.0.0") becomes a ref name in
// the OCI layout's index.json and a RepoTags entry in the `.xpkg` file. It
// does not change the image's digest.
func WithTags(tags ...string) BuildOption {
	return buildOptionFunc(func(c *buildConfig) { c.tags = append(c.tags, slices.Clone(tags)...) })
}

// WithOCIMediaTypes writes OCI image-spec media types in the manifest
// instead of the Docker schema 2 types the Crossplane CLI writes. It
// changes the image's digest, not its config digest.
func WithOCIMediaTypes() BuildOption {
	return buildOptionFunc(func(c *buildConfig) { c.mediaTypes = ociwrite.OCIMediaTypes })
}
