package xpkg

import (
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Option configures Open, OpenFS, OpenReader, OpenReaderAt, OpenImage and
// Selection.OpenPackageYAML. Build takes options of its own (BuildOption):
// the two are separate types, so an option of one given to the other does
// not compile.
type Option func(*openConfig)

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
			o(c)
		}
	}
	c.limits = c.limits.withDefaults()
	return c
}

// WithPlatform sets the platform chosen when an image index holds several
// manifests (default linux/amd64, see oci.DefaultPlatform). An index with one
// manifest is used whatever its platform.
func WithPlatform(p ocispec.Platform) Option {
	return func(c *openConfig) { c.platform = &p }
}

// WithLimits sets the limits; zero fields keep their defaults (see Limits).
func WithLimits(l Limits) Option {
	return func(c *openConfig) { c.limits = l }
}

// WithParserOptions passes options to the parser, for package.yaml, the
// files of a package directory and the examples: a typed object scheme
// (parser.WithObjectScheme), a renamed meta group (parser.WithMetaGroup; the
// linter takes it from the parsed package), strict kinds, the concurrency.
// Limits given here override those of WithLimits; a file name given with
// parser.WithFile is ignored (Open names the files itself).
// Build's counterpart is WithBuildParserOptions.
func WithParserOptions(opts ...parser.Option) Option {
	return func(c *openConfig) { c.parserOpts = append(c.parserOpts, opts...) }
}

// WithSourceName names the source in Package.Source and in the image facts
// (ImageFacts.Source) instead of the path given to Open, "<stdin>" for
// OpenReader, or "" for OpenImage. For OpenReader it also names the YAML
// stream in positions.
func WithSourceName(name string) Option {
	return func(c *openConfig) { c.sourceName = name }
}

// WithImagesOnly makes OpenReader accept images only (a docker archive, an
// OCI layout tar, plain or gzip'd): a YAML stream or any other content
// fails with ErrUnknownSource. A registry receives images, never YAML.
func WithImagesOnly() Option {
	return func(c *openConfig) { c.imagesOnly = true }
}

// WithSpoolDir sets the directory where OpenReader copies an image before
// reading it (images are read at offsets; at most Limits.MaxReaderBytes
// bytes, removed before OpenReader returns). The default is os.TempDir.
func WithSpoolDir(dir string) Option {
	return func(c *openConfig) { c.spoolDir = dir }
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
