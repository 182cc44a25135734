package lsp

import (
	"bytes"
	"compress/gzip"
	"context"
	_ "embed" // descriptions.json.gz
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apiserver"
	"github.com/xpkgkit/xpkgkit/linter/changerules"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// --- rules

// rule returns the rule of the server's rule set with the ID, nil if none.
func (s *Server) rule(id string) *linter.Rule {
	for _, set := range [][]*linter.Rule{rules.Builtin(), apiserver.Rules(), graphrules.Rules(), changerules.Rules(), s.rules} {
		for _, r := range set {
			if r.ID == id {
				return r
			}
		}
	}
	return nil
}

// --- code actions

// codeActions offers each suggested fix of the diagnostics in the range
// as a quick fix: the edits of the document as the lint read it, refused
// by the client when the document changed since (its version).
func (s *Server) codeActions(ctx context.Context, params json.RawMessage) (any, error) {
	var p codeActionParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	actions := []codeAction{}
	s.mu.Lock()
	var st *pkgState
	for _, ps := range s.pkgs {
		if _, ok := ps.diags[p.TextDocument.URI]; ok {
			st = ps
			break
		}
	}
	if st == nil {
		s.mu.Unlock()
		return actions, nil
	}
	snap, list := st.snap, st.diags[p.TextDocument.URI]
	cur := s.docs[p.TextDocument.URI]
	s.mu.Unlock()
	if v := versionOf(snap, p.TextDocument.URI); cur != nil && (v == nil || *v != cur.version) {
		return actions, nil // stale: the next lint offers the fixes again
	}
	indexes := map[string]*lineIndex{}
	for _, pd := range list {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(pd.d.SuggestedFixes) == 0 || !overlaps(pd.lsp.Range, p.Range) {
			continue
		}
		for _, fix := range pd.d.SuggestedFixes {
			edit, ok := s.workspaceEdit(snap, fix, indexes)
			if !ok {
				continue
			}
			actions = append(actions, codeAction{
				Title: fix.Message, Kind: "quickfix", Diagnostics: []diagnostic{pd.lsp},
				IsPreferred: len(pd.d.SuggestedFixes) == 1, Edit: edit,
			})
		}
	}
	return actions, nil
}

// overlaps reports whether a diagnostic's lines meet a range's.
func overlaps(d, r lspRange) bool {
	return d.Start.Line <= r.End.Line && r.Start.Line <= d.End.Line
}

// workspaceEdit converts a fix's edits (byte offsets in the files as the
// lint read them) into versioned document edits.
func (s *Server) workspaceEdit(snap *snapshot, fix linter.SuggestedFix, indexes map[string]*lineIndex) (workspaceEdit, bool) {
	byFile := map[string][]textEdit{}
	var order []string
	for _, e := range fix.TextEdits {
		file := e.File
		if !filepath.IsAbs(file) {
			file = filepath.Join(snap.root, file)
		}
		x, ok := indexes[file]
		if !ok {
			if text, _, ok := snap.text(file, s.maxMessage); ok {
				x = newLineIndex(text)
			}
			indexes[file] = x
		}
		if x == nil || e.Offset < 0 || e.End < e.Offset || e.End > int64(len(x.text)) {
			return workspaceEdit{}, false
		}
		if _, ok := byFile[file]; !ok {
			order = append(order, file)
		}
		byFile[file] = append(byFile[file], textEdit{
			Range:   lspRange{Start: x.position(int(e.Offset)), End: x.position(int(e.End))},
			NewText: e.NewText,
		})
	}
	var we workspaceEdit
	for _, file := range order {
		uri := pathToURI(file)
		we.DocumentChanges = append(we.DocumentChanges, textDocumentEdit{
			TextDocument: versionedTextDocumentIdentifier{URI: uri, Version: versionOf(snap, uri)},
			Edits:        byFile[file],
		})
	}
	return we, len(we.DocumentChanges) > 0
}

// --- the package, parsed for hover, completion and definition

// parsedOf returns the package at root parsed from the open documents over
// the disk, once per edit; nil when root is "".
func (s *Server) parsedOf(ctx context.Context, root string) *parsedPackage {
	if root == "" {
		return nil
	}
	s.mu.Lock()
	st := s.pkgs[root]
	if st != nil && st.parsed != nil && st.parsedGen == st.gen {
		p := st.parsed
		s.mu.Unlock()
		return p
	}
	s.mu.Unlock()
	snap := s.snapshotOf(root)
	pkg, err := xpkg.OpenFS(ctx, snap.fs(), root)
	pp := &parsedPackage{pkg: pkg, snap: snap, err: err}
	if err == nil {
		objs := pkg.Objects
		pp.validator = lschema.New(objs, lschema.WithCrossplaneRelease(s.target()))
	}
	if ctx.Err() != nil {
		return pp
	}
	s.mu.Lock()
	if st != nil {
		st.parsed, st.parsedGen = pp, st.gen
	}
	s.mu.Unlock()
	return pp
}

// target returns the release line the settings target.
func (s *Server) target() string {
	s.mu.Lock()
	v := s.settings.CrossplaneVersion
	s.mu.Unlock()
	line, _, err := linter.CrossplaneLine(v)
	if err != nil {
		line = linter.DefaultCrossplaneVersion
	}
	return line
}

// schemaCache keeps the schemas of kinds read for hover and completion.
type schemaCache struct {
	mu sync.Mutex
	m  map[schemaKey]*lschema.KindSchema
}

type schemaKey struct {
	v   *lschema.Validator
	gvk schema.GroupVersionKind
}

// maxCachedSchemas bounds the schemas kept.
const maxCachedSchemas = 32

func newSchemaCache() *schemaCache { return &schemaCache{m: map[schemaKey]*lschema.KindSchema{}} }

func (c *schemaCache) get(ctx context.Context, v *lschema.Validator, gvk schema.GroupVersionKind) (*lschema.KindSchema, error) {
	k := schemaKey{v, gvk}
	c.mu.Lock()
	ks, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return ks, nil
	}
	ks, err := v.Schema(ctx, gvk)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= maxCachedSchemas {
		clear(c.m)
	}
	c.m[k] = ks
	c.mu.Unlock()
	return ks, nil
}

