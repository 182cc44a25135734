package deps

import "github.com/xpkgkit/xpkgkit/internal/safetext"

// Messages quote values from packages, which are untrusted; package
// safetext bounds and escapes them, as it does for the rules' messages.

// quote quotes a value from a package, escaped and cut.
func quote(s string) string { return safetext.Quote(s) }

// token prints a value bare when it is a plain token, else quotes it.
func token(s string) string { return safetext.Token(s) }

// shorten bounds and escapes an error's text.
func shorten(s string) string { return safetext.ReasonText(s) }

// list formats at most safetext.MaxListItems values and says how many more
// there are.
func list(values []string, format func(string) string) string {
	return safetext.Join(values, func(v any) string { s, _ := v.(string); return format(s) })
}
