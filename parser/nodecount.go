package parser

import "encoding/binary"

// Counting a document's nodes before parsing it.
//
// Parsing a document into a yaml.Node tree costs a few hundred bytes for
// each node, whatever its size: a long flow list of one-letter scalars
// ("[a,a,a,…]") costs about 160 times its bytes. go-yaml builds the whole
// tree before it returns, so the tree cannot be bounded while it is built.
// countNodes bounds it beforehand: one pass over the bytes, without
// allocating, computes a number that is never below the nodes go-yaml
// creates for the document (scalars, mappings, sequences, aliases, and the
// empty scalars it makes up for missing keys and values).
//
// The count is context-free on purpose: it does not try to tell a comment
// or a quoted string from structure (a scanner that did would have to agree
// with go-yaml's in every corner, or a crafted document would hide nodes in
// what the count takes for a string). Every node go-yaml creates is charged
// to bytes the count sees wherever they are:
//
//   - a scalar or alias token starts at the first non-blank byte of a line,
//     or right after an indicator (`-` `?` `:` `[` `{` `,` `]` `}` or a
//     quote, blanks between), or after a word starting with `&`, `!` or `*`
//     (a node property or an alias): each such byte counts 1. Prose inside
//     a scalar ("a b c") does not count, except after such an indicator;
//   - a block sequence entry (`-` followed by a blank) may open a sequence
//     and stand for an empty entry: 2;
//   - `?` and `:` may open a mapping and stand for an empty key and an
//     empty value: 3 each, but 2 for a `:` right after a plain word (which
//     is the key, or holds the colon);
//   - `[` and `{` open a collection: 2 each; `,` `]` `}` may close an entry
//     with an empty value: 1 each;
//   - `&` and `!` may give properties to an empty scalar: 1 each;
//   - the document, and the empty scalar it may be: 2.
//
// Real documents count two to three times their nodes (a CRD of 35 623
// nodes counts 85 190); the worst case for the bound is about one node per
// count (a flow mapping of keys without values).

// nodeCount is the result of countNodes.
type nodeCount struct {
	count int64
	// over is true when the count exceeded the limit given; line (1-based)
	// and off (the byte offset in the data) say where.
	over bool
	line int
	off  int
	bol  int // offset of the first byte of that line
}

// byte classes of countNodes.
const (
	cOther     = iota // part of a word
	cBlank            // space or tab
	cBreak            // \n or \r
	cDash             // -
	cKey              // ?
	cColon            // :
	cOpen             // [ {
	cClose            // ] } ,
	cQuote            // ' "
	cProp             // & !
	cAlias            // *
	cMultiByte        // first byte of NEL, LS, PS (0xC2, 0xE2)
)

var countClass = func() (t [256]uint8) {
	t[' '], t['\t'] = cBlank, cBlank
	t['\n'], t['\r'] = cBreak, cBreak
	t['-'] = cDash
	t['?'] = cKey
	t[':'] = cColon
	t['['], t['{'] = cOpen, cOpen
	t[']'], t['}'], t[','] = cClose, cClose, cClose
	t['\''], t['"'] = cQuote, cQuote
	t['&'], t['!'] = cProp, cProp
	t['*'] = cAlias
	t[0xC2], t[0xE2] = cMultiByte, cMultiByte
	return t
}()