// kindSchema is a kind's schema and where it comes from.
type kindSchema struct {
	ks       *lschema.KindSchema
	gvk      schema.GroupVersionKind
	builtin  bool // one of Crossplane's or Kubernetes' kinds
	resolved bool
}

// validators returns the validators that may serve a kind, the
// package's definitions first.
func (s *Server) validators(pp *parsedPackage) []*lschema.Validator {
	var vs []*lschema.Validator
	if pp != nil && pp.validator != nil {
		vs = append(vs, pp.validator)
	}
	return append(vs, lschema.PackageKindsAt(s.target()))
}

// schemaOf returns the schema of gvk from the first validator that serves
// it.
func (s *Server) schemaOf(ctx context.Context, pp *parsedPackage, gvk schema.GroupVersionKind) kindSchema {
	vs := s.validators(pp)
	for i, v := range vs {
		if !v.Serves(gvk) {
			continue
		}
		ks, err := s.schemas.get(ctx, v, gvk)
		if err != nil {
			return kindSchema{gvk: gvk}
		}
		return kindSchema{ks: ks, gvk: gvk, builtin: i == len(vs)-1, resolved: true}
	}
	return kindSchema{gvk: gvk}
}

// located is the schema that judges the mapping holding a cursor, and the
// mapping's path in it.
type located struct {
	kindSchema
	rel []string
	// base is the index in the cursor's path of the first element below
	// the object of the kind (0: the document's root object).
	base int
}

