package parser

// Limits bound the resources parsing may use on untrusted input. A zero or
// negative field means no limit; start from DefaultLimits and change what
// you need.
type Limits struct {
	// MaxDocumentBytes is the largest document, in bytes. The largest
	// document of the corpus's largest package is 1.7 MB, and the Kubernetes
	// API server refuses requests over 3 MiB. Parsing a document costs
	// memory of up to about 100 times its size in the worst case (a long
	// flow sequence of one-letter scalars), for each document decoded at
	// once (WithConcurrency): registries parsing untrusted uploads may want
	// a lower value. It also bounds a document expanded: a document whose
	// aliases (*name) would, expanded, make it larger than MaxDocumentBytes
	// (a large scalar aliased thousands of times) is refused before it is
	// expanded.
	MaxDocumentBytes int64
	// MaxTotalBytes is the most bytes read from all streams of one parse.
	MaxTotalBytes int64
	// MaxDocuments is the most documents (empty ones included) in one parse.
	MaxDocuments int
	// MaxDepth is the deepest nesting of mappings and sequences in a
	// document, counting the top-level mapping as 1 (real CRDs reach 38).
	MaxDepth int
	// MaxAliasExpansion is the most nodes that alias references (*name) may
	// add to one document when it is expanded. It stops "billion laughs"
	// documents before they are expanded.
	MaxAliasExpansion int64
}

// DefaultLimits returns limits that accept every real package with a wide
// margin: 8 MiB documents, 1 GiB in total, 100 000 documents, depth 128,
// and 100 000 nodes of alias expansion per document.
func DefaultLimits() Limits {
	return Limits{
		MaxDocumentBytes:  8 << 20,
		MaxTotalBytes:     1 << 30,
		MaxDocuments:      100_000,
		MaxDepth:          128,
		MaxAliasExpansion: 100_000,
	}
}
