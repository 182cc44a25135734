package parser

// The fast path: most of a provider's bytes are CRD documents in plain
// block YAML (block mappings and sequences, one-line plain and quoted
// scalars, literal block scalars), of which the parser keeps only the type,
// the metadata and a depth-limited outline. Building their whole yaml.Node
// tree to read that costs most of a parse. fastDecode reads such a document
// in one pass over its lines instead, validating every line and building
// values only where the outline and the metadata need them.
//
// It is an optimisation, never a second opinion: it accepts only a strict
// subset of YAML whose meaning it knows to be go-yaml's, and gives up (ok
// false) on anything else: a tab, a carriage return, a character go-yaml
// would refuse or treat specially, comments after the content starts,
// anchors, aliases, tags, flow collections other than {} and [], folded or
// indicator-carrying block scalars, multi-line plain or quoted scalars,
// quoted keys, keys that are not plain words, duplicate keys, a document
// over MaxDepth, a kind a scheme decodes (the meta object, typed objects).
// The document then goes through the full parse, which also owns every
// error: the fast path reports none. TestFastPathEquivalence and
// FuzzFastPath hold the two paths to the same result.

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// fline is one line of a document: data[start:end] without its line end.
type fline struct {
	start, end int
	indent     int  // leading spaces
	blank      bool // nothing but spaces
}

// fastParser reads one document.
type fastParser struct {
	data     []byte
	lines    []fline
	i        int // next line
	maxDepth int // outline depth (converter depth of the deepest built container)
	limDepth int // Limits.MaxDepth, 0 for none
	failed   bool
	deepest  int // the converter depth of the deepest container built
	// unsure says that a container not built holds a key or a scalar
	// the conversion refuses (keyOK, resolveScalar), which the fast path
	// gives up on where it builds them: fastContent would give up on the
	// document (fastResult.content).
	unsure bool

	// share, when not nil, hands out one value for equal outline
	// containers (fastshare.go). After value, mapping or sequence,
	// lastState says whether the value returned may be shared
	// (shareYes, its hash in lastHash) or not (shareNo).
	share     *sharer
	lastState int
	lastHash  uint64
}

// The states of fastParser.lastState.
const (
	shareUnset = iota
	shareYes
	shareNo
)

// fastResult is what the fast path read of a document.
type fastResult struct {
	apiVersion, kind string
	meta             any // the metadata value, fully converted; nil when absent
	hasMeta          bool
	outline          map[string]any
	// content says that fastContent reads the document too: the pass
	// checked all that building every container checks (Object.fast).
	content bool
}

// fastLines splits data into lines and checks that every byte is one the
// fast path understands.
func fastLines(data []byte, lines []fline) ([]fline, bool) {
	start := 0
	for start <= len(data) {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += start
		}
		l := fline{start: start, end: end}
		for l.indent+8 <= end-start && binary.LittleEndian.Uint64(data[start+l.indent:]) == swarSpace {
			l.indent += 8
		}
		for l.indent < end-start && data[start+l.indent] == ' ' {
			l.indent++
		}
		l.blank = l.indent == end-start
		for i := start + l.indent; i < end; {
			// Eight bytes at a time while they are all printable ASCII
			// (the bulk of a document); anything else is looked at byte
			// by byte below.
			if end-i >= 8 && printableASCII(binary.LittleEndian.Uint64(data[i:])) {
				i += 8
				continue
			}
			c := data[i]
			if c >= 0x20 && c < 0x7F {
				i++
				continue
			}
			if c < 0x80 {
				return nil, false // tab, carriage return, control character, DEL
			}
			r, n := utf8.DecodeRune(data[i:end])
			if r == utf8.RuneError || !(r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF || r >= 0x10000 && r <= 0x10FFFF) {
				return nil, false
			}
			i += n
		}
		lines = append(lines, l)
		if end == len(data) {
			break
		}
		start = end + 1
	}
	return lines, true
}

// Constants of printableASCII: every byte 0x01, 0x20 and 0x80.
const (
	swarOnes  = 0x0101010101010101
	swarSpace = 0x2020202020202020
	swarHigh  = 0x8080808080808080
)