// locate finds the kind whose schema judges the cursor's mapping: the
// document's, or that of an embedded object (a composed resource's base,
// a function's input) whose apiVersion and kind the text gives.
func (s *Server) locate(ctx context.Context, pp *parsedPackage, c *cursor) (located, bool) {
	top := c.doc.mappingValues(nil, "apiVersion", "kind")
	if top["apiVersion"] == "" || top["kind"] == "" {
		return located{}, false
	}
	cur := s.schemaOf(ctx, pp, schema.FromAPIVersionAndKind(top["apiVersion"], top["kind"]))
	base := 0
	if len(c.path) > maxPathDepth {
		return located{}, false // deeper than any kind's schema is read
	}
	for i := range c.path {
		if err := ctx.Err(); err != nil {
			return located{}, false
		}
		if c.path[i].item {
			continue
		}
		vals := c.doc.mappingValues(&c.path[i], "apiVersion", "kind")
		if vals["apiVersion"] == "" || vals["kind"] == "" {
			continue
		}
		embedded := true
		if cur.resolved {
			f, err := cur.ks.Field(keys(c.path[base : i+1])...)
			embedded = err != nil || f.Embedded || (f.Preserve && len(f.Properties) == 0)
		}
		if embedded {
			cur = s.schemaOf(ctx, pp, schema.FromAPIVersionAndKind(vals["apiVersion"], vals["kind"]))
			base = i + 1
		}
	}
	return located{kindSchema: cur, rel: keys(c.path[base:]), base: base}, true
}

// --- hover

// hover shows the docs of the rules of the diagnostics under the cursor
// and the schema of the field there.
func (s *Server) hover(ctx context.Context, params json.RawMessage) (any, error) {
	var p textDocumentPositionParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	var parts []string
	parts = append(parts, s.ruleDocsAt(p.TextDocument.URI, p.Position)...)

	x := newLineIndex(d.text)
	c := cursorAt(d.text, p.Position.Line, byteCol(x.line(p.Position.Line), p.Position.Character))
	var rng *lspRange
	if c != nil && (c.mode == onKey || c.mode == onValue) {
		pp := s.parsedOf(ctx, s.packageRoot(d.path))
		if loc, ok := s.locate(ctx, pp, c); ok && loc.resolved {
			fp := append(slices.Clip(loc.rel), c.key)
			if f, err := loc.ks.Field(fp...); err == nil {
				parts = append(parts, s.fieldDoc(loc, fp, f))
				line := x.line(p.Position.Line)
				rng = &lspRange{
					Start: position{p.Position.Line, utf16Len(line[:min(c.from, len(line))])},
					End:   position{p.Position.Line, utf16Len(line[:min(c.to, len(line))])},
				}
			}
		}
	}
	if len(parts) == 0 {
		return nil, ctx.Err()
	}
	return hover{Contents: markupContent{Kind: "markdown", Value: strings.Join(parts, "\n\n---\n\n")}, Range: rng}, nil
}

// doc returns the open document uri, nil if it is not open.
func (s *Server) doc(uri string) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[uri]
}

// ruleDocsAt returns the docs of the rules of the last lint's diagnostics
// at pos.
func (s *Server) ruleDocsAt(uri string, pos position) []string {
	s.mu.Lock()
	var list []published
	for _, st := range s.pkgs {
		if l, ok := st.diags[uri]; ok {
			list = l
			break
		}
	}
	s.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for _, pd := range list {
		r := pd.lsp.Range
		if pos.Line < r.Start.Line || pos.Line > r.End.Line || seen[pd.d.RuleID] {
			continue
		}
		if pos.Line == r.Start.Line && r.Start.Line == r.End.Line && (pos.Character < r.Start.Character || pos.Character > r.End.Character) {
			continue
		}
		seen[pd.d.RuleID] = true
		rule := s.rule(pd.d.RuleID)
		if rule == nil {
			continue
		}
		out = append(out, fmt.Sprintf("**%s %s** (%s): %s\n\n%s\n\n[%s %s](%s)", rule.ID, rule.Name, pd.d.Severity,
			pd.d.Message, ruleBody(rule), rule.ID, rule.Name, s.ruleDocURL(rule.ID, rule.Name)))
	}
	return out
}

// ruleBody returns a rule's doc: its title, then its text, bounded.
func ruleBody(r *linter.Rule) string {
	const max = 4 << 10
	doc := strings.TrimSpace(r.Doc)
	title, rest, _ := strings.Cut(doc, "\n")
	body := "*" + strings.TrimSpace(title) + "*\n\n" + strings.TrimSpace(rest)
	if len(body) > max {
		body = body[:max] + "..."
	}
	return body
}

