package parser

import "github.com/xpkgkit/xpkgkit/internal/limitval"

// Limits bound the resources parsing may use on untrusted input. They follow
// the convention of package limit: a zero field means that limit's default
// (DefaultLimits), so that a partly filled Limits never lifts the limits it
// does not mention; limit.Unlimited (any negative value) means no limit.
//
//	parser.WithLimits(parser.Limits{MaxDocuments: 10})          // the other limits keep their defaults
//	parser.WithLimits(parser.Limits{MaxDepth: limit.Unlimited}) // no depth limit; the others default
//
// A limit exceeded is a *limit.Error naming the field.
type Limits struct {
	// MaxDocumentBytes is the largest document, in bytes. The largest
	// document of the corpus's largest package is 1.7 MB, and the Kubernetes
	// API server refuses requests over 3 MiB. It also bounds a document
	// expanded: a document whose aliases (*name) would, expanded, make it
	// larger than MaxDocumentBytes (a large scalar aliased thousands of
	// times) is refused before it is expanded.
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
	MaxAliasExpansion int
	// MaxNodes bounds the nodes of one document: parsing a document costs
	// memory for each of its nodes (each scalar, mapping, sequence and
	// alias costs a few hundred bytes), up to about 160 times the
	// document's size for a long list of one-letter scalars. The nodes are
	// counted before the document is parsed, by a scan of its bytes that
	// never counts fewer than the nodes the document parses into: one for
	// each byte that may start a scalar or an alias (the first of a line,
	// or one after an indicator, a quote, an anchor or a tag), two for each
	// sequence entry `-`, `[` and `{`, three for each `?` and `:` (two for
	// a `:` right after a word), one for each `,`, `]`, `}`, `&` and `!`,
	// and two for the document, wherever they are (in comments and strings
	// too). A document that counts more is a document error, at the byte
	// where the count passed the limit. Real documents count two to three
	// times their nodes: the largest document of the corpus (a CRD of
	// 1.7 MB and 35 623 nodes) counts 85 190. At the default, decoding one
	// document costs at most about 130 MiB (see WithDecodeMemory).
	MaxNodes int
	// MaxFiles is the most directory entries (files and directories,
	// hidden ones included; .git is not walked) ParseFS visits in a
	// package's on-disk format. It bounds the listing, which ParseFS does
	// before it parses anything: a directory of millions of empty files
	// costs no more than MaxFiles entries. The largest package directory of
	// the corpus has 203.
	MaxFiles int
}

// DefaultLimits returns limits that accept every real package with a wide
// margin: 8 MiB documents, 1 GiB in total, 100 000 documents, depth 128,
// 100 000 nodes of alias expansion, a count of 400 000 nodes per document
// and 20 000 entries in a package directory.
func DefaultLimits() Limits {
	return Limits{
		MaxDocumentBytes:  8 << 20,
		MaxTotalBytes:     1 << 30,
		MaxDocuments:      100_000,
		MaxDepth:          128,
		MaxAliasExpansion: 100_000,
		MaxNodes:          400_000,
		MaxFiles:          20_000,
	}
}

// withDefaults returns l with every zero field replaced by its default, and
// every negative one (limit.Unlimited) by a value no input reaches.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	l.MaxDocumentBytes = limitval.Or(l.MaxDocumentBytes, d.MaxDocumentBytes)
	l.MaxTotalBytes = limitval.Or(l.MaxTotalBytes, d.MaxTotalBytes)
	l.MaxDocuments = limitval.Or(l.MaxDocuments, d.MaxDocuments)
	l.MaxDepth = limitval.Or(l.MaxDepth, d.MaxDepth)
	l.MaxAliasExpansion = limitval.Or(l.MaxAliasExpansion, d.MaxAliasExpansion)
	l.MaxNodes = limitval.Or(l.MaxNodes, d.MaxNodes)
	l.MaxFiles = limitval.Or(l.MaxFiles, d.MaxFiles)
	return l
}
