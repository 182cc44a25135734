package deps

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Messages quote values from packages, which are untrusted: the helpers
// here bound what a message copies and escape what is not printable, as
// the linter's own messages do.

const (
	maxValueRunes  = 64
	maxReasonRunes = 256
	maxListItems   = 8
	ellipsis       = "…"
)

// quote quotes a value from a package, Go-escaped and cut to maxValueRunes.
func quote(s string) string {
	s, cut := truncate(s, maxValueRunes)
	s = strconv.Quote(s)
	if cut {
		s += ellipsis
	}
	return s
}

// shorten bounds an error's text and escapes what is not printable.
func shorten(s string) string {
	s, cut := truncate(s, maxReasonRunes)
	q := strconv.Quote(s)
	q = q[1 : len(q)-1]
	if cut {
		q += ellipsis
	}
	return q
}

// list quotes at most maxListItems values and says how many more there are.
func list(values []string, format func(string) string) string {
	var parts []string
	for i, v := range values {
		if i == maxListItems {
			parts = append(parts, strconv.Itoa(len(values)-i)+" more")
			break
		}
		parts = append(parts, format(v))
	}
	return strings.Join(parts, ", ")
}

func truncate(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	i := 0
	for k := 0; k < n; k++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i], true
}