// fieldDoc formats a field's schema for hover.
func (s *Server) fieldDoc(loc located, fp []string, f *lschema.Field) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", fp[len(fp)-1])
	if f.Type != "" {
		fmt.Fprintf(&b, " `%s`", f.Type)
	}
	if f.Required {
		b.WriteString(" (required)")
	}
	fmt.Fprintf(&b, "\n\n%s `%s`", loc.gvk.Kind, strings.Join(fp, "."))
	desc, from := f.Description, ""
	if desc == "" && loc.builtin {
		if d, rel := crossplaneDescription(loc.gvk, fp); d != "" {
			desc, from = d, rel
		}
	}
	if desc != "" {
		b.WriteString("\n\n" + desc)
		if from != "" {
			fmt.Fprintf(&b, "\n\n*(description from Crossplane %s's CRD)*", from)
		}
	}
	if f.Default != nil {
		j, _ := json.Marshal(f.Default)
		fmt.Fprintf(&b, "\n\nDefault: `%s`", bound(string(j), 200))
	}
	if len(f.Enum) > 0 {
		vals := make([]string, 0, len(f.Enum))
		for _, e := range f.Enum {
			j, _ := json.Marshal(e)
			vals = append(vals, "`"+bound(string(j), 80)+"`")
		}
		fmt.Fprintf(&b, "\n\nOne of: %s", strings.Join(vals, ", "))
	}
	if len(f.Validation) > 0 {
		b.WriteString("\n\nValidation:")
		for _, v := range f.Validation {
			b.WriteString("\n- `" + bound(v, 300) + "`")
		}
	}
	fmt.Fprintf(&b, "\n\nSchema: %s (target Crossplane %s)", f.Definition, s.target())
	return b.String()
}

// bound shortens s to at most n bytes.
func bound(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

//go:embed descriptions.json.gz
var descriptionsGz []byte

// descriptions are the field descriptions of Crossplane's kinds, which
// linter/schema embeds without them.
var descriptions = sync.OnceValue(func() *struct {
	Release string                       `json:"release"`
	Kinds   map[string]map[string]string `json:"kinds"`
} {
	out := &struct {
		Release string                       `json:"release"`
		Kinds   map[string]map[string]string `json:"kinds"`
	}{}
	zr, err := gzip.NewReader(bytes.NewReader(descriptionsGz))
	if err != nil {
		return out
	}
	b, err := io.ReadAll(io.LimitReader(zr, 16<<20))
	if err == nil {
		_ = json.Unmarshal(b, out)
	}
	return out
})

// crossplaneDescription returns the description of the field at fp of one
// of Crossplane's kinds, and the release it is from.
func crossplaneDescription(gvk schema.GroupVersionKind, fp []string) (string, string) {
	d := descriptions()
	m := d.Kinds[gvk.Group+"/"+gvk.Version+"/"+gvk.Kind]
	if m == nil {
		return "", ""
	}
	key := make([]string, len(fp))
	for i, p := range fp {
		if isIndexOrItem(p) {
			p = "[]"
		}
		key[i] = p
	}
	if desc, ok := m[strings.Join(key, ".")]; ok {
		return desc, d.Release
	}
	return "", ""
}

func isIndexOrItem(p string) bool {
	if p == "[]" {
		return true
	}
	for _, r := range p {
		if r < '0' || r > '9' {
			return false
		}
	}
	return p != ""
}

// --- completion

// completion offers the fields of the mapping at the cursor, the values of
// an enum, and the apiVersions and kinds the package, and Crossplane's and
// Kubernetes' kinds at the target, serve.
func (s *Server) completion(ctx context.Context, params json.RawMessage) (any, error) {
	var p textDocumentPositionParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	list := completionList{Items: []completionItem{}}
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return list, nil
	}
	x := newLineIndex(d.text)
	c := cursorAt(d.text, p.Position.Line, byteCol(x.line(p.Position.Line), p.Position.Character))
	if c == nil {
		return list, nil
	}
	pp := s.parsedOf(ctx, s.packageRoot(d.path))
	if c.mode == onValue && (c.key == "apiVersion" || c.key == "kind") {
		var e *elem
		if len(c.path) > 0 {
			e = &c.path[len(c.path)-1]
		}
		vals := c.doc.mappingValues(e, "apiVersion", "kind")
		list.Items = s.kindItems(pp, c.key, vals["apiVersion"])
		return list, nil
	}
	loc, ok := s.locate(ctx, pp, c)
	if !ok || !loc.resolved {
		if len(c.path) == 0 && c.mode != onValue {
			for _, k := range []string{"apiVersion", "kind", "metadata", "spec"} {
				list.Items = append(list.Items, completionItem{Label: k, Kind: completionField, InsertText: k + ": "})
			}
		}
		return list, nil
	}
	switch c.mode {
	case onValue:
		f, err := loc.ks.Field(append(slices.Clip(loc.rel), c.key)...)
		if err != nil {
			return list, nil
		}
		for _, e := range f.Enum {
			j, _ := json.Marshal(e)
			label := strings.Trim(string(j), `"`)
			list.Items = append(list.Items, completionItem{Label: label, Kind: completionEnumMember, Detail: f.Type})
		}
		if f.Type == "boolean" {
			for _, v := range []string{"true", "false"} {
				list.Items = append(list.Items, completionItem{Label: v, Kind: completionValue})
			}
		}
	default:
		f, err := loc.ks.Field(loc.rel...)
		if err != nil {
			return list, nil
		}
		have := c.siblingKeys()
		req := map[string]bool{}
		for _, r := range f.RequiredProperties {
			req[r] = true
		}
		for _, name := range f.Properties {
			if have[name] {
				continue
			}
			item := completionItem{Label: name, Kind: completionField, InsertText: name + ": ", SortText: "1" + name}
			if req[name] {
				item.Detail, item.SortText = "required", "0"+name
			}
			if cf, err := loc.ks.Field(append(slices.Clip(loc.rel), name)...); err == nil {
				if cf.Type != "" {
					item.Detail = strings.TrimSpace(item.Detail + " " + cf.Type)
				}
				if desc := cf.Description; desc != "" {
					item.Documentation = &markupContent{Kind: "markdown", Value: bound(desc, 2000)}
				} else if loc.builtin {
					if desc, _ := crossplaneDescription(loc.gvk, append(slices.Clip(loc.rel), name)); desc != "" {
						item.Documentation = &markupContent{Kind: "markdown", Value: bound(desc, 2000)}
					}
				}
			}
			list.Items = append(list.Items, item)
		}
	}
	return list, ctx.Err()
}

// kindItems offers apiVersions (key "apiVersion") or the kinds served at
// apiVersion (key "kind"; all kinds, with their apiVersion, when it is
// empty).
func (s *Server) kindItems(pp *parsedPackage, key, apiVersion string) []completionItem {
	seen := map[string]bool{}
	items := []completionItem{}
	for _, v := range s.validators(pp) {
		for _, gvk := range v.Kinds() {
			av := gvk.GroupVersion().String()
			var item completionItem
			switch {
			case key == "apiVersion":
				item = completionItem{Label: av, Kind: completionValue}
			case apiVersion == "" || apiVersion == av:
				item = completionItem{Label: gvk.Kind, Kind: completionClass, Detail: av}
			default:
				continue
			}
			if id := item.Label + "\x00" + item.Detail; !seen[id] {
				seen[id] = true
				items = append(items, item)
			}
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Label < items[j].Label })
	return items
}

// --- definition

