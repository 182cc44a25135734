package parser

import (
	"errors"
	"fmt"
)

// Classes of document errors. A *DocumentError wraps one of them (a
// *LimitError wraps ErrLimit), so callers test with errors.Is.
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
	// ErrLimit: a limit was exceeded. Errors of this class are *LimitError.
	ErrLimit = errors.New("limit exceeded")
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
	// Err says what is wrong; it wraps one of the Err... classes.
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
// position is printed once: a *LimitError at the same position gives only
// its reason.
func (e *DocumentError) Error() string {
	if le, ok := e.Err.(*LimitError); ok && le.Pos == e.Pos {
		return fmt.Sprintf("%s: document %d: %s", e.Pos, e.Pos.Document, le.reason())
	}
	return fmt.Sprintf("%s: document %d: %v", e.Pos, e.Pos.Document, e.Err)
}

// Unwrap returns the underlying error.
func (e *DocumentError) Unwrap() error { return e.Err }

// LimitError reports that the input exceeded one of the Limits.
type LimitError struct {
	// Limit names the field of Limits that was exceeded, e.g.
	// "MaxDocumentBytes".
	Limit string
	// Value is the limit's value.
	Value int64
	// Pos is where the limit was hit: the document (or the line) concerned.
	Pos Position
}

// Error says which limit was exceeded and where, as
// "file:line:col: Limit value exceeded".
func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %s", e.Pos, e.reason())
}

// reason says which limit was exceeded, without the position.
func (e *LimitError) reason() string {
	return fmt.Sprintf("%s %d exceeded", e.Limit, e.Value)
}

// Is reports whether target is ErrLimit.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }
