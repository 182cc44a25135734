package linter

import "github.com/xpkgkit/xpkgkit/internal/safetext"

// Diagnostic messages quote values from the package, which is untrusted: a
// value may be 50 KB long or hold terminal escape sequences. The helpers
// here are short names for those of internal/safetext, the one place that
// escapes and bounds package data for messages, so that a message is short
// and safe to write to a terminal.

// quote formats a value from the package for a message: see safetext.Quote.
func quote(v any) string { return safetext.Quote(v) }

// token formats a value from the package that a message prints bare, such
// as a kind, an apiVersion, a version, a digest or a path: see
// safetext.Token.
func token(v any) string { return safetext.Token(v) }

// joinValues formats each of values with format (quote or token) and joins
// them with ", ", at most safetext.MaxListItems of them: see safetext.Join.
func joinValues(values []string, format func(any) string) string {
	return safetext.Join(values, format)
}
