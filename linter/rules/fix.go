package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"bytes"
	"fmt"

	"github.com/xpkgkit/xpkgkit/parser"
)

// scalarSpan is where the one-line scalar value of a "key: value" field is
// in its file: the key's offset, the value's bounds, the value's text as
// written (quotes included), and the key's column.
type scalarSpan struct {
	key, start, end int64
	text            string
	column          int
}

// valueSpan finds the one-line scalar value of the field at path of obj,
// from the position of its key in the object's raw bytes. It fails (false)
// when the value is not a plain or quoted scalar on the key's line, or the
// raw bytes were not kept.
//
// loc, when not nil, is obj's FieldLocator: a rule fixing many fields of
// one object parses it once.
func valueSpan(obj *parser.Object, loc *parser.FieldLocator, path ...string) (scalarSpan, bool) {
	raw := obj.Raw()
	var pos parser.Position
	var err error
	if loc != nil {
		pos, err = loc.FieldPosition(path...)
	} else {
		pos, err = obj.FieldPosition(path...)
	}
	if raw == nil || err != nil || pos.Offset < obj.RawOffset() {
		return scalarSpan{}, false
	}
	i := int(pos.Offset - obj.RawOffset())
	if i >= len(raw) {
		return scalarSpan{}, false
	}
	line := raw[i:]
	if nl := bytes.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	// The key: plain, or quoted (a quoted key holds no ": ").
	colon := bytes.Index(line, []byte(": "))
	if colon < 0 {
		return scalarSpan{}, false
	}
	j := colon + 2
	for j < len(line) && line[j] == ' ' {
		j++
	}
	rest := line[j:]
	if len(rest) == 0 {
		return scalarSpan{}, false
	}
	var n int
	switch rest[0] {
	case '"':
		n = closingQuote(rest, '"')
	case '\'':
		n = closingQuote(rest, '\'')
	case '|', '>', '[', '{', '&', '*', '!', '#', '%', '@', '`':
		return scalarSpan{}, false
	default:
		n = len(rest)
		if c := bytes.Index(rest, []byte(" #")); c >= 0 {
			n = c
		}
		for n > 0 && (rest[n-1] == ' ' || rest[n-1] == '\t') {
			n--
		}
	}
	if n <= 0 {
		return scalarSpan{}, false
	}
	start := pos.Offset + int64(j)
	return scalarSpan{key: pos.Offset, start: start, end: start + int64(n), text: string(rest[:n]), column: pos.Column}, true
}

// closingQuote returns the length of the quoted scalar at the start of s
// (quotes included), 0 when it does not close on the line.
func closingQuote(s []byte, q byte) int {
	for i := 1; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case s[i] == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i] == q:
			return i + 1
		}
	}
	return 0
}

// replaceValueFix returns a fix that replaces the value of the field at
// path of obj with text, nil when the value cannot be found.
func replaceValueFix(obj *parser.Object, message, text string, path ...string) *linter.SuggestedFix {
	sp, ok := valueSpan(obj, nil, path...)
	if !ok {
		return nil
	}
	return &linter.SuggestedFix{Message: message, TextEdits: []linter.TextEdit{{File: obj.Pos.File, Offset: sp.start, End: sp.end, NewText: text}}}
}

// replaceFieldFix returns a fix that replaces a whole "key: value" field
// (from its key to the end of its value) with the fields given, one per
// line at the key's indentation; nil when the value cannot be found.
func replaceFieldFix(obj *parser.Object, loc *parser.FieldLocator, message string, fields [][2]string, path ...string) *linter.SuggestedFix {
	sp, ok := valueSpan(obj, loc, path...)
	if !ok || len(fields) == 0 || sp.column < 1 {
		return nil
	}
	var b bytes.Buffer
	for i, f := range fields {
		if i > 0 {
			b.WriteByte('\n')
			b.Write(bytes.Repeat([]byte(" "), sp.column-1))
		}
		fmt.Fprintf(&b, "%s: %s", f[0], f[1])
	}
	return &linter.SuggestedFix{Message: message, TextEdits: []linter.TextEdit{{File: obj.Pos.File, Offset: sp.key, End: sp.end, NewText: b.String()}}}
}

// valueText returns the value of the field at path as written (quotes
// included), "" when it cannot be found.
func valueText(obj *parser.Object, loc *parser.FieldLocator, path ...string) string {
	sp, ok := valueSpan(obj, loc, path...)
	if !ok {
		return ""
	}
	return sp.text
}

// deleteFieldFix returns a fix that deletes the field at path of obj: its
// key's line and every following line indented deeper (blank lines and
// comments inside included); nil when the field cannot be found or does
// not start its line.
func deleteFieldFix(obj *parser.Object, message string, path ...string) *linter.SuggestedFix {
	raw := obj.Raw()
	pos, err := obj.FieldPosition(path...)
	if raw == nil || err != nil || pos.Column < 1 || pos.Offset < obj.RawOffset() {
		return nil
	}
	key := int(pos.Offset - obj.RawOffset())
	start := key - (pos.Column - 1)
	if key >= len(raw) || start < 0 || len(bytes.TrimLeft(raw[start:key], " ")) != 0 {
		return nil // the key does not start its line (a "- key:" entry)
	}
	indent := pos.Column - 1
	end := bytes.IndexByte(raw[key:], '\n')
	if end < 0 {
		end = len(raw)
	} else {
		end += key + 1
	}
	for end < len(raw) {
		next := bytes.IndexByte(raw[end:], '\n')
		line := raw[end:]
		if next >= 0 {
			line = raw[end : end+next+1]
		}
		body := bytes.TrimLeft(line, " ")
		if t := bytes.TrimSpace(body); len(t) > 0 && len(line)-len(body) <= indent {
			break // a line of the parent mapping (or a comment at its level)
		}
		end += len(line)
	}
	base := obj.RawOffset()
	return &linter.SuggestedFix{Message: message, TextEdits: []linter.TextEdit{{File: obj.Pos.File, Offset: base + int64(start), End: base + int64(end)}}}
}
