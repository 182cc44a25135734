package parser

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/xpkgkit/xpkgkit/limit"
)

// locator maps a position inside a document's data, as go-yaml reports it
// (1-based line in the data, 1-based column in characters), to a position
// in the stream (line in the file, column in bytes, byte offset).
type locator struct {
	data []byte
	base Position // the position of data[0], with the document's index
	// starts, when not nil, holds the offset in data of each line's start
	// (starts[0] is line 1), so that at costs no scan of the lines before:
	// a FieldLocator asked for thousands of fields of one document would
	// otherwise scan it once per field.
	starts []int
}

// indexLines fills l.starts.
func (l *locator) indexLines() {
	starts := make([]int, 1, bytes.Count(l.data, []byte{'\n'})+1)
	for i, c := range l.data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	l.starts = starts
}

// at returns the stream position of line and column (0 for the line's
// start) of the data. Positions past the data's end stay on the base.
func (l locator) at(line, col int) Position {
	p := l.base
	if line < 1 {
		return p
	}
	start := 0
	if l.starts != nil {
		if line > len(l.starts) {
			return p
		}
		start = l.starts[line-1]
	} else {
		for i := 1; i < line; i++ {
			j := bytes.IndexByte(l.data[start:], '\n')
			if j < 0 {
				return p
			}
			start += j + 1
		}
	}
	text := l.data[start:]
	if j := bytes.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	b := 0
	for c := 1; c < col && b < len(text); c++ {
		_, size := utf8.DecodeRune(text[b:])
		b += size
	}
	p.Line = l.base.Line + line - 1
	p.Column = b + 1
	p.Offset = l.base.Offset + int64(start+b)
	return p
}

// node returns the stream position of a node.
func (l locator) node(n *yaml.Node) Position { return l.at(n.Line, n.Column) }

// errAt returns err as a *DocumentError at node n (at the document's start
// when n is nil). An error that already is a *DocumentError is kept.
func (l locator) errAt(n *yaml.Node, err error) error {
	var de *DocumentError
	if errors.As(err, &de) {
		return err
	}
	pos := l.base
	if n != nil {
		pos = l.node(n)
	}
	var le *limit.Error
	if errors.As(err, &le) {
		le.Pos = pos
	}
	return &DocumentError{Pos: pos, Err: err}
}

// errorf is errAt with a formatted error.
func (l locator) errorf(n *yaml.Node, format string, args ...any) error {
	return l.errAt(n, fmt.Errorf(format, args...))
}
