package oci

import (
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
)

// Limits bounds what this package reads from untrusted input. Each limit is
// checked before the memory or work it guards is spent, and exceeding one
// fails with a *limit.Error naming the field (it matches
// limit.ErrExceeded). The fields follow the convention of package limit: a
// zero field means the value of DefaultLimits, limit.Unlimited (any negative
// value) means no limit. MaxZstdWindow is never more than the zstd decoder
// accepts (zstd.MaxWindowSize, 2 TiB).
type Limits struct {
	// MaxManifestBytes bounds manifests, indexes, index.json and a docker
	// archive's manifest.json. Default 4 MiB, the distribution spec's floor.
	MaxManifestBytes int64
	// MaxConfigBytes bounds image config blobs. Default 8 MiB.
	MaxConfigBytes int64
	// MaxBlobBytes bounds any other blob (compressed layers). Default 1 GiB.
	MaxBlobBytes int64
	// MaxLayerBytes bounds the decompressed bytes of one layer. Default 1 GiB.
	MaxLayerBytes int64
	// MaxImageBytes bounds the decompressed bytes read by one flattened
	// ReadFile across all layers, and the decompressed size of a
	// gzip-compressed archive, which is spooled to a temporary file (in
	// os.TempDir) past 16 MiB: it is also the disk space opening one may
	// take. Default 2 GiB.
	MaxImageBytes int64
	// MaxFileBytes bounds the size of one file read out of a layer. Default
	// 512 MiB.
	MaxFileBytes int64
	// MaxTarEntries bounds the entries of one layer or one archive. Default
	// 100 000.
	MaxTarEntries int
	// MaxLayers bounds the layers of one manifest. Default 1 000.
	MaxLayers int
	// MaxZstdWindow bounds the history window a zstd frame may require, and
	// so the memory its decoder allocates. A single-segment frame's window is
	// its content size. Default 32 MiB (zstd -19 uses 8 MiB).
	MaxZstdWindow int64
	// MaxIndexDepth bounds how many indexes are followed from the top-level
	// index to an image manifest (the top-level index counts as one).
	// Default 8.
	MaxIndexDepth int
	// MaxArchiveImages bounds the images a docker archive's manifest.json
	// lists: its entries, each RepoTag of an entry counting as one image
	// (an entry without tags counts one). Each becomes a manifest the
	// archive synthesises and an entry of its index. Default 100 (a
	// Crossplane .xpkg holds one).
	MaxArchiveImages int
}

// DefaultLimits returns the limits used when none are given: safe for
// untrusted input, large enough for the largest real Crossplane packages.
func DefaultLimits() Limits {
	return Limits{
		MaxManifestBytes: 4 << 20,
		MaxConfigBytes:   8 << 20,
		MaxBlobBytes:     1 << 30,
		MaxLayerBytes:    1 << 30,
		MaxImageBytes:    2 << 30,
		MaxFileBytes:     512 << 20,
		MaxTarEntries:    100_000,
		MaxLayers:        1_000,
		MaxZstdWindow:    32 << 20,
		MaxIndexDepth:    8,
		// A .xpkg holds one image; `docker save` of several, a few.
		MaxArchiveImages: 100,
	}
}

// withDefaults returns l with every zero field replaced by its default, and
// every negative one (limit.Unlimited) by a value no input reaches.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	l.MaxManifestBytes = limitval.Or(l.MaxManifestBytes, d.MaxManifestBytes)
	l.MaxConfigBytes = limitval.Or(l.MaxConfigBytes, d.MaxConfigBytes)
	l.MaxBlobBytes = limitval.Or(l.MaxBlobBytes, d.MaxBlobBytes)
	l.MaxLayerBytes = limitval.Or(l.MaxLayerBytes, d.MaxLayerBytes)
	l.MaxImageBytes = limitval.Or(l.MaxImageBytes, d.MaxImageBytes)
	l.MaxFileBytes = limitval.Or(l.MaxFileBytes, d.MaxFileBytes)
	l.MaxTarEntries = limitval.Or(l.MaxTarEntries, d.MaxTarEntries)
	l.MaxLayers = limitval.Or(l.MaxLayers, d.MaxLayers)
	l.MaxZstdWindow = limitval.Or(l.MaxZstdWindow, d.MaxZstdWindow)
	l.MaxIndexDepth = limitval.Or(l.MaxIndexDepth, d.MaxIndexDepth)
	l.MaxArchiveImages = limitval.Or(l.MaxArchiveImages, d.MaxArchiveImages)
	return l
}

// Option configures the functions and stores of this package. Each function
// uses the options that concern it and ignores the others.
type Option func(*options)

type options struct {
	limits    Limits
	platform  ocispec.Platform
	reference string
}

func newOptions(opts []Option) options {
	o := options{
		limits:   DefaultLimits(),
		platform: DefaultPlatform(),
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	o.limits = o.limits.withDefaults()
	return o
}

// WithLimits sets the limits; zero fields keep their defaults, and
// limit.Unlimited lifts a limit.
func WithLimits(l Limits) Option {
	return func(o *options) { o.limits = l }
}

// WithPlatform sets the platform Resolve chooses when an index holds several
// manifests. The default is DefaultPlatform (linux/amd64).
func WithPlatform(p ocispec.Platform) Option {
	return func(o *options) { o.platform = p }
}

// WithReference makes Resolve start from the top-level index entries whose
// org.opencontainers.image.ref.name annotation equals ref (for a docker
// archive: one of its RepoTags) instead of from every entry.
func WithReference(ref string) Option {
	return func(o *options) { o.reference = ref }
}
