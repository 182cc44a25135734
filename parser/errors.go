package parser

import (
	"errors"
	"fmt"

	"github.com/xpkgkit/xpkgkit/limit"
)

// Classes of document errors. A *DocumentError wraps one of them, or a
// *limit.Error (a limit exceeded: it matches limit.ErrExceeded), so callers
// test with errors.Is.
var (
	// ErrSyntax: the document is not valid YAML, or holds a value JSON
	// cannot represent (a non-string key, .nan, .inf).
	ErrSyntax = errors.New("invalid YAML")
	// ErrNotObject: the document is a scalar or a sequence, not a mapping.
	ErrNotObject = errors.New("document is not an object")
	// ErrMissingType: the document has no apiVersion or no kind (or one that
	// is not a non-empty string).
	ErrMissingType = errors.New("missing apiVersion or kind")
	// ErrUnknownKind: the document is in the meta group but the meta scheme
	// does not know its version and kind, or (with WithStrictKinds) no
	// scheme recognises its kind.
	ErrUnknownKind = errors.New("unknown kind")
	// ErrDecode: the document does not fit the Go type of its kind (for
	// example a number where the type wants a string), or its metadata does
	// not fit metav1.ObjectMeta.
	ErrDecode = errors.New("cannot decode object")
	// ErrNoRaw: the parser was told not to keep raw bytes
	// (WithoutRaw), so the object cannot be decoded again.
	ErrNoRaw = errors.New("raw bytes not retained")
	// ErrFieldNotFound: FieldPosition found no field at the path.
	ErrFieldNotFound = errors.New("field not found")
)

// DocumentError is the error of one document that could not be parsed.
type DocumentError struct {
	// Pos is where the problem is: for a syntax error, the line the YAML
	// parser reports; otherwise the start of the document. Pos.Document
	// always identifies the document.
	Pos Position
	// Err says what is wrong; it wraps one of the Err... classes, or is a
	// *limit.Error.
	Err error
	// Unquoted is set for an ErrDecode error of a number or boolean
	// written, unquoted, where the type wants a string: the scalar as
	// written, which quoting makes a string (the linter's suggested fix).
	Unquoted *Scalar
}

// Scalar is a plain scalar of a document: where it starts and its text as
// written.
type Scalar struct {
	Pos  Position
	Text string
}

// Error formats the error as "file:line:col: document N: reason". The
// position is printed once: a *limit.Error at the same position gives only
// its reason.
func (e *DocumentError) Error() string {
	if le, ok := e.Err.(*limit.Error); ok && le.Pos == e.Pos {
		return fmt.Sprintf("%s: document %d: %s", e.Pos, e.Pos.Document, le.Reason())
	}
	return fmt.Sprintf("%s: document %d: %v", e.Pos, e.Pos.Document, e.Err)
}

// Unwrap returns the underlying error.
func (e *DocumentError) Unwrap() error { return e.Err }

// limitErr is the *limit.Error of the limit name of value max, hit at pos.
// Its Value is max+1: reading stops as soon as the input goes beyond max.
func limitErr[T int | int64](name limit.Name, max T, pos Position) *limit.Error {
	return &limit.Error{Limit: name, Value: int64(max) + 1, Max: int64(max), Pos: pos}
}