// countNodes counts data's nodes as described above. When max > 0 it stops
// as soon as the count exceeds max and says where.
func countNodes(data []byte, max int64) nodeCount {
	var (
		n     int64 = 2 // the document, and the empty scalar it may hold
		line        = 1
		bol         = 0
		start       = true  // the next non-blank byte may start a token
		word        = false // inside a word (a run of non-blank bytes)
		prop        = false // the current word is a property or an alias
	)
	for i := 0; i < len(data); i++ {
		c := data[i]
		cls := countClass[c]
		if cls == cOther && (word || !start && c != 0xEF) {
			// Inside a word, ordinary bytes change nothing (a byte order
			// mark included), and a word in prose (after a blank, not
			// where a token may start) counts nothing: skip the run. Most
			// bytes of a document go here.
			if !word {
				word, prop = true, false
			}
			i = skipProse(data, i+1, prop) - 1
			continue
		}
		if cls == cBlank && !word {
			// Blanks between tokens (indentation, about half of a CRD's
			// bytes) change nothing: skip them, eight spaces at a time.
			for i+9 <= len(data) && binary.LittleEndian.Uint64(data[i+1:]) == swarSpace {
				i += 8
			}
			continue
		}
		switch {
		case cls == cMultiByte:
			// NEL (C2 85), LS (E2 80 A8) and PS (E2 80 A9) are line breaks
			// to go-yaml; anything else starting so is part of a word.
			cls = cOther
			if c == 0xC2 && i+1 < len(data) && data[i+1] == 0x85 ||
				c == 0xE2 && i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xA8 || data[i+2] == 0xA9) {
				cls = cBreak
			}
		case c == 0xEF && i+2 < len(data) && data[i+1] == 0xBB && data[i+2] == 0xBF:
			// go-yaml skips a byte order mark at the start of a line: it
			// changes nothing here, wherever it is.
			i += 2
			continue
		case c == '-' && i == bol && i+3 <= len(data) && data[i+1] == '-' && data[i+2] == '-' &&
			(i+3 == len(data) || countClass[data[i+3]] == cBlank || countClass[data[i+3]] == cBreak):
			// A document start marker carrying content ("--- |"): the
			// content is a token.
			i += 2
			start, word, prop = true, false, false
			continue
		case cls == cDash && !(i+1 == len(data) || countClass[data[i+1]] == cBlank || countClass[data[i+1]] == cBreak):
			cls = cOther // "-x" is a word, not a sequence entry
		}
		var add int64
		switch cls {
		case cBlank:
			if word {
				word = false
				start = prop // a node may follow a property or an alias
			}
			continue
		case cBreak:
			line++
			bol = i + 1
			start, word, prop = true, false, false
			continue
		case cOther, cAlias, cQuote:
			if start {
				add = 1 // a scalar or an alias may start here
			}
		case cDash:
			add = 2
		case cKey:
			add = 3
		case cColon:
			add = 3
			if word && !prop {
				// Right after a plain word: the word is the key (or the
				// colon is part of it), so no empty key: a mapping and an
				// empty value at most.
				add = 2
			}
		case cOpen:
			add = 2
		case cClose, cProp:
			add = 1
			if start && cls == cProp {
				add++ // the property starts a word that may be a scalar
			}
		}
		switch cls {
		case cOther, cAlias, cProp:
			if !word {
				word, prop = true, cls != cOther
			}
			start = false
		default: // indicators and quotes: the next byte may start a token
			word, prop, start = false, false, true
		}
		if add == 0 {
			continue
		}
		n += add
		if max > 0 && n > max {
			return nodeCount{count: n, over: true, line: line, off: i, bol: bol}
		}
	}
	return nodeCount{count: n}
}

// skipProse returns the end of the run of words starting at i, inside a
// word (a property or an alias when prop): its ordinary bytes, and, unless
// prop, blanks followed by another plain word of prose, which countNodes
// would step through one byte at a time to the same state (inside a word,
// not a property, no token to start). It stops at the first byte that may
// change countNodes' state.
func skipProse(data []byte, i int, prop bool) int {
	for i < len(data) {
		k := countClass[data[i]]
		if k == cOther {
			i++
			continue
		}
		if k != cBlank || prop {
			return i
		}
		// Blanks end the word (word false, start = prop = false) and
		// change nothing more; a word that follows them is prose unless
		// it starts with the byte order mark's first byte.
		j := i + 1
		for j < len(data) && countClass[data[j]] == cBlank {
			j++
		}
		if j == len(data) || countClass[data[j]] != cOther || data[j] == 0xEF {
			return i
		}
		i = j + 1
	}
	return i
}
