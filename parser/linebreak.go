package parser

import (
	"bytes"
	"fmt"
)

// YAML (go-yaml, and the go-yaml v2 that Crossplane decodes with) ends a
// line at \n, \r\n, a lone \r, NEL (U+0085), LINE SEPARATOR (U+2028) and
// PARAGRAPH SEPARATOR (U+2029). The splitter, like the Kubernetes YAML
// reader Crossplane splits package.yaml with (apimachinery's
// yaml.NewYAMLReader, in crossplane-runtime's pkg/parser), ends lines at \n
// only. The two disagree on a document holding one of the others: a
// `---` after a U+2028 starts a document for the YAML decoder (which then
// reads only the first of the two: Crossplane silently drops the second)
// but not for the splitter, and lines are numbered differently. Rather than
// read such a document one way when Crossplane reads it another, the parser
// refuses it: a syntax error at the character.

// checkLineBreaks returns a *DocumentError at the first line break of data
// that is not \n or \r\n, or nil.
func checkLineBreaks(loc locator) error {
	data := loc.data
	if bytes.HasPrefix(data, utf16LE) || bytes.HasPrefix(data, utf16BE) || bytes.HasPrefix(data, utf32BE) {
		// go-yaml would decode the rest of the stream as UTF-16.
		return &DocumentError{Pos: loc.base, Err: errUTF16}
	}
	at, what := -1, ""
	if i := lonelyCR(data); i >= 0 {
		at, what = i, `a carriage return (\r) not followed by \n`
	}
	for _, b := range [...]struct {
		seq  string
		name string
	}{
		{"\u0085", "NEL (U+0085)"},
		{"\u2028", "LINE SEPARATOR (U+2028)"},
		{"\u2029", "PARAGRAPH SEPARATOR (U+2029)"},
	} {
		lim := len(data)
		if at >= 0 {
			lim = at
		}
		if i := bytes.Index(data[:lim], []byte(b.seq)); i >= 0 {
			at, what = i, b.name
		}
	}
	if at < 0 {
		return nil
	}
	line := bytes.Count(data[:at], []byte("\n")) + 1
	bol := bytes.LastIndexByte(data[:at], '\n') + 1
	pos := loc.base
	pos.Offset += int64(at)
	if line == 1 {
		pos.Column += at
	} else {
		pos.Line += line - 1
		pos.Column = at - bol + 1
	}
	return &DocumentError{Pos: pos, Err: fmt.Errorf("%w: %s is a line break to YAML but not to the "+
		"document splitter of Kubernetes and Crossplane, which read the document differently: end lines with \\n", ErrSyntax, what)}
}

// lonelyCR returns the index of the first \r of data not followed by \n, or
// -1.
func lonelyCR(data []byte) int {
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\r')
		if i < 0 {
			return -1
		}
		off += i
		if off+1 >= len(data) || data[off+1] != '\n' {
			if off+1 == len(data) {
				// A final \r of the data: the splitter keeps a line's end
				// together, so this is the stream's last byte; YAML ends a
				// line there as the splitter does (at the end).
				return -1
			}
			return off
		}
		off++
	}
}
