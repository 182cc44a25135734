package lsp

import (
	"strings"
)

// The server reads the structure around a cursor from the text's
// indentation, line by line, so that it answers on YAML being typed, which
// is often not valid: a key without its colon, a half-written list. Flow
// collections ({...}, [...]) are read as scalar values.

// maxContextLines bounds the lines of one document the server scans for a
// cursor's context; beyond it (a document of a 100 MB file, say) the
// context is what the scanned lines give.
const maxContextLines = 200000

// maxMappingScan bounds the lines mappingValues and siblingKeys read for
// one mapping, and maxPathDepth the ancestors of a cursor the server reads
// the kinds of: a request costs at most their product, never lines times
// depth of a hostile document.
const (
	maxMappingScan = 20000
	maxPathDepth   = 64
)

// yline is what one line of YAML holds for the scanner.
type yline struct {
	blank  bool   // empty, a comment, or the content of a block scalar
	sep    bool   // a document separator (---) or end (...)
	dashes []int  // columns of the "- " item markers, left to right
	keyCol int    // column of the key; -1 when the line has no key
	key    string // the key, unquoted
	value  string // the text after "key:", trimmed, without a comment
	valCol int    // column of the value (or of the first content when no key)
	first  int    // column of the first non-space character
}

// scanLine reads one line.
func scanLine(s string) yline {
	l := yline{keyCol: -1}
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
	}
	l.first = i
	rest := strings.TrimRight(s[i:], " \t\r")
	if rest == "" || rest[0] == '#' {
		l.blank = true
		return l
	}
	if i == 0 && (rest == "---" || strings.HasPrefix(rest, "--- ") || rest == "...") {
		l.sep = true
		return l
	}
	for len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ') {
		l.dashes = append(l.dashes, i)
		j := 1
		for j < len(rest) && rest[j] == ' ' {
			j++
		}
		i += j
		rest = rest[j:]
	}
	l.valCol = i
	if rest == "" {
		return l
	}
	key, after, ok := splitKey(rest)
	if !ok {
		l.value = stripComment(rest)
		return l
	}
	l.keyCol, l.key = i, key
	v := strings.TrimLeft(after, " ")
	l.valCol = i + (len(rest) - len(v))
	l.value = stripComment(v)
	return l
}

// splitKey splits "key: value" (or "key:") at the mapping's colon, the key
// plain or quoted; ok is false when the text holds no key.
func splitKey(s string) (key, after string, ok bool) {
	if s[0] == '{' || s[0] == '[' || s[0] == '|' || s[0] == '>' || s[0] == '#' {
		return "", "", false
	}
	if q := s[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(s[1:], q)
		if end < 0 {
			return "", "", false
		}
		rest := s[end+2:]
		if !strings.HasPrefix(rest, ":") || (len(rest) > 1 && rest[1] != ' ') {
			return "", "", false
		}
		return s[1 : end+1], rest[1:], true
	}
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case ':':
			if j+1 == len(s) || s[j+1] == ' ' || s[j+1] == '\t' {
				return strings.TrimSpace(s[:j]), s[j+1:], true
			}
		case '#':
			if j > 0 && s[j-1] == ' ' {
				return "", "", false
			}
		}
	}
	return "", "", false
}

