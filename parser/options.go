package parser

import (
	"runtime"

	kruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/xpkgkit/xpkgkit/meta"
)

// defaultOutlineDepth is the outline depth used unless WithOutlineDepth says
// otherwise.
const defaultOutlineDepth = 6

// Option configures Parse, ParseFS and NewSplitter.
type Option func(*config)

type config struct {
	file         string
	metaGroup    string
	objectScheme *kruntime.Scheme
	strictKinds  bool
	limits       Limits
	failFast     bool
	outlineDepth int
	concurrency  int
	discardRaw   bool
	fullParse    bool // see withFullParse
	decodeMemory int64
	used         Usage
	allDirs      bool
}

func newConfig(opts []Option) *config {
	c := &config{
		metaGroup:    meta.DefaultGroup,
		limits:       DefaultLimits(),
		outlineDepth: defaultOutlineDepth,
	}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if c.concurrency <= 0 {
		c.concurrency = runtime.GOMAXPROCS(0)
	}
	if c.decodeMemory <= 0 {
		c.decodeMemory = defaultDecodeMemory
	}
	c.limits = c.limits.withDefaults()
	return c
}

// WithAllDirectories makes ParseFS read the YAML files of every directory
// but .git: hidden directories (whose names start with ".") and a
// directory named examples at the root too. That is how Crossplane's build
// walks the examples directory of a package (crossplane-runtime
// pkg/xpkg/parser, NewFsReadCloser: an afero.Walk whose filters, SkipDirs,
// SkipNotYAML and SkipEmpty, leave out directory entries, not what is
// below them), so xpkg reads a package's examples with it. Package.Skipped
// then lists only symbolic links. Parse ignores it.
func WithAllDirectories() Option { return func(c *config) { c.allDirs = true } }

// WithFile names the stream given to Parse or NewSplitter; positions carry
// the name. ParseFS ignores it and uses each file's path.
func WithFile(name string) Option { return func(c *config) { c.file = name } }

// WithMetaGroup sets the API group of meta objects (meta.DefaultGroup by
// default), for forks of Crossplane that renamed it.
func WithMetaGroup(group string) Option { return func(c *config) { c.metaGroup = group } }

// WithObjectScheme decodes the objects whose kind s recognises into their Go
// types while parsing (Object.Decode returns them). Other objects stay
// unstructured, unless WithStrictKinds is given too.
func WithObjectScheme(s *kruntime.Scheme) Option { return func(c *config) { c.objectScheme = s } }

// WithStrictKinds makes a document whose kind no scheme recognises (neither
// the meta scheme nor the object scheme) a document error wrapping
// ErrUnknownKind. Without an object scheme every non-meta document is then
// an error.
func WithStrictKinds() Option { return func(c *config) { c.strictKinds = true } }

// WithLimits sets the limits. A zero field keeps its default and a
// negative one (limit.Unlimited) lifts that limit: see Limits.
func WithLimits(l Limits) Option { return func(c *config) { c.limits = l } }

// WithFailFast makes Parse and ParseFS stop at the first document error (in
// stream order) and return it, instead of collecting document errors in
// Package.Errors.
func WithFailFast() Option { return func(c *config) { c.failFast = true } }

// WithOutlineDepth sets how deep Object.Outline goes: mappings and
// sequences nested deeper than depth (the top-level mapping's values are at
// depth 1) are present but empty. The default depth is 6; a negative depth
// disables outlines.
func WithOutlineDepth(depth int) Option { return func(c *config) { c.outlineDepth = depth } }

// WithConcurrency sets how many documents are decoded at once
// (runtime.GOMAXPROCS(0) by default; n <= 0 restores the default).
// WithDecodeMemory bounds them further.
func WithConcurrency(n int) Option { return func(c *config) { c.concurrency = n } }

// WithUsage makes a parse count u against its limits (MaxDocuments,
// MaxTotalBytes) before it reads anything, as if it went on from a parse
// that used u: so that two parses of one upload (a package and its
// examples) share one budget, give the second the first's Package.Usage.
// The limits' errors name the limits as set, not what was left of them.
func WithUsage(u Usage) Option { return func(c *config) { c.used = u } }

// WithDecodeMemory sets the memory budget, in bytes, of the documents one
// parse decodes at once (64 MiB by default; n <= 0
// restores the default). Each document is charged an estimate of what
// decoding it costs at its peak, from its size and its node count (see
// Limits.MaxNodes), before it is parsed (a document too short to pass
// MaxNodes is first read by the parser's fast path, which builds no node
// tree, charged for its size alone), and decoding waits while the
// budget is used up, so the memory of parallel decoding does not grow with
// the number of CPUs. A document that costs more than the whole budget is
// decoded alone: with the default limits that is a document near MaxNodes,
// whose decoding costs about 130 MiB at most. The budget is per parse:
// parses running at once each have their own.
func WithDecodeMemory(n int64) Option { return func(c *config) { c.decodeMemory = n } }

// WithoutRaw makes the parser drop each document's bytes once it is parsed,
// which saves the memory of the whole stream. Object.Raw then returns nil,
// and Object.Unstructured, Object.FieldPosition (and Object.Decode of an
// object without a typed value) return an error wrapping ErrNoRaw.
func WithoutRaw() Option { return func(c *config) { c.discardRaw = true } }

// withFullParse turns the fast path off: every document gets the full parse
// (the tests that compare the two paths use it).
func withFullParse() Option { return func(c *config) { c.fullParse = true } }
