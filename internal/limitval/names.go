package limitval

// The names of the module's limits, as a *limit.Error reports them
// (limit.Error.Limit): each is the name of the field of a Limits struct
// that was exceeded, which is how a caller names it too.

// Names of the limits of package parser (parser.Limits).
const (
	MaxDocumentBytes  = "MaxDocumentBytes"
	MaxTotalBytes     = "MaxTotalBytes" // also verify.Limits
	MaxDocuments      = "MaxDocuments"  // also imageconfig.Limits
	MaxDepth          = "MaxDepth"      // also schema.Limits
	MaxAliasExpansion = "MaxAliasExpansion"
	MaxNodes          = "MaxNodes" // also schema.Limits
	MaxFiles          = "MaxFiles"
)

// Names of the limits of package oci (oci.Limits), of its verified cache
// (oci/cache) and of its registry client (oci/remote).
const (
	MaxManifestBytes   = "MaxManifestBytes" // also verify.Limits
	MaxConfigBytes     = "MaxConfigBytes"
	MaxBlobBytes       = "MaxBlobBytes" // also verify.Limits
	MaxLayerBytes      = "MaxLayerBytes"
	MaxImageBytes      = "MaxImageBytes"
	MaxFileBytes       = "MaxFileBytes"
	MaxTarEntries      = "MaxTarEntries"
	MaxLayers          = "MaxLayers"
	MaxZstdWindow      = "MaxZstdWindow"
	MaxIndexDepth      = "MaxIndexDepth"
	MaxArchiveImages   = "MaxArchiveImages"
	MaxIndexBytes      = "MaxIndexBytes"
	MaxRequests        = "MaxRequests"
	MaxRequestsPerHost = "MaxRequestsPerHost"
	MaxTagPages        = "MaxTagPages"
	MaxReferrerPages   = "MaxReferrerPages"
	MaxReferrers       = "MaxReferrers"
	MaxTags            = "MaxTags" // also deps.Limits
)

// Name of the limit of package xpkg's own (xpkg.Limits).
const MaxReaderBytes = "MaxReaderBytes"

// Names of the limits of package deps (deps.Limits), and of the directory
// listings of its sources (MaxDirEntries, a fixed bound).
const (
	MaxPackages      = "MaxPackages"
	MaxEdges         = "MaxEdges"
	MaxVersionChecks = "MaxVersionChecks"
	MaxDirEntries    = "MaxDirEntries"
)

// Names of the limits of package linter/schema (schema.Limits).
const (
	MaxEnum               = "MaxEnum"
	MaxCombinatorDepth    = "MaxCombinatorDepth"
	MaxCombinatorBranches = "MaxCombinatorBranches"
	MaxCost               = "MaxCost"
)

// Names of the limits of package xpkg/imageconfig (imageconfig.Limits).
const (
	MaxBytes       = "MaxBytes"
	MaxConfigs     = "MaxConfigs"
	MaxMatchImages = "MaxMatchImages"
	MaxPrefixBytes = "MaxPrefixBytes"
)

// Name of the limit of package xpkg/verify of its own (verify.Limits).
const MaxSignatures = "MaxSignatures"

// Names of the limits of a Gate (GateLimits).
const (
	MaxActive        = "MaxActive"
	MaxQueued        = "MaxQueued"
	MaxBytesInFlight = "MaxBytesInFlight"
)