// printableASCII reports whether all eight bytes of w are printable ASCII
// (0x20 to 0x7E), which fastLines lets through without a look. A byte
// below 0x20 borrows in w-swarSpace and sets its high bit there while it
// is clear in w (the borrow can set a higher byte's bit too, but only when
// a byte below 0x20 is there, and the answer is false then anyway); a
// byte of 0x7F or more has its high bit set in w+swarOnes or in w (a carry
// out of a byte comes only from 0xFF, which w shows).
func printableASCII(w uint64) bool {
	return (w-swarSpace)&^w&swarHigh == 0 && (w|(w+swarOnes))&swarHigh == 0
}

// fastDecode reads data with the fast path; ok is false when the document
// must go through the full parse.
// With share, the outline's containers are shared with the other outlines
// share has seen.
func fastDecode(data []byte, outlineDepth, limDepth int, share *sharer) (r fastResult, ok bool) {
	lines, ok := fastLines(data, make([]fline, 0, bytes.Count(data, []byte{'\n'})+1))
	if !ok {
		return r, false
	}
	p := &fastParser{data: data, lines: lines, maxDepth: outlineDepth, limDepth: limDepth, share: share}
	switch {
	case outlineDepth == fastContentDepth:
		p.maxDepth = -1 // the whole content (fastContent)
	case outlineDepth < 0:
		p.maxDepth = -2 // no outline: build nothing but the metadata
	}
	// Blank lines and comments may precede the content; nothing else.
	for p.i < len(lines) {
		l := lines[p.i]
		if l.blank || data[l.start+l.indent] == '#' {
			p.i++
			continue
		}
		break
	}
	if p.i == len(lines) || lines[p.i].indent != 0 {
		return r, false
	}
	root := p.mapping(0, 0, 0, &r)
	if p.failed || p.next() < len(lines) {
		return r, false
	}
	if r.apiVersion == "" || r.kind == "" {
		return r, false
	}
	if outlineDepth >= 0 || outlineDepth == fastContentDepth {
		r.outline = root
	}
	r.content = !p.unsure
	return r, true
}

// fastContentDepth, as fastDecode's outline depth, builds the whole
// document: the outline is then the object's content.
const fastContentDepth = -1 << 30

// fastContent reads a whole document with the fast path, as
// toUnstructured converts its full parse; ok is false when the document
// must go through the full parse. It checks only what the fast path
// checks (its subset of YAML, MaxDepth): the caller has checked the
// document's line breaks and node count (MaxNodes) against the limits.
// Where the pass that read the document for its outline succeeded and
// said content, it succeeds too: the two differ only in the containers
// they build, and that pass noted what it did not check in the others
// (fastParser.unsure).
func fastContent(data []byte, limDepth int) (map[string]any, bool) {
	r, ok := fastDecode(data, fastContentDepth, limDepth, nil) // the caller's to modify: nothing shared
	if !ok {
		return nil, false
	}
	return r.outline, true
}

func (p *fastParser) fail() { p.failed = true }

// next skips blank lines and returns the index of the next line with
// content; a comment line there gives up.
func (p *fastParser) next() int {
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if !l.blank {
			if p.data[l.start+l.indent] == '#' {
				p.fail()
				return len(p.lines)
			}
			return p.i
		}
		p.i++
	}
	return p.i
}

// isSeqEntry reports whether line l starts a block sequence entry ("-"
// followed by a space or the line end) at its indentation.
func (p *fastParser) isSeqEntry(l fline) bool {
	j := l.start + l.indent
	return p.data[j] == '-' && (j+1 == l.end || p.data[j+1] == ' ')
}

// build reports whether a container at converter depth d is built:
// maxDepth -1 builds every container, below -1 none.
func (p *fastParser) build(d int) bool {
	b := p.maxDepth == -1 || d <= p.maxDepth
	if b && d > p.deepest {
		p.deepest = d
	}
	return b
}

// checkDepth gives up on a container at converter depth d that the checker
// would refuse (its depth counts from 1).
func (p *fastParser) checkDepth(d int) {
	if p.limDepth > 0 && d+1 > p.limDepth {
		p.fail()
	}
}

