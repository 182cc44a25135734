package parser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// decoder holds what decoding a document needs; it is shared, read-only,
// by the goroutines of one parse and by the objects it returns.
type decoder struct {
	limits       Limits
	metaGroup    string
	metaScheme   *runtime.Scheme
	objectScheme *runtime.Scheme
	strictKinds  bool
	outlineDepth int
	discardRaw   bool
	fullParse    bool // never the fast path (tests compare the two)
}

// result is the outcome of decoding one document.
type result struct {
	obj    *Object
	isMeta bool
	err    *DocumentError
}

// parseNode parses one document's bytes into a yaml.Node and checks it
// against the limits. It returns a nil node for a document with no content.
// Its errors are *DocumentError.
func parseNode(loc locator, lim Limits) (root *yaml.Node, err error) {
	if err := checkLineBreaks(loc); err != nil {
		return nil, err
	}
	if err := checkNodes(loc, lim, countNodes(loc.data, int64(lim.MaxNodes))); err != nil {
		return nil, err
	}
	return parseTree(loc, lim, nil)
}

// checkNodes returns the *DocumentError of a document whose node count
// exceeded MaxNodes, at the byte where it did, or nil.
func checkNodes(loc locator, lim Limits, nc nodeCount) error {
	if !nc.over {
		return nil
	}
	pos := loc.base
	pos.Offset += int64(nc.off)
	if nc.line == 1 {
		pos.Column += nc.off
	} else {
		pos.Line += nc.line - 1
		pos.Column = nc.off - nc.bol + 1
	}
	return &DocumentError{Pos: pos, Err: limitErr(limitval.MaxNodes, lim.MaxNodes, pos)}
}

// parseTree is parseNode once the nodes are counted. It records the
// document's duplicate keys in dups, when not nil.
func parseTree(loc locator, lim Limits, dups *dupRecorder) (root *yaml.Node, err error) {
	defer func() {
		// go-yaml panics on a few malformed inputs instead of failing.
		if r := recover(); r != nil {
			root, err = nil, &DocumentError{Pos: loc.base, Err: fmt.Errorf("%w: %v", ErrSyntax, r)}
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(loc.data, &doc); err != nil {
		return nil, syntaxError(err, loc)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, nil
	}
	root = doc.Content[0]
	chk := checker{lim: lim, loc: loc, dups: dups}
	if err := chk.check(root); err != nil {
		return nil, err
	}
	return root, nil
}

var (
	yamlLineRE   = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	yamlAnchorRE = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)
)

// parserProblems are the messages of go-yaml's parser (as opposed to its
// scanner): it reports their line 0-based.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// syntaxError turns a go-yaml error into a *DocumentError at the line it
// names, in the stream.
func syntaxError(err error, loc locator) *DocumentError {
	msg := err.Error()
	pos := loc.base
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		msg = m[2]
		if n, convErr := strconv.Atoi(m[1]); convErr == nil {
			if parserProblems[msg] {
				n++
			}
			pos = loc.at(n, 0)
		}
	} else if m := yamlAnchorRE.FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("unknown anchor %q", m[1])
		if i := bytes.Index(loc.data, []byte("*"+m[1])); i >= 0 {
			line := bytes.Count(loc.data[:i], []byte("\n")) + 1
			col := i - bytes.LastIndexByte(loc.data[:i], '\n')
			pos = loc.at(line, 0)
			pos.Column += col - 1
			pos.Offset += int64(col - 1)
		}
	} else if len(msg) > 6 && msg[:6] == "yaml: " {
		msg = msg[6:]
	}
	return &DocumentError{Pos: pos, Err: fmt.Errorf("%w: %s", ErrSyntax, msg)}
}

