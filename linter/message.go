package linter

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Diagnostic messages quote values from the package, which is untrusted: a
// value may be 50 KB long or hold terminal escape sequences. The helpers
// here bound what a message copies and escape what is not printable, so
// that a message is short and safe to write to a terminal.

const (
	// maxValueRunes is how many runes of a value a message quotes.
	maxValueRunes = 64
	// maxTokenBytes is how long a value token prints bare may be: enough
	// for a sha512 digest.
	maxTokenBytes = 160
	// maxReasonRunes is how many runes of an error's text a message keeps.
	maxReasonRunes = 256
	// maxListItems is how many values of a list a message quotes.
	maxListItems = 8
	// ellipsis marks a value or a text that was cut.
	ellipsis = "…"
)

// quote formats a value from the package for a message. A string is quoted
// as %q quotes it (Go syntax: control characters, terminal escapes and
// other runes that are not printable are escaped); when it is longer than
// maxValueRunes runes, its first maxValueRunes runes are quoted and an
// ellipsis follows the closing quote. Any other value (a number, a boolean,
// a list or a map decoded from YAML) is formatted with %v, not quoted, so
// that a number does not read as a string, with the same escaping and cut.
func quote(v any) string {
	s, isString := v.(string)
	if !isString {
		s = fmt.Sprint(v)
	}
	s, cut := truncate(s, maxValueRunes)
	if isString {
		s = strconv.Quote(s)
	} else {
		s = escape(s)
	}
	if cut {
		s += ellipsis
	}
	return s
}

// token formats a value from the package that a message prints bare, such
// as a kind, an apiVersion, a version, a digest or a path: a string of at
// most maxTokenBytes printable ASCII characters other than a space, a quote
// mark or a backslash is printed as it is; any other value is formatted
// with quote.
func token(v any) string {
	if s, ok := v.(string); ok && plainToken(s) {
		return s
	}
	return quote(v)
}

// plainToken reports whether s can be printed bare (see token).
func plainToken(s string) bool {
	if s == "" || len(s) > maxTokenBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// joinValues formats each of values with format (quote or token) and joins
// them with ", ". It formats at most maxListItems values and says how many
// more there are.
func joinValues(values []string, format func(any) string) string {
	var b strings.Builder
	for i, v := range values {
		if i == maxListItems {
			fmt.Fprintf(&b, " and %d more", len(values)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(format(v))
	}
	return b.String()
}

// reason formats the text of an error for a message. The validators the
// rules call quote the values they embed with %q, so reason shortens each
// double-quoted string longer than maxValueRunes as quote does; it then
// escapes runes that are not printable and cuts the text to maxReasonRunes
// runes.
func reason(err error) string {
	return reasonText(err.Error())
}

// reasonText is reason for an error's text.
func reasonText(msg string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(msg, '"')
		if i < 0 {
			b.WriteString(msg)
			break
		}
		b.WriteString(msg[:i])
		msg = msg[i:]
		q, err := strconv.QuotedPrefix(msg)
		if err != nil { // a lone quote mark
			b.WriteByte('"')
			msg = msg[1:]
			continue
		}
		if s, err := strconv.Unquote(q); err == nil && utf8.RuneCountInString(s) > maxValueRunes {
			b.WriteString(quote(s))
		} else {
			b.WriteString(q)
		}
		msg = msg[len(q):]
	}
	s, cut := truncate(escape(b.String()), maxReasonRunes)
	if cut {
		s += ellipsis
	}
	return s
}

// truncate returns the first max runes of s, and whether it cut anything.
func truncate(s string, max int) (string, bool) {
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// escape returns s with each rune that is not printable (by
// strconv.IsPrint: control characters, ESC, format characters such as a
// right-to-left override) and each invalid UTF-8 byte written as a Go
// escape sequence, such as \x1b or \u202e. Printable text is unchanged.
func escape(s string) string {
	printable := true
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			printable = false
			break
		}
	}
	if printable {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !strconv.IsPrint(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