// stripComment drops a trailing comment and quotes from a scalar.
func stripComment(v string) string {
	if v == "" {
		return v
	}
	if q := v[0]; q == '"' || q == '\'' {
		if end := strings.IndexByte(v[1:], q); end >= 0 {
			return v[1 : end+1]
		}
		return v[1:]
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

// docLines holds the scanned lines of the document around a line.
type docLines struct {
	start int     // the first line of the document (0-based)
	lines []yline // from start to the document's end
	texts []string
}

// scanDocument scans the document of text that holds line (0-based),
// marking the content of block scalars blank.
func scanDocument(text string, line int) *docLines {
	all := strings.Split(text, "\n")
	if line >= len(all) {
		line = len(all) - 1
	}
	if line < 0 {
		line = 0
	}
	start := 0
	for i := line; i >= 0 && line-i < maxContextLines; i-- {
		if i < line && isSep(all[i]) {
			start = i + 1
			break
		}
		start = i
	}
	end := len(all)
	for i := line + 1; i < len(all) && i-line < maxContextLines; i++ {
		if isSep(all[i]) {
			end = i
			break
		}
		end = i + 1
	}
	d := &docLines{start: start, texts: all[start:end]}
	blockCol := -1 // the key column of an open block scalar
	for _, t := range d.texts {
		l := scanLine(t)
		if blockCol >= 0 {
			if l.blank || l.first > blockCol {
				d.lines = append(d.lines, yline{blank: true, keyCol: -1, first: l.first})
				continue
			}
			blockCol = -1
		}
		if v := l.value; v != "" && (v[0] == '|' || v[0] == '>') && l.keyCol >= 0 {
			blockCol = l.keyCol
			if len(l.dashes) > 0 {
				blockCol = l.dashes[0]
			}
		} else if v != "" && (v[0] == '|' || v[0] == '>') && len(l.dashes) > 0 {
			blockCol = l.dashes[len(l.dashes)-1]
		}
		d.lines = append(d.lines, l)
	}
	return d
}

func isSep(s string) bool {
	s = strings.TrimRight(s, " \t\r")
	return s == "---" || strings.HasPrefix(s, "--- ") || s == "..."
}

// elem is one step of the path to a cursor: a key, or an item of a
// sequence.
type elem struct {
	key  string // "" for an item
	item bool
	line int // index in docLines.lines
	col  int // the key's or the dash's column
}

// cursorMode says what the cursor is on.
type cursorMode int

const (
	onKey      cursorMode = iota // on an existing key
	onValue                      // on the value of a key
	onNewKey                     // where a key may be typed (a blank or partial line)
	onItemText                   // on a scalar item of a sequence
)

// cursor is the context of a position in a document.
type cursor struct {
	doc    *docLines
	mode   cursorMode
	line   int    // index in doc.lines
	key    string // the key under the cursor (onKey, onValue)
	prefix string // the text typed before the cursor (onNewKey, onValue)
	// path holds the ancestors of the cursor's mapping, outermost first:
	// the cursor's key (or the key being typed) is a child of the mapping
	// the last element opens (the document's root mapping when empty).
	path []elem
	// keyRange is the span of the key or value under the cursor, in bytes
	// of its line: [from, to).
	from, to int
}

// cursorAt returns the context of (line, col) in text, col in bytes.
func cursorAt(text string, line, col int) *cursor {
	d := scanDocument(text, line)
	li := line - d.start
	if li < 0 || li >= len(d.lines) {
		return nil
	}
	l := d.lines[li]
	t := d.texts[li]
	col = min(max(col, 0), len(t))
	c := &cursor{doc: d, line: li}
	target := col // the column of the node the cursor is in
	switch {
	case l.keyCol >= 0 && col <= l.keyCol+len(l.key)+1 && col >= l.keyCol:
		c.mode, c.key, target = onKey, l.key, l.keyCol
		c.from, c.to = l.keyCol, l.keyCol+len(l.key)
	case l.keyCol >= 0 && col > l.keyCol+len(l.key):
		c.mode, c.key, target = onValue, l.key, l.keyCol
		c.from, c.to = l.valCol, len(strings.TrimRight(t, " \r"))
		if col >= l.valCol {
			c.prefix = t[l.valCol:col]
		}
	default:
		c.mode = onNewKey
		// The word being typed: from the first character after the
		// indentation and dashes to the cursor.
		start := l.valCol
		if l.blank {
			start = col
		}
		start = min(start, col)
		c.prefix = strings.TrimSpace(t[start:col])
		c.from, c.to = start, col
		target = start
		if l.blank || strings.TrimSpace(t[:col]) == "" {
			target = col
		}
		if len(l.dashes) > 0 && l.keyCol < 0 && l.value != "" && !l.blank && strings.Contains(l.value, " ") {
			c.mode = onItemText
		}
	}
	// Dashes on the cursor's own line left of the target are its items.
	var own []elem
	for i := len(l.dashes) - 1; i >= 0; i-- {
		if l.dashes[i] < target && !(l.blank) {
			own = append(own, elem{item: true, line: li, col: l.dashes[i]})
		}
	}
	indent := target
	afterItem := false
	if len(own) > 0 {
		indent = own[len(own)-1].col
		afterItem = true
	}
	var up []elem
	up = append(up, own...)
	for i := li - 1; i >= 0; i-- {
		p := d.lines[i]
		if p.blank || p.sep {
			continue
		}
		if indent == 0 && !afterItem {
			break
		}
		// The line's structure, rightmost first: its key, then its dashes.
		pushed := false
		lowest := indent
		if p.keyCol >= 0 && (p.keyCol < indent || (afterItem && p.keyCol == indent && p.value == "")) {
			up = append(up, elem{key: p.key, line: i, col: p.keyCol})
			pushed, lowest = true, p.keyCol
		}
		limit := indent
		if pushed {
			limit = p.keyCol
		} else if p.keyCol >= 0 && p.keyCol == indent {
			limit = indent // a sibling: its dashes are our items
		}
		for j := len(p.dashes) - 1; j >= 0; j-- {
			if p.dashes[j] < limit || (!pushed && p.keyCol < 0 && p.dashes[j] < indent) {
				up = append(up, elem{item: true, line: i, col: p.dashes[j]})
				pushed, lowest = true, p.dashes[j]
				limit = p.dashes[j]
			}
		}
		if pushed {
			afterItem = up[len(up)-1].item
			indent = lowest
		}
	}
	for i, j := 0, len(up)-1; i < j; i, j = i+1, j-1 {
		up[i], up[j] = up[j], up[i]
	}
	c.path = up
	return c
}

// keys returns the path's keys and items as schema path elements ("[]"
// for an item).
func keys(path []elem) []string {
	out := make([]string, 0, len(path))
	for _, e := range path {
		if e.item {
			out = append(out, "[]")
		} else {
			out = append(out, e.key)
		}
	}
	return out
}

// mappingValues returns the scalar values of the keys of the mapping that
// e opens (nil e: the document's root mapping), for the keys wanted.
func (d *docLines) mappingValues(e *elem, want ...string) map[string]string {
	out := map[string]string{}
	first, childCol, parentCol := 0, -1, -1
	if e != nil {
		first, parentCol = e.line, e.col
		if e.item {
			// The item's mapping starts on the dash's line.
			l := d.lines[e.line]
			for k, dc := range l.dashes {
				if dc == e.col {
					if k+1 < len(l.dashes) {
						return out // an item holding a sequence
					}
					if l.keyCol >= 0 {
						childCol = l.keyCol
						if slicesContains(want, l.key) {
							out[l.key] = l.value
						}
					}
				}
			}
		}
		first++
	}
	for i := first; i < len(d.lines) && i-first < maxMappingScan; i++ {
		l := d.lines[i]
		if l.blank || l.sep {
			continue
		}
		col := l.first
		if col <= parentCol {
			break
		}
		if len(l.dashes) > 0 {
			if childCol < 0 || l.dashes[0] < childCol {
				if childCol < 0 && e != nil && !e.item {
					return out // the key holds a sequence
				}
				if l.dashes[0] <= childCol || childCol < 0 {
					break
				}
			}
			continue
		}
		if childCol < 0 {
			childCol = col
		}
		if col != childCol || l.keyCol < 0 {
			continue
		}
		if slicesContains(want, l.key) {
			if _, dup := out[l.key]; !dup {
				out[l.key] = l.value
			}
		}
	}
	return out
}

// siblingKeys returns the keys of the mapping that holds the cursor, for
// completion to leave out.
func (c *cursor) siblingKeys() map[string]bool {
	out := map[string]bool{}
	var e *elem
	if len(c.path) > 0 {
		e = &c.path[len(c.path)-1]
	}
	d := c.doc
	first, parentCol, childCol := 0, -1, -1
	if e != nil {
		first, parentCol = e.line+1, e.col
		if e.item {
			l := d.lines[e.line]
			if l.keyCol >= 0 && e.line != c.line {
				out[l.key] = true
				childCol = l.keyCol
			}
		}
	}
	for i := first; i < len(d.lines) && i-first < maxMappingScan; i++ {
		l := d.lines[i]
		if l.blank || l.sep || i == c.line {
			continue
		}
		if l.first <= parentCol || (len(l.dashes) > 0 && e != nil && e.item && l.dashes[0] <= parentCol) {
			break
		}
		if len(l.dashes) > 0 {
			continue
		}
		if childCol < 0 {
			childCol = l.first
		}
		if l.keyCol == childCol {
			out[l.key] = true
		}
	}
	return out
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
