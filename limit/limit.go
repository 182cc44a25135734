// Package limit holds what every package of xpkgkit shares about limits:
// the convention of their fields, the one error a limit exceeded returns,
// and its class.
//
// Each reader of untrusted input has a Limits struct of its own (its fields
// differ: parser.Limits, oci.Limits, remote.Limits, xpkg.Limits,
// deps.Limits, schema.Limits, imageconfig.Limits, verify.Limits, and this
// package's GateLimits), and all follow one convention: a zero field means
// that limit's default, so that a partly filled Limits never lifts the
// limits it does not mention, and Unlimited (any negative value) means no
// limit. Byte counts are int64 and their names say Bytes, never Size;
// counts of things (documents, entries, requests) are int.
//
// Whichever package raised it, a limit exceeded is a *Error, found with
// errors.As, and it matches ErrExceeded with errors.Is. Its Limit is a Name,
// the Limits field that was exceeded.
package limit

import (
	"errors"
	"fmt"
)

// Unlimited is the value of a field of a Limits struct that lifts that
// limit. Any negative value means the same; Unlimited is the one to write.
//
//	parser.WithLimits(parser.Limits{MaxDocuments: 10})          // the other limits keep their defaults
//	parser.WithLimits(parser.Limits{MaxDepth: limit.Unlimited}) // no depth limit; the others default
const Unlimited = -1

// ErrExceeded is the class of every limit exceeded in this module: a *Error
// matches it with errors.Is.
var ErrExceeded = errors.New("limit exceeded")

// Name names a limit: the name of the field of a Limits struct that was
// exceeded, e.g. "MaxDocumentBytes" (parser.Limits.MaxDocumentBytes), or
// of a fixed bound its package documents (oci/cache's MaxIndexBytes). A
// caller tells limits apart by those names:
//
//	if le.Limit == "MaxDocuments" { ... }
type Name string

// Position locates a place in a package's input: a document, or a field
// inside one, in its file. It is the position of package parser
// (parser.Position is this type), and the position of a limit exceeded.
type Position struct {
	// File is the name of the file the document came from, as given to the
	// parser (a path inside an fs.FS, or the name passed with WithFile). It
	// is empty for an unnamed stream.
	File string
	// Document is the zero-based index of the document in its file's stream,
	// counting every document the stream separates, empty ones included, so
	// that it matches what a reader counts by `---` lines.
	Document int
	// Line and Column are 1-based. Column counts bytes.
	Line, Column int
	// Offset is the byte offset in the file.
	Offset int64
}

// String formats the position as file:line:col (or line:col without a file).
func (p Position) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Column)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// Error reports that the input exceeded a limit. Every package of this
// module reports a limit exceeded with it, usually wrapped in an error that
// says what was being read (an *oci.Error names the blob and the path, a
// *parser.DocumentError the document); errors.As finds it whichever package
// raised it, and it matches ErrExceeded.
type Error struct {
	// Limit is the limit exceeded: the field of its package's Limits.
	Limit Name
	// Value is what the input reached: the size, count or depth measured,
	// or Max+1 when reading stopped as soon as the input went beyond Max.
	// It is 0 when the check does not measure it.
	Value int64
	// Max is the limit's value.
	Max int64
	// Pos is where the limit was hit, when that is a place in a file (the
	// document or the line concerned); zero otherwise (the enclosing error
	// says where).
	Pos Position
}

// Error says which limit was exceeded and where, as
// "file:line:col: Limit Max exceeded" (without a position when Pos is zero).
func (e *Error) Error() string {
	if e.Pos == (Position{}) {
		return e.Reason()
	}
	return fmt.Sprintf("%s: %s", e.Pos, e.Reason())
}

// Reason says which limit was exceeded, without the position, as
// "Limit Max exceeded".
func (e *Error) Reason() string {
	return fmt.Sprintf("%s %d exceeded", e.Limit, e.Max)
}

// Is reports whether target is ErrExceeded.
func (e *Error) Is(target error) bool { return target == ErrExceeded }