// decode turns one document into an object (whose raw bytes are raw) or an
// error. Before it parses
// the document, it takes the document's estimated cost from b (when not
// nil), waiting while other documents use the budget; it returns an empty
// result when ctx is done meanwhile.
// Outlines built by the fast path share values through share, when not nil.
func (d *decoder) decode(ctx context.Context, b *budget, doc Document, raw rawBytes, share *sharer) result {
	base := doc.DataPos
	base.Document = doc.Pos.Document
	loc := locator{data: doc.Data, base: base}
	fail := func(err error) result {
		var de *DocumentError
		if !errors.As(err, &de) {
			de = &DocumentError{Pos: doc.Pos, Err: err}
		}
		return result{err: de}
	}
	if err := checkLineBreaks(loc); err != nil {
		return fail(err)
	}
	// A document too short to pass MaxNodes is read by the fast path
	// first (below); any other takes it after its count and charge.
	fastFirst := !d.fullParse && fewNodes(len(doc.Data), d.limits.MaxNodes)
	if fastFirst {
		// A document too short to count more than MaxNodes (most CRDs)
		// goes to the fast path before its nodes are counted: the fast
		// path builds no node tree, and what it builds grows with the
		// bytes, for which it is charged. Only when it gives up are the
		// nodes counted, for the full parse's charge.
		obj, ok := d.fastCharged(ctx, b, doc, base, raw, share)
		if !ok {
			return result{} // the parse is cancelled: finish returns ctx's error
		}
		if obj != nil {
			return result{obj: obj}
		}
	}
	nc := countNodes(doc.Data, int64(d.limits.MaxNodes))
	if err := checkNodes(loc, d.limits, nc); err != nil {
		return fail(err)
	}
	if b != nil {
		n, err := b.acquire(ctx, decodeCost(nc.count, len(doc.Data)))
		if err != nil {
			return result{} // the parse is cancelled: finish returns ctx's error
		}
		defer b.release(n)
	}
	if !d.fullParse && !fastFirst {
		if obj := d.fastObject(doc, base, raw, share); obj != nil {
			return result{obj: obj}
		}
	}
	var dups dupRecorder
	root, err := parseTree(loc, d.limits, &dups)
	if err != nil {
		return fail(err)
	}
	if root == nil {
		return result{} // nothing but comments: an empty document
	}
	if root.Kind == yaml.AliasNode && root.Alias != nil {
		root = root.Alias
	}
	if root.Kind != yaml.MappingNode {
		return fail(fmt.Errorf("%w: found a %s", ErrNotObject, kindName(root)))
	}
	obj := &Object{Pos: doc.Pos, dataPos: base, dec: d, DuplicateKeys: dups.keys(loc), MoreDuplicateKeys: dups.more}
	obj.raw = raw
	if err := d.typeAndMeta(obj, root, loc); err != nil {
		return fail(err)
	}
	gvk := obj.GroupVersionKind()
	r := result{obj: obj}
	switch {
	case gvk.Group == d.metaGroup:
		r.isMeta = true
		if d.metaScheme == nil || !d.metaScheme.Recognizes(gvk) {
			return fail(fmt.Errorf("%w: %s is not a package metadata kind", ErrUnknownKind, gvkString(gvk)))
		}
		if obj.typed, err = typed(d.metaScheme, gvk, root, loc); err != nil {
			return fail(err)
		}
	case d.objectScheme != nil && d.objectScheme.Recognizes(gvk):
		if obj.typed, err = typed(d.objectScheme, gvk, root, loc); err != nil {
			return fail(err)
		}
	case d.strictKinds:
		return fail(fmt.Errorf("%w: no scheme recognises %s", ErrUnknownKind, gvkString(gvk)))
	}
	if d.outlineDepth >= 0 {
		o, err := converter{maxDepth: d.outlineDepth, loc: loc}.mapping(root, 0)
		if err != nil {
			return fail(err)
		}
		obj.outline = o
	}
	return r
}

func gvkString(gvk schema.GroupVersionKind) string {
	return fmt.Sprintf("kind %q of %q", gvk.Kind, gvk.GroupVersion().String())
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "sequence"
	case yaml.ScalarNode:
		if v, _ := scalarValue(n); v == nil {
			return "null"
		}
		return "scalar"
	}
	return "non-mapping node"
}