// keyAt reads a mapping key at data[j:end]: a plain word followed by ':'
// and a space or the line end. It returns the key and the offset after the
// colon.
func (p *fastParser) keyAt(j, end int) ([]byte, int, bool) {
	k := j
	for k < end {
		c := p.data[k]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' ||
			k > j && (c >= '0' && c <= '9' || c == '-' || c == '.' || c == '/') {
			k++
			continue
		}
		break
	}
	if k == j || k == end || p.data[k] != ':' || k+1 < end && p.data[k+1] != ' ' || k-j > 512 {
		return nil, 0, false
	}
	return p.data[j:k], k + 1, true
}

// keyOK reports whether a key converts to itself (not true, 1e3, ...).
func keyOK(key string) bool {
	ks, err := keyString(&yaml.Node{Kind: yaml.ScalarNode, Value: key})
	return err == nil && ks == key
}

// commonKey returns kb as one of the keys most documents of a package
// repeat (commonKeys), as a string that is not allocated again for each,
// or false.
func commonKey(kb []byte) (string, bool) {
	k, ok := commonKeys[string(kb)]
	return k, ok
}

// commonKeys are a CRD's schema keywords and a managed resource's most
// frequent fields, each mapped to itself. Each is a key keyOK lets
// through (TestCommonKeys).
var commonKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"description", "type", "properties", "items", "required", "format", "enum", "default",
		"additionalProperties", "x-kubernetes-validations", "x-kubernetes-list-type", "x-kubernetes-map-type",
		"x-kubernetes-list-map-keys", "x-kubernetes-preserve-unknown-fields", "rule", "message", "name",
		"namespace", "policy", "resolution", "resolve", "matchLabels", "matchControllerRef", "region", "tags",
		"maxItems", "minItems", "jsonPath", "apiVersion", "kind", "metadata", "spec", "status",
	} {
		m[k] = k
	}
	return m
}()

// mapping reads a block mapping whose keys are at column indent, the first
// at column col of line p.i, as a container at converter depth d. root,
// when not nil, receives the top-level fields.
func (p *fastParser) mapping(indent, col, d int, root *fastResult) map[string]any {
	p.checkDepth(d)
	var m map[string]any
	build := p.build(d)
	if build {
		m = map[string]any{}
	}
	// The keys so far, to find a duplicate: on the stack for the usual
	// mapping (a schema's few keys), a set beyond 32.
	var keysBuf [16][]byte
	keys := keysBuf[:0]
	var keySet map[string]bool
	first := true
	shareable, h := p.share != nil, uint64(0) // h: the sum of the entries' hashes
	for !p.failed {
		var j int
		if first {
			j = p.lines[p.i].start + col
			first = false
		} else {
			i := p.next()
			if i == len(p.lines) {
				break
			}
			l := p.lines[i]
			if l.indent < indent {
				break
			}
			if l.indent > indent || p.isSeqEntry(l) {
				p.fail()
				break
			}
			j = l.start + indent
		}
		l := p.lines[p.i]
		kb, after, ok := p.keyAt(j, l.end)
		if !ok {
			p.fail()
			break
		}
		// A duplicate key: the full parse records it.
		if keySet != nil {
			if keySet[string(kb)] {
				p.fail()
				break
			}
			keySet[string(kb)] = true
		} else {
			for _, k := range keys {
				if bytes.Equal(k, kb) {
					p.fail()
					break
				}
			}
			if p.failed {
				break
			}
			keys = append(keys, kb)
			if len(keys) > 32 {
				keySet = make(map[string]bool, 2*len(keys))
				for _, k := range keys {
					keySet[string(k)] = true
				}
			}
		}
		// The key's text is needed only where the mapping is built.
		var key string
		if build || root != nil {
			if ck, common := commonKey(kb); common {
				// keyOK(ck) holds (TestCommonKeys): no check, and no
				// new string.
				key = ck
			} else if key = string(kb); !keyOK(key) {
				p.fail()
				break
			}
		} else if _, word := plainWordBytes(kb); word && !keyOK(string(kb)) {
			p.unsure = true // a key keyAt takes converts to itself unless it is a word
		}
		full := false
		if root != nil && key == "metadata" {
			full = true // the metadata is converted whole
		}
		before := p.deepest
		if full {
			p.deepest = 0
		}
		v := p.value(indent, after, l.end, d+1, true, full)
		if full {
			// The outline shares the metadata: it must hold no container
			// the outline would have cut.
			if p.maxDepth >= 0 && p.deepest > p.maxDepth {
				p.fail()
			}
			p.deepest = max(before, p.deepest)
		}
		if p.failed {
			break
		}
		if build {
			m[key] = v
			if shareable {
				if p.lastState == shareYes {
					h += p.share.entryHash(key, p.lastHash)
				} else {
					shareable = false
				}
			}
		}
		if root != nil {
			switch key {
			case "apiVersion":
				root.apiVersion, _ = v.(string)
			case "kind":
				root.kind, _ = v.(string)
			case "metadata":
				root.meta, root.hasMeta = v, true
			}
		}
	}
	if !build {
		m, h = map[string]any{}, 0
	}
	return p.shared(m, mix(h+tagHashMap), shareable).(map[string]any)
}

// shared ends the building of container v, of hash h: it returns the
// value to use, the equal one already shared when there is one, and sets
// lastState.
func (p *fastParser) shared(v any, h uint64, ok bool) any {
	if p.share == nil || !ok || p.failed {
		p.lastState = shareNo
		return v
	}
	p.lastState, p.lastHash = shareYes, h
	return p.share.share(h, v)
}

// value reads the value that starts at data[j:end] on line p.i (after a
// key's colon, or a sequence entry's dash) of a node whose parent is at
// column indent, as a node at converter depth d. inMapping says the parent
// is a mapping (whose value may be a sequence at its own indentation).
// full builds the value whatever the outline depth. It leaves p.i on the
// line after the value.
func (p *fastParser) value(indent, j, end, d int, inMapping, full bool) any {
	p.lastState = shareUnset
	v := p.scalarOrContainer(indent, j, end, d, inMapping, full)
	if p.share == nil || p.lastState != shareUnset {
		return v // not shared, or a mapping or sequence that said
	}
	switch v.(type) {
	case map[string]any: // {}
		return p.shared(v, mix(tagHashMap), true)
	case []any: // []
		return p.shared(v, mix(tagHashSeq), true)
	}
	h, ok := p.share.scalarHash(v)
	p.lastState, p.lastHash = shareNo, h
	if ok {
		p.lastState = shareYes
	}
	return v
}

// scalarOrContainer is value, without sharing: it sets lastState only
// where it returns what mapping or sequence built.
func (p *fastParser) scalarOrContainer(indent, j, end, d int, inMapping, full bool) any {
	for j < end && p.data[j] == ' ' {
		j++
	}
	for end > j && p.data[end-1] == ' ' {
		end--
	}
	if full {
		saved := p.maxDepth
		p.maxDepth = -1
		defer func() { p.maxDepth = saved }()
	}
	// A scalar is converted only where its parent is built (the top level's
	// always: they give the type).
	keep := p.maxDepth == -1 || d-1 <= p.maxDepth || d == 1
	if j == end {
		// The value is on the following lines, or null.
		p.i++
		i := p.next()
		if i == len(p.lines) || p.failed {
			return nil
		}
		l := p.lines[i]
		switch {
		case l.indent > indent && p.isSeqEntry(l):
			return p.sequence(l.indent, d)
		case l.indent > indent:
			return p.mapping(l.indent, l.indent, d, nil)
		case l.indent == indent && inMapping && p.isSeqEntry(l):
			return p.sequence(l.indent, d)
		}
		return nil
	}
	var v any
	switch c := p.data[j]; c {
	case '|':
		return p.literal(indent, j, end, keep)
	case '{', '[':
		if end-j != 2 || p.data[j+1] != c+2 { // only {} and []
			p.fail()
			return nil
		}
		p.checkDepth(d)
		p.build(d)
		if c == '{' {
			v = map[string]any{}
		} else {
			v = []any{}
		}
	case '\'', '"':
		str, ok := p.quoted(indent, j, end)
		if !ok {
			p.fail()
			return nil
		}
		return str
	case '?', ':', ',', ']', '}', '#', '&', '*', '!', '>', '%', '@', '`':
		p.fail()
		return nil
	default:
		if c == '-' && (j+1 == end || p.data[j+1] == ' ') {
			// A compact nested sequence ("- - a"), or a sequence after a
			// key on its line (invalid).
			p.fail()
			return nil
		}
		if !inMapping {
			// A sequence entry may hold a compact mapping: "- key: value".
			if _, _, ok := p.keyAt(j, p.lines[p.i].end); ok {
				col := j - p.lines[p.i].start
				return p.mapping(col, col, d, nil)
			}
		}
		s := p.data[j:end]
		if badPlain(s) || bytes.HasPrefix(s, []byte("---")) || bytes.HasPrefix(s, []byte("...")) {
			p.fail()
			return nil
		}
		text, ok := p.plainRest(indent, s, keep)
		if !ok {
			p.fail()
			return nil
		}
		if !keep {
			if tag, word := plainWordBytes(s); word && tag == tagFloat {
				p.unsure = true // NaN or an infinity, which JSON cannot hold
			}
			return nil
		}
		sv, err := resolveScalar("", text)
		if err != nil {
			p.fail()
			return nil
		}
		return sv
	}
	// A scalar or an empty collection: what follows must not be more
	// indented than the parent (a continuation line).
	p.i++
	if i := p.next(); i < len(p.lines) && p.lines[i].indent > indent {
		p.fail()
	}
	return v
}

