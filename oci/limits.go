package oci

import (
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Limits bounds what this package reads from untrusted input. Each limit is
// checked before the memory or work it guards is spent, and exceeding one
// fails with an error matching ErrLimit (a *LimitError naming the field). A
// zero (or negative) field means the value of DefaultLimits.
type Limits struct {
	// MaxManifestSize bounds manifests, indexes, index.json and a docker
	// archive's manifest.json. Default 4 MiB, the distribution spec's floor.
	MaxManifestSize int64
	// MaxConfigSize bounds image config blobs. Default 8 MiB.
	MaxConfigSize int64
	// MaxBlobSize bounds any other blob (compressed layers). Default 1 GiB.
	MaxBlobSize int64
	// MaxLayerSize bounds the decompressed bytes of one layer. Default 1 GiB.
	MaxLayerSize int64
	// MaxImageSize bounds the decompressed bytes read by one flattened
	// ReadFile across all layers, and the decompressed size of a
	// gzip-compressed archive, which is spooled to a temporary file (in
	// os.TempDir) past 16 MiB: it is also the disk space opening one may
	// take. Default 2 GiB.
	MaxImageSize int64
	// MaxFileSize bounds the size of one file read out of a layer. Default
	// 512 MiB.
	MaxFileSize int64
	// MaxTarEntries bounds the entries of one layer or one archive. Default
	// 100 000.
	MaxTarEntries int64
	// MaxLayers bounds the layers of one manifest. Default 1 000.
	MaxLayers int64
	// MaxZstdWindow bounds the history window a zstd frame may require, and
	// so the memory its decoder allocates. A single-segment frame's window is
	// its content size. Default 32 MiB (zstd -19 uses 8 MiB).
	MaxZstdWindow int64
	// MaxIndexDepth bounds how many indexes are followed from the top-level
	// index to an image manifest (the top-level index counts as one).
	// Default 8.
	MaxIndexDepth int64
	// MaxArchiveImages bounds the images a docker archive's manifest.json
	// lists: its entries, each RepoTag of an entry counting as one image
	// (an entry without tags counts one). Each becomes a manifest the
	// archive synthesises and an entry of its index. Default 100 (a
	// Crossplane .xpkg holds one).
	MaxArchiveImages int64
}

// DefaultLimits returns the limits used when none are given: safe for
// untrusted input, large enough for the largest real Crossplane packages.
func DefaultLimits() Limits {
	return Limits{
		MaxManifestSize: 4 << 20,
		MaxConfigSize:   8 << 20,
		MaxBlobSize:     1 << 30,
		MaxLayerSize:    1 << 30,
		MaxImageSize:    2 << 30,
		MaxFileSize:     512 << 20,
		MaxTarEntries:   100_000,
		MaxLayers:       1_000,
		MaxZstdWindow:   32 << 20,
		MaxIndexDepth:   8,
		// A .xpkg holds one image; `docker save` of several, a few.
		MaxArchiveImages: 100,
	}
}

// withDefaults returns l with every zero (or negative) field replaced by its
// default.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	fill := func(v *int64, def int64) {
		if *v <= 0 {
			*v = def
		}
	}
	fill(&l.MaxManifestSize, d.MaxManifestSize)
	fill(&l.MaxConfigSize, d.MaxConfigSize)
	fill(&l.MaxBlobSize, d.MaxBlobSize)
	fill(&l.MaxLayerSize, d.MaxLayerSize)
	fill(&l.MaxImageSize, d.MaxImageSize)
	fill(&l.MaxFileSize, d.MaxFileSize)
	fill(&l.MaxTarEntries, d.MaxTarEntries)
	fill(&l.MaxLayers, d.MaxLayers)
	fill(&l.MaxZstdWindow, d.MaxZstdWindow)
	fill(&l.MaxIndexDepth, d.MaxIndexDepth)
	fill(&l.MaxArchiveImages, d.MaxArchiveImages)
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

// WithLimits sets the limits; zero fields keep their defaults.
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
