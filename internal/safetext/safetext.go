// Package safetext escapes and bounds package data (untrusted text) for
// messages, errors and output lines. It is the one place that decides how a
// value from a package is shown: a value may be 50 KB long or hold terminal
// escape sequences (ESC, BEL, CR, bidirectional overrides), so every helper
// here bounds what it copies and escapes what is not printable, and a
// message built with them is short and safe to write to a terminal or a CI
// log.
package safetext

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	// MaxValueRunes is how many runes of a value Quote keeps.
	MaxValueRunes = 64
	// MaxTokenBytes is how long a value Token prints bare may be: enough
	// for a sha512 digest.
	MaxTokenBytes = 160
	// MaxReasonRunes is how many runes of an error's text Reason keeps.
	MaxReasonRunes = 256
	// MaxPathRunes is how many runes of a path QuotePath keeps: paths are
	// longer than other values, and their ends matter.
	MaxPathRunes = 256
	// MaxListItems is how many values of a list Join formats.
	MaxListItems = 8
	// Ellipsis marks a value or a text that was cut.
	Ellipsis = "…"
)

// Quote formats a value from a package for a message. A string is quoted
// as %q quotes it (Go syntax: control characters, terminal escapes and
// other runes that are not printable are escaped); when it is longer than
// MaxValueRunes runes, its first MaxValueRunes runes are quoted and an
// Ellipsis follows the closing quote. Any other value (a number, a boolean,
// a list or a map decoded from YAML) is formatted with %v, not quoted, so
// that a number does not read as a string, with the same escaping and cut.
func Quote(v any) string {
	s, isString := v.(string)
	if !isString {
		s = fmt.Sprint(v)
	}
	s, cut := Truncate(s, MaxValueRunes)
	if isString {
		s = strconv.Quote(s)
	} else {
		s = Escape(s)
	}
	if cut {
		s += Ellipsis
	}
	return s
}

// QuotePath is Quote for a file path, which it keeps up to MaxPathRunes
// runes: "a/b.yaml" is quoted as %q quotes it, escapes and all, and a
// longer path is cut with an Ellipsis after the closing quote.
func QuotePath(p string) string {
	s, cut := Truncate(p, MaxPathRunes)
	s = strconv.Quote(s)
	if cut {
		s += Ellipsis
	}
	return s
}

// Token formats a value from a package that a message prints bare, such as
// a kind, an apiVersion, a version, a media type, a digest or a path: a
// string of at most MaxTokenBytes printable ASCII characters other than a
// space, a quote mark or a backslash is printed as it is; any other value
// is formatted with Quote.
func Token(v any) string {
	if s, ok := v.(string); ok && PlainToken(s) {
		return s
	}
	return Quote(v)
}

// PlainToken reports whether Token prints s bare: s is not empty, has at
// most MaxTokenBytes bytes, and holds only printable ASCII characters other
// than a space, a quote mark or a backslash.
func PlainToken(s string) bool {
	if s == "" || len(s) > MaxTokenBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Join formats each of values with format (Quote or Token) and joins them
// with ", ". It formats at most MaxListItems values and says how many more
// there are (" and N more"), so its length is bounded whatever the number
// of values.
func Join(values []string, format func(any) string) string {
	var b strings.Builder
	for i, v := range values {
		if i == MaxListItems {
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

// Reason formats the text of an error for a message. Validators quote the
// values they embed with %q, so Reason shortens each double-quoted string
// longer than MaxValueRunes as Quote does; it then escapes runes that are
// not printable and cuts the text to MaxReasonRunes runes, between two
// words where it can, so that a URL is not cut in its middle.
func Reason(err error) string {
	return ReasonText(err.Error())
}

// ReasonText is Reason for an error's text.
func ReasonText(msg string) string {
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
		if s, err := strconv.Unquote(q); err == nil && utf8.RuneCountInString(s) > MaxValueRunes {
			b.WriteString(Quote(s))
		} else {
			b.WriteString(q)
		}
		msg = msg[len(q):]
	}
	s, cut := Truncate(Escape(b.String()), MaxReasonRunes)
	if cut {
		// Cut between words: a URL or a name cut in its middle reads as
		// a whole one that is wrong. A word longer than half the text is
		// cut where it is.
		if i := strings.LastIndexByte(s, ' '); i >= len(s)/2 {
			s = strings.TrimRight(s[:i], " ,;:")
		}
		s += Ellipsis
	}
	return s
}

// Truncate returns the first max runes of s, and whether it cut anything.
// An invalid UTF-8 byte counts as one rune.
func Truncate(s string, max int) (string, bool) {
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// Escape returns s with each rune that is not printable (by
// strconv.IsPrint: control characters, ESC, format characters such as a
// right-to-left override) and each invalid UTF-8 byte written as a Go
// escape sequence, such as \x1b or \u202e. Printable text is unchanged.
// Escape does not bound the length: see Quote, Token and ReasonText.
//
// Escape is the one escaping point of every text a user sees: the text and
// GitHub output formats (lintcmd/internal/report) and the checker's
// standard error (NewLineWriter) pass every value through it, whatever its
// origin (a YAML value, a CEL rule's message, a registry's answer, an
// error's text). JSON and SARIF are escaped by their encoders instead.
func Escape(s string) string {
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

// EscapeLines is Escape for a block of lines that the program formats
// itself (a dependency tree, say) with values from a package in it: each
// newline is kept and everything else Escape escapes is escaped.
func EscapeLines(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && (r == utf8.RuneError || !strconv.IsPrint(r)) }) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Escape(l)
	}
	return strings.Join(lines, "\n")
}

// NewLineWriter returns a writer that writes each Write to w as one line:
// the bytes written are escaped by Escape, except one trailing newline,
// which is kept. A newline inside a Write is escaped (as \n), so a value
// that holds one cannot start a line of its own: a forged diagnostic
// ("file:1:1: error …") or a GitHub workflow command ("::error …") stays
// inside the line it came in. fmt.Fprintf makes one Write per call, so a
// program that writes each message with one call, its own newline at the
// end, writes through it unchanged.
func NewLineWriter(w io.Writer) io.Writer {
	if lw, ok := w.(*lineWriter); ok {
		return lw
	}
	return &lineWriter{w: w}
}

type lineWriter struct{ w io.Writer }

func (l *lineWriter) Write(p []byte) (int, error) {
	s := string(p)
	body, nl := strings.CutSuffix(s, "\n")
	out := Escape(body)
	if nl {
		out += "\n"
	}
	if out == s {
		return l.w.Write(p)
	}
	if _, err := io.WriteString(l.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// ErrUnsafe is the class of the error CheckTerminal returns.
var ErrUnsafe = errors.New("text unsafe for a terminal")

// CheckTerminal returns an error (ErrUnsafe) that says where, when s holds
// a rune that Escape escapes other than a newline: a C0 or C1 control
// character (ESC, BEL, CR, a tab), DEL, a format character (a
// bidirectional override), a line or paragraph separator, or an invalid
// UTF-8 byte. Tests run every output a user reads through it.
func CheckTerminal(s string) error {
	line := 1
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			line++
		case r == utf8.RuneError && size == 1, !strconv.IsPrint(r):
			return fmt.Errorf("%w: line %d: %s", ErrUnsafe, line, strconv.QuoteRuneToASCII(r))
		}
		i += size
	}
	return nil
}