// badPlain reports whether a line of a plain scalar holds what could end
// it or make it something else: ": ", " #", a final ':'.
func badPlain(s []byte) bool {
	return len(s) == 0 || s[0] == '#' || bytes.Contains(s, []byte(": ")) || bytes.Contains(s, []byte(" #")) || s[len(s)-1] == ':'
}

// plainRest reads the continuation lines of a plain scalar whose first
// line (trimmed) is first, on line p.i, in a node whose parent is at column
// indent: lines more indented than the parent, folded as go-yaml folds
// them (a line break between two lines is a space, n empty lines are n
// line breaks). It leaves p.i on the line after the scalar.
// Without keep it only validates, and returns "".
func (p *fastParser) plainRest(indent int, first []byte, keep bool) (string, bool) {
	p.i++
	var b []byte
	for {
		k, breaks := p.i, 0
		for k < len(p.lines) && p.lines[k].blank {
			k++
			breaks++
		}
		if k == len(p.lines) || p.lines[k].indent <= indent {
			break
		}
		l := p.lines[k]
		end := l.end
		for end > l.start && p.data[end-1] == ' ' {
			end--
		}
		line := p.data[l.start+l.indent : end]
		// A line starting "- " continues the scalar too (go-yaml's scanner
		// reads past any indicator on a line more indented than the
		// parent; the monolith's descriptions hold such lists), but a lone
		// "-" is left to the full parse.
		if badPlain(line) || line[0] == '-' && len(line) == 1 {
			return "", false
		}
		p.i = k + 1
		if !keep {
			continue
		}
		if b == nil {
			b = append(b, first...)
		}
		if breaks == 0 {
			b = append(b, ' ')
		}
		for ; breaks > 0; breaks-- {
			b = append(b, '\n')
		}
		b = append(b, line...)
	}
	switch {
	case !keep:
		return "", true
	case b == nil:
		return string(first), true
	}
	return string(b), true
}

