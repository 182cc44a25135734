package xpkg

import (
	"errors"
	"fmt"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Limits bounds what Open and OpenReader read from untrusted input: one
// value that reaches every reader involved, the image readers of package oci,
// the YAML parser, and the spooling of a reader that holds an image.
//
// A zero field means its default (see DefaultLimits), in OCI, in Parser and
// here alike, so that setting one limit never lifts the others. A negative
// field of Parser means no limit, as package parser has it.
type Limits struct {
	// OCI bounds the image readers: manifest, config and blob sizes,
	// decompressed layer and image sizes, tar entries, index depth.
	OCI oci.Limits
	// Parser bounds the YAML parser: document size and count, total bytes,
	// nesting depth, alias expansion. It applies to package.yaml and to the
	// examples.
	Parser parser.Limits
	// MaxReaderSize bounds the bytes OpenReader copies to a temporary file
	// when its reader holds an image (a tar or gzip stream), which must be
	// read at offsets. Default 1 GiB.
	MaxReaderSize int64
}

// DefaultLimits returns the limits used when none are given: those of
// oci.DefaultLimits and parser.DefaultLimits, and 1 GiB for MaxReaderSize.
// They are safe for untrusted input and large enough for the largest real
// Crossplane packages.
func DefaultLimits() Limits {
	return Limits{
		OCI:           oci.DefaultLimits(),
		Parser:        parser.DefaultLimits(),
		MaxReaderSize: 1 << 30,
	}
}

// withDefaults returns l with every zero field replaced by its default.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	// Package oci fills its own zero fields; package parser reads zero as
	// "no limit", so its zero fields are filled here.
	p := &l.Parser
	if p.MaxDocumentBytes == 0 {
		p.MaxDocumentBytes = d.Parser.MaxDocumentBytes
	}
	if p.MaxTotalBytes == 0 {
		p.MaxTotalBytes = d.Parser.MaxTotalBytes
	}
	if p.MaxDocuments == 0 {
		p.MaxDocuments = d.Parser.MaxDocuments
	}
	if p.MaxDepth == 0 {
		p.MaxDepth = d.Parser.MaxDepth
	}
	if p.MaxAliasExpansion == 0 {
		p.MaxAliasExpansion = d.Parser.MaxAliasExpansion
	}
	if l.MaxReaderSize <= 0 {
		l.MaxReaderSize = d.MaxReaderSize
	}
	return l
}

// ErrLimit is the class of the limits this package checks itself
// (MaxReaderSize). Limits of the image readers and the parser are reported
// by their own packages' errors, which match oci.ErrLimit and
// parser.ErrLimit.
var ErrLimit = errors.New("xpkg: limit exceeded")

// LimitError says which limit of Limits was exceeded. It matches ErrLimit.
type LimitError struct {
	// Name is the field of Limits, e.g. "MaxReaderSize".
	Name string
	// Limit is the value that was exceeded.
	Limit int64
}

// Error implements error.
func (e *LimitError) Error() string {
	return fmt.Sprintf("xpkg: limit %s (%d bytes) exceeded", e.Name, e.Limit)
}

// Is reports whether target is ErrLimit.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }
