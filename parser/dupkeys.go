package parser

import (
	"bytes"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// DuplicateKey is a key given twice in one mapping of a document. YAML
// forbids it, but Crossplane's decoding (sigs.k8s.io/yaml, through
// apimachinery's YAML serializer, in crossplane-runtime's pkg/parser)
// accepts it and keeps the last value; so does the parser, which records
// each one.
type DuplicateKey struct {
	// Key is the key's text.
	Key string
	// Pos is the position of the later key, whose value wins.
	Pos Position
	// FirstLine is the line (in the same file) of the earlier key with the
	// same text, whose value is lost.
	FirstLine int
}

// maxDuplicateKeys is the most duplicate keys recorded for one document
// (Object.DuplicateKeys); Object.MoreDuplicateKeys counts the others.
const maxDuplicateKeys = 100

// dupRecorder collects the duplicate keys of one document.
type dupRecorder struct {
	pairs [][2]*yaml.Node // earlier key, later key
	more  int
	seen  map[*yaml.Node]bool // later keys recorded (a mapping walked twice through an alias)
}

// add records a duplicate key found by duplicateKeys.
func (r *dupRecorder) add(prev, k *yaml.Node) {
	if r.seen[k] {
		return
	}
	if r.seen == nil {
		r.seen = map[*yaml.Node]bool{}
	}
	r.seen[k] = true
	if len(r.pairs) >= maxDuplicateKeys {
		r.more++
		return
	}
	r.pairs = append(r.pairs, [2]*yaml.Node{prev, k})
}

// keys returns the recorded duplicates with their stream positions, from
// one pass over the document's lines.
func (r *dupRecorder) keys(loc locator) []DuplicateKey {
	if len(r.pairs) == 0 {
		return nil
	}
	starts := []int{0}
	for i := 0; ; {
		j := bytes.IndexByte(loc.data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	out := make([]DuplicateKey, len(r.pairs))
	for i, p := range r.pairs {
		out[i] = DuplicateKey{Key: p[1].Value, Pos: loc.atLine(starts, p[1].Line, p[1].Column), FirstLine: loc.base.Line + p[0].Line - 1}
	}
	return out
}

// atLine is at with the offsets of the data's lines already known.
func (l locator) atLine(starts []int, line, col int) Position {
	p := l.base
	if line < 1 || line > len(starts) {
		return p
	}
	text := l.data[starts[line-1]:]
	if j := bytes.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	b := 0
	for c := 1; c < col && b < len(text); c++ {
		_, size := utf8.DecodeRune(text[b:])
		b += size
	}
	p.Line += line - 1
	p.Column = b + 1
	p.Offset += int64(starts[line-1] + b)
	return p
}