// definition jumps from a Composition's compositeTypeRef to the XRD, from
// a pipeline step's functionRef to its dependsOn entry, and from an
// object's apiVersion or kind to the definition in the package that
// serves it.
func (s *Server) definition(ctx context.Context, params json.RawMessage) (any, error) {
	var p textDocumentPositionParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	x := newLineIndex(d.text)
	c := cursorAt(d.text, p.Position.Line, byteCol(x.line(p.Position.Line), p.Position.Character))
	if c == nil {
		return nil, nil
	}
	root := s.packageRoot(d.path)
	pp := s.parsedOf(ctx, root)
	if pp == nil || pp.err != nil || pp.pkg == nil {
		return nil, ctx.Err()
	}
	// The mapping the cursor is on: its key's, when the key opens one.
	path := c.path
	if c.mode == onKey && (c.key == "compositeTypeRef" || c.key == "functionRef") {
		path = append(slices.Clip(path), elem{key: c.key, line: c.line, col: c.from})
	}
	ks := keys(path)
	var e *elem
	if len(path) > 0 {
		e = &path[len(path)-1]
	}
	switch {
	case len(ks) > 0 && ks[len(ks)-1] == "compositeTypeRef",
		(c.key == "apiVersion" || c.key == "kind") && c.mode != onNewKey:
		vals := c.doc.mappingValues(e, "apiVersion", "kind")
		gvk := schema.FromAPIVersionAndKind(vals["apiVersion"], vals["kind"])
		if o := definitionOf(pp.pkg.Objects, gvk.GroupKind()); o != nil {
			return []location{objectLocation(root, o, o.Pos)}, nil
		}
	case len(ks) > 0 && ks[len(ks)-1] == "functionRef":
		name := c.doc.mappingValues(e, "name")["name"]
		if loc, ok := dependencyOf(root, pp.pkg, name); ok {
			return []location{loc}, nil
		}
	}
	return nil, ctx.Err()
}

// definitionOf returns the CRD, XRD or MRD among objs that serves gk (an
// XRD serves its composite and its claim).
func definitionOf(objs []*parser.Object, gk schema.GroupKind) *parser.Object {
	if gk.Kind == "" {
		return nil
	}
	for _, o := range objs {
		switch o.Kind {
		case "CustomResourceDefinition", "CompositeResourceDefinition", "ManagedResourceDefinition":
		default:
			continue
		}
		out := o.Outline()
		spec, _ := out["spec"].(map[string]any)
		if spec == nil || spec["group"] != gk.Group {
			continue
		}
		for _, names := range []string{"names", "claimNames"} {
			if n, _ := spec[names].(map[string]any); n != nil && n["kind"] == gk.Kind {
				return o
			}
		}
	}
	return nil
}

// dependencyOf returns where the meta object's dependsOn lists the
// function named name: the entry whose package's repository is the name,
// or its last segment after a prefix (Crossplane names a function
// "crossplane-contrib-function-x" after xpkg.crossplane.io/crossplane-contrib/function-x).
func dependencyOf(root string, pkg *xpkg.Package, name string) (location, bool) {
	if name == "" || len(pkg.Meta) != 1 {
		return location{}, false
	}
	m := pkg.Meta[0]
	spec, _ := m.Outline()["spec"].(map[string]any)
	list, _ := spec["dependsOn"].([]any)
	for i, dep := range list {
		dm, _ := dep.(map[string]any)
		ref := ""
		for _, k := range []string{"function", "package", "provider", "configuration"} {
			if s, ok := dm[k].(string); ok && s != "" {
				ref = s
				break
			}
		}
		if ref == "" {
			continue
		}
		repo := ref
		if at := strings.IndexByte(repo, '@'); at >= 0 {
			repo = repo[:at]
		}
		if colon := strings.LastIndexByte(repo, ':'); colon > strings.LastIndexByte(repo, '/') {
			repo = repo[:colon]
		}
		last := path.Base(repo)
		flat := strings.NewReplacer("/", "-", ".", "-").Replace(repo)
		if name != last && !strings.HasSuffix(name, "-"+last) && !strings.HasSuffix(flat, name) {
			continue
		}
		pos, err := m.FieldPosition("spec", "dependsOn", fmt.Sprint(i))
		if err != nil {
			pos = m.Pos
		}
		return objectLocation(root, m, pos), true
	}
	return location{}, false
}

// objectLocation returns the location of pos in o's file.
func objectLocation(root string, o *parser.Object, pos parser.Position) location {
	file := pos.File
	if file == "" {
		file = o.Pos.File
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(root, filepath.FromSlash(file))
	}
	p := position{Line: max(pos.Line-1, 0), Character: max(pos.Column-1, 0)}
	return location{URI: pathToURI(file), Range: lspRange{Start: p, End: p}}
}
