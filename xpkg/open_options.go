package xpkg

import (
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Option configures Open, OpenReader, OpenImage and
// Selection.OpenPackageYAML. Options made for Build alone (BuildOption) are
// not Options: giving one to Open does not compile. WithLimits and
// WithParserOptions are both (OpenBuildOption).
type Option interface {
	applyOpen(*openConfig)
}

// OpenBuildOption is an option of Open and of Build alike: WithLimits and
// WithParserOptions, which bound and configure parsing in both.
type OpenBuildOption interface {
	Option
	BuildOption
}

// openOption is an Option made for Open alone.
type openOption func(*openConfig)

func (f openOption) applyOpen(c *openConfig) {
	if f != nil {
		f(c)
	}
}

// openBuildOption is an OpenBuildOption: what it does to Open's
// configuration, and to Build's.
type openBuildOption struct {
	open  func(*openConfig)
	build func(*buildConfig)
}

func (o openBuildOption) applyOpen(c *openConfig)   { o.open(c) }
func (o openBuildOption) applyBuild(c *buildConfig) { o.build(c) }

type openConfig struct {
	platform   *ocispec.Platform
	limits     Limits
	parserOpts []parser.Option
	sourceName string
	remote     Puller   // see WithRemote
	imagesOnly bool     // see WithImagesOnly
	spoolDir   string   // see WithSpoolDir
	images     Rewriter // see WithImageConfig
}

func newOpenConfig(opts []Option) *openConfig {
	c := &openConfig{limits: DefaultLimits()}
	for _, o := range opts {
		if o != nil {
			o.applyOpen(c)
		}
	}
	c.limits = c.limits.withDefaults()
	return c
}

// WithPlatform sets the platform chosen when an image index holds several
// manifests (default linux/amd64, see oci.DefaultPlatform). An index with one
// manifest is used whatever its platform.
func WithPlatform(p ocispec.Platform) Option {
	return openOption(func(c *openConfig) { c.platform = &p })
}

// WithLimits sets the limits; zero fields keep their defaults (see Limits).
// Given to Build, its Parser limits bound the parsing of the package and
// its examples.
func WithLimits(l Limits) OpenBuildOption {
	return openBuildOption{
		open: func(c *openConfig) { c.limits = l },
		build: func(c *buildConfig) {
			c.parseOpts = append(c.parseOpts, parser.WithLimits(l.withDefaults().Parser))
		},
	}
}

// WithParserOptions passes options to the parser, for package.yaml, the
// files of a package directory and the examples, in Open as in Build: a typed object scheme
// (parser.WithObjectScheme), a renamed meta group (parser.WithMetaGroup; the
// linter takes it from the parsed package), strict kinds, the concurrency.
// Limits given here override those of WithLimits; a file name given with
// parser.WithFile is ignored (Open names the files itself).
func WithParserOptions(opts ...parser.Option) OpenBuildOption {
	return openBuildOption{
		open:  func(c *openConfig) { c.parserOpts = append(c.parserOpts, opts...) },
		build: func(c *buildConfig) { c.parseOpts = append(c.parseOpts, opts...) },
	}
}

// WithSourceName names the source in Package.Source and in the image facts
// (ImageFacts.Source) instead of the path given to Open, "<stdin>" for
// OpenReader, or "" for OpenImage. For OpenReader it also names the YAML
// stream in positions.
func WithSourceName(name string) Option {
	return openOption(func(c *openConfig) { c.sourceName = name })
}

// WithImagesOnly makes OpenReader accept images only (a docker archive, an
// OCI layout tar, plain or gzip'd): a YAML stream or any other content
// fails with ErrUnknownSource. A registry receives images, never YAML.
func WithImagesOnly() Option {
	return openOption(func(c *openConfig) { c.imagesOnly = true })
}

// WithSpoolDir sets the directory where OpenReader copies an image before
// reading it (images are read at offsets; at most Limits.MaxReaderSize
// bytes, removed before OpenReader returns). The default is os.TempDir.
func WithSpoolDir(dir string) Option {
	return openOption(func(c *openConfig) { c.spoolDir = dir })
}

// ociOptions returns the options for package oci.
func (c *openConfig) ociOptions() []oci.Option {
	opts := []oci.Option{oci.WithLimits(c.limits.OCI)}
	if c.platform != nil {
		opts = append(opts, oci.WithPlatform(*c.platform))
	}
	return opts
}

// parseOptions returns the options for parsing the stream named file: the
// limits, then the caller's options, then the name.
func (c *openConfig) parseOptions(file string) []parser.Option {
	opts := make([]parser.Option, 0, len(c.parserOpts)+2)
	opts = append(opts, parser.WithLimits(c.limits.Parser))
	opts = append(opts, c.parserOpts...)
	if file != "" {
		opts = append(opts, parser.WithFile(file))
	}
	return opts
}