// quoted reads a single- or double-quoted scalar that starts at data[j]
// on line p.i (data[j:end] is the rest of the line, trimmed), possibly over
// several lines, each more indented than the parent at column indent and
// folded as go-yaml folds them. Double-quoted scalars with escapes are left
// to the full parse. It leaves p.i on the line after the scalar.
func (p *fastParser) quoted(indent, j, end int) (string, bool) {
	q := p.data[j]
	var b []byte
	j++
	for {
		// One line of the scalar: data[j:end].
		closed := false
		k := j
		for ; k < end; k++ {
			c := p.data[k]
			if c == '\\' && q == '"' {
				return "", false
			}
			if c != q {
				continue
			}
			if q == '\'' && k+1 < end && p.data[k+1] == '\'' {
				b = append(b, p.data[j:k+1]...)
				k++
				j = k + 1
				continue
			}
			closed = true
			break
		}
		if closed {
			b = append(b, p.data[j:k]...)
			if k != end-1 {
				return "", false // more after the closing quote
			}
			break
		}
		// The line ends inside the scalar: its trailing spaces go, and the
		// next lines fold in.
		t := end
		for t > j && p.data[t-1] == ' ' {
			t--
		}
		b = append(b, p.data[j:t]...)
		p.i++
		breaks := 0
		for p.i < len(p.lines) && p.lines[p.i].blank {
			p.i++
			breaks++
		}
		if p.i == len(p.lines) || p.lines[p.i].indent <= indent {
			return "", false
		}
		if breaks == 0 {
			b = append(b, ' ')
		}
		for ; breaks > 0; breaks-- {
			b = append(b, '\n')
		}
		l := p.lines[p.i]
		j, end = l.start+l.indent, l.end
		for end > j && p.data[end-1] == ' ' {
			end--
		}
	}
	// What follows must not be more indented than the parent.
	p.i++
	if i := p.next(); i < len(p.lines) && p.lines[i].indent > indent {
		return "", false
	}
	return string(b), true
}

// literal reads a literal block scalar ("|" or "|-") whose header is at
// data[j:end] on line p.i, in a node whose parent is at column indent.
// Without keep it only validates, and returns nil.
func (p *fastParser) literal(indent, j, end int, keep bool) any {
	strip := false
	switch string(p.data[j:end]) {
	case "|":
	case "|-":
		strip = true
	default:
		p.fail()
		return nil
	}
	p.i++
	// The first line decides the content's indentation; leading empty
	// lines are left to the full parse.
	if p.i == len(p.lines) {
		p.fail()
		return nil
	}
	first := p.lines[p.i]
	if first.blank || first.indent <= indent {
		p.fail()
		return nil
	}
	in := first.indent
	var b []byte
	lastEnd := 0 // where the last content line ends
	pending := 0 // empty lines not yet known to be inside the content
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.blank {
			if l.end != l.start {
				p.fail() // a line of spaces: left to the full parse
				return nil
			}
			pending++
			p.i++
			continue
		}
		if l.indent < in {
			break
		}
		if !keep {
			pending = 0
			p.i++
			continue
		}
		if len(b) > 0 || pending > 0 {
			b = append(b, '\n')
		}
		for ; pending > 0; pending-- {
			b = append(b, '\n')
		}
		b = append(b, p.data[l.start+in:l.end]...)
		lastEnd = l.end
		p.i++
	}
	if !strip && lastEnd < len(p.data) {
		b = append(b, '\n') // the last line's break, if it has one
	}
	var v any
	if keep {
		v = string(b)
	}
	// The scalar ends at a line less indented than its content, which
	// must not be more indented than its parent.
	if i := p.next(); i < len(p.lines) && p.lines[i].indent > indent {
		p.fail()
	}
	return v
}

// sequence reads a block sequence whose dashes are at column indent,
// starting at line p.i, as a container at converter depth d.
func (p *fastParser) sequence(indent, d int) []any {
	p.checkDepth(d)
	build := p.build(d)
	s := []any{}
	shareable, h := p.share != nil, uint64(tagHashSeq)
	for !p.failed {
		i := p.next()
		if i == len(p.lines) {
			break
		}
		l := p.lines[i]
		if l.indent < indent || l.indent == indent && !p.isSeqEntry(l) {
			break
		}
		if l.indent > indent {
			p.fail()
			break
		}
		v := p.value(indent, l.start+indent+1, l.end, d+1, false, false)
		if build {
			s = append(s, v)
			if shareable {
				if p.lastState == shareYes {
					h = mix(h + p.lastHash)
				} else {
					shareable = false
				}
			}
		}
	}
	if !build {
		s, h = []any{}, tagHashSeq
	}
	return p.shared(s, mix(h), shareable).([]any)
}
