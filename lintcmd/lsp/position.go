package lsp

import (
	"strings"
	"unicode/utf16"
)

// Positions: LSP counts lines from 0 and characters in UTF-16 code units;
// the parser counts lines from 1 and columns in bytes from 1.

// lineIndex holds the byte offset at which each line of a text starts.
type lineIndex struct {
	text   string
	starts []int
}

func newLineIndex(text string) *lineIndex {
	starts := make([]int, 1, strings.Count(text, "\n")+1)
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{text: text, starts: starts}
}

// line returns the text of line n (0-based) without its line break.
func (x *lineIndex) line(n int) string {
	if n < 0 || n >= len(x.starts) {
		return ""
	}
	end := len(x.text)
	if n+1 < len(x.starts) {
		end = x.starts[n+1] - 1
	}
	return strings.TrimSuffix(x.text[x.starts[n]:end], "\r")
}

// position returns the LSP position of a byte offset.
func (x *lineIndex) position(off int) position {
	off = min(max(off, 0), len(x.text))
	// The last line starting at or before off.
	lo, hi := 0, len(x.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if x.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return position{Line: lo, Character: utf16Len(x.text[x.starts[lo]:off])}
}

// offset returns the byte offset of an LSP position (clamped to its line).
func (x *lineIndex) offset(p position) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(x.starts) {
		return len(x.text)
	}
	l := x.line(p.Line)
	return x.starts[p.Line] + byteCol(l, p.Character)
}

// offsetOf is offset over a text without an index.
func offsetOf(text string, p position) int {
	return newLineIndex(text).offset(p)
}

// utf16Len counts the UTF-16 code units of s.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// byteCol returns the byte offset in line of a UTF-16 character offset.
func byteCol(line string, char int) int {
	n := 0
	for i, r := range line {
		if n >= char {
			return i
		}
		n += utf16.RuneLen(r)
	}
	return len(line)
}
