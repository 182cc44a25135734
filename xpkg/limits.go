package xpkg

import (
	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Limits bounds what Open and OpenReader read from untrusted input: one
// value that reaches every reader involved, the image readers of package oci,
// the YAML parser, and the spooling of a reader that holds an image.
//
// Every field, here and in OCI and Parser, follows the convention of package
// limit: a zero field means its default (see DefaultLimits), so that setting
// one limit never lifts the others, and limit.Unlimited (any negative value)
// means no limit. A limit exceeded, whichever reader checked it, is a
// *limit.Error naming the field (it matches limit.ErrExceeded).
type Limits struct {
	// OCI bounds the image readers: manifest, config and blob sizes,
	// decompressed layer and image sizes, tar entries, index depth.
	OCI oci.Limits
	// Parser bounds the YAML parser: document size and count, total bytes,
	// nesting depth, alias expansion. It applies to package.yaml and to the
	// examples.
	Parser parser.Limits
	// MaxReaderBytes bounds the bytes OpenReader copies to a temporary file
	// when its reader holds an image (a tar or gzip stream), which must be
	// read at offsets. Default 1 GiB.
	MaxReaderBytes int64
}

// DefaultLimits returns the limits used when none are given: those of
// oci.DefaultLimits and parser.DefaultLimits, and 1 GiB for MaxReaderBytes.
// They are safe for untrusted input and large enough for the largest real
// Crossplane packages.
func DefaultLimits() Limits {
	return Limits{
		OCI:            oci.DefaultLimits(),
		Parser:         parser.DefaultLimits(),
		MaxReaderBytes: 1 << 30,
	}
}

// withDefaults returns l with every zero field of its own replaced by its
// default, and every negative one (limit.Unlimited) by a value no input
// reaches. Packages oci and parser resolve the fields of OCI and Parser
// themselves; the two fields of OCI this package reads itself are resolved
// here the same way.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	l.OCI.MaxImageBytes = limitval.Or(l.OCI.MaxImageBytes, d.OCI.MaxImageBytes)
	l.OCI.MaxFileBytes = limitval.Or(l.OCI.MaxFileBytes, d.OCI.MaxFileBytes)
	l.MaxReaderBytes = limitval.Or(l.MaxReaderBytes, d.MaxReaderBytes)
	return l
}