// typeAndMeta reads apiVersion, kind and metadata from the top-level mapping.
func (d *decoder) typeAndMeta(obj *Object, root *yaml.Node, loc locator) error {
	// Keys are matched as a conversion would see them (quoted, merged).
	if _, v := findKey(root, "apiVersion"); v != nil {
		obj.APIVersion = stringValue(v)
	}
	if _, v := findKey(root, "kind"); v != nil {
		obj.Kind = stringValue(v)
	}
	_, meta := findKey(root, "metadata")
	switch {
	case obj.APIVersion == "" && obj.Kind == "":
		return fmt.Errorf("%w: no apiVersion and no kind", ErrMissingType)
	case obj.APIVersion == "":
		return fmt.Errorf("%w: no apiVersion", ErrMissingType)
	case obj.Kind == "":
		return fmt.Errorf("%w: no kind", ErrMissingType)
	}
	if meta == nil {
		return nil
	}
	m, err := converter{maxDepth: -1, loc: loc}.value(meta, 1)
	if err != nil {
		return err
	}
	switch m := m.(type) {
	case nil:
		return nil
	case map[string]any:
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &obj.ObjectMeta); err != nil {
			if de := mistypedError(m, reflect.TypeOf(obj.ObjectMeta), obj.Kind, []string{"metadata"}, root, loc); de != nil {
				return de
			}
			return loc.errorf(meta, "%w: metadata: %v", ErrDecode, err)
		}
		return nil
	}
	return loc.errorf(meta, "%w: metadata is not a mapping", ErrDecode)
}

// stringValue returns the value of a string scalar, or "" for anything
// else (apiVersion: 1 is no apiVersion).
func stringValue(n *yaml.Node) string {
	n = deref(n)
	if n.Kind != yaml.ScalarNode {
		return ""
	}
	v, err := scalarValue(n)
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}

// typed decodes a document into the Go type the scheme has for gvk.
func typed(s *runtime.Scheme, gvk schema.GroupVersionKind, root *yaml.Node, loc locator) (runtime.Object, error) {
	m, err := converter{maxDepth: -1, loc: loc}.mapping(root, 0)
	if err != nil {
		return nil, err
	}
	obj, err := s.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnknownKind, err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, obj); err != nil {
		if de := mistypedError(m, reflect.TypeOf(obj), gvk.Kind, nil, root, loc); de != nil {
			return nil, de
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrDecode, gvkString(gvk), err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// fewNodes reports whether a document of size bytes cannot count more than
// maxNodes (countNodes adds at most 3 for each byte, after 2), so that
// counting it can wait.
func fewNodes(size, maxNodes int) bool {
	return maxNodes > 0 && int64(size) <= (int64(maxNodes)-2)/3
}

// fastCharged is fastObject for a document of few nodes, charged to b (when
// not nil) for its bytes while it runs. ok is false when ctx was done while
// it waited for the budget.
func (d *decoder) fastCharged(ctx context.Context, b *budget, doc Document, base Position, raw rawBytes, share *sharer) (obj *Object, ok bool) {
	if b != nil {
		n, err := b.acquire(ctx, decodeCost(0, len(doc.Data)))
		if err != nil {
			return nil, false
		}
		defer b.release(n)
	}
	return d.fastObject(doc, base, raw, share), true
}

// fastObject decodes doc through the fast path (fastpath.go), or returns
// nil when the document needs the full parse: the fast path gives up, or
// the document is one the schemes decode, or its metadata does not convert.
func (d *decoder) fastObject(doc Document, base Position, raw rawBytes, share *sharer) *Object {
	fr, ok := fastDecode(doc.Data, d.outlineDepth, d.limits.MaxDepth, share)
	if !ok {
		return nil
	}
	obj := &Object{Pos: doc.Pos, dataPos: base, dec: d, raw: raw}
	obj.APIVersion, obj.Kind = fr.apiVersion, fr.kind
	gvk := obj.GroupVersionKind()
	if gvk.Group == d.metaGroup || d.strictKinds || d.objectScheme != nil && d.objectScheme.Recognizes(gvk) {
		return nil
	}
	switch m := fr.meta.(type) {
	case nil:
	case map[string]any:
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &obj.ObjectMeta); err != nil {
			return nil
		}
	default:
		return nil
	}
	obj.outline = fr.outline
	obj.fast = fr.content
	return obj
}
