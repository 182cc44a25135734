package apidiff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Option configures Diff.
type Option func(*config)

type config struct {
	oldVersion, newVersion string
	max                    int
	oldFile                func(string) string
}

// WithOldFiles maps the old package's file names for the messages of
// linter/changerules's Lint, which give each change's old position (xpkg-lint shows
// them relative to the working directory, as it shows the new package's).
func WithOldFiles(name func(file string) string) Option {
	return func(c *config) { c.oldFile = name }
}

// WithVersions gives the package versions (tags such as v1.2.0) of the
// old and the new package: a breaking change whose version change is not
// a major bump, on a package at 1.0 or later, is an error. Without them,
// or when either is not semver, breaking changes are warnings.
func WithVersions(oldVersion, newVersion string) Option {
	return func(c *config) { c.oldVersion, c.newVersion = oldVersion, newVersion }
}

// WithMaxChanges caps the changes kept per kind (default 1000, as
// linter.DefaultMaxDiagnostics; 0 or less keeps the default): those beyond
// are counted in Result.Dropped.
func WithMaxChanges(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.max = n
		}
	}
}

// Result is what Diff found.
type Result struct {
	// Changes in the order of the new package's definitions (removed
	// definitions last), each definition's versions and fields in order.
	Changes []Change
	// Dropped counts, per kind, the changes left out by the cap
	// (WithMaxChanges); DroppedClass is the highest class among those of
	// each kind, and DroppedErrors counts those that are errors
	// (Change.Error).
	Dropped       map[Kind]int
	DroppedClass  map[Kind]Class
	DroppedErrors map[Kind]int
	// Major reports whether the version change is a major bump; Semver
	// whether both versions were given and are semver.
	Major, Semver bool
	// Compared counts the definitions both packages hold.
	Compared int

	newPos  parser.Position     // where diagnostics of no definition point
	newPkg  *parser.Package     // whose annotations changerules.Lint applies
	oldFile func(string) string // WithOldFiles
}

// PackagePos returns where a diagnostic about no definition points: line
// 1, column 1 of the new package's first file.
func (r *Result) PackagePos() parser.Position { return r.newPos }

// NewPackage returns the new package Diff was given: its suppression
// annotations apply to the diagnostics of the changes (linter/changerules).
func (r *Result) NewPackage() *parser.Package { return r.newPkg }

// OldFile returns the name of the old package's file as WithOldFiles
// maps it (file itself without that option).
func (r *Result) OldFile(file string) string {
	if r.oldFile == nil {
		return file
	}
	return r.oldFile(file)
}

// Breaking reports whether a change of r is breaking.
func (r *Result) Breaking() bool {
	for _, c := range r.Changes {
		if c.Class == Breaking {
			return true
		}
	}
	for _, c := range r.DroppedClass {
		if c == Breaking {
			return true
		}
	}
	return false
}

// defaultMaxChanges is the changes kept per kind without WithMaxChanges:
// linter.DefaultMaxDiagnostics, what the linter keeps per rule.
const defaultMaxChanges = 1000

// maxDepth bounds the schema depth Diff descends (the parser's limits
// bound it already; this keeps the recursion bounded for hand-built
// packages).
const maxDepth = 256

// differ holds one Diff call's state.
type differ struct {
	ctx       context.Context
	c         config
	res       *Result
	violation bool // a breaking change is an error
	count     map[Kind]int
	locs      map[*parser.Object]*parser.FieldLocator
	oldPkg    *parser.Package
	newPkg    *parser.Package
	nodes     int
	// refused marks the change being added as one the API server refuses
	// at install: an error whatever the version change.
	refused bool
}

// Diff compares the API definitions (CustomResourceDefinitions,
// ManagedResourceDefinitions and CompositeResourceDefinitions) of the old
// and the new package: definitions are matched by name (and, failing
// that, by kind, to find a renamed group or plural), versions by name,
// and the schemas of the versions both hold field by field. Its cost is
// linear in the definitions and their schemas: definitions whose bytes
// are equal are skipped, the context is checked at every schema node, and
// the changes kept per kind are capped. It fails only when ctx is done.
func Diff(ctx context.Context, oldPkg, newPkg *parser.Package, opts ...Option) (*Result, error) {
	c := config{max: defaultMaxChanges}
	for _, o := range opts {
		o(&c)
	}
	d := &differ{ctx: ctx, c: c, res: &Result{Dropped: map[Kind]int{}, DroppedClass: map[Kind]Class{}, DroppedErrors: map[Kind]int{}},
		count: map[Kind]int{}, locs: map[*parser.Object]*parser.FieldLocator{}, oldPkg: oldPkg, newPkg: newPkg}
	d.semver()
	d.res.newPos = packagePos(newPkg)
	d.res.newPkg, d.res.oldFile = newPkg, c.oldFile
	olds := definitions(oldPkg)
	news := definitions(newPkg)
	byName := map[string]*definition{}
	byKind := map[string][]*definition{}
	for _, o := range olds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, dup := byName[o.key()]; !dup {
			byName[o.key()] = o
		}
		byKind[o.class()+"/"+o.kind] = append(byKind[o.class()+"/"+o.kind], o)
	}
	matched := map[*definition]bool{}
	var unmatched []*definition
	for _, n := range news {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if o := byName[n.key()]; o != nil && !matched[o] {
			matched[o] = true
			if err := d.definition(o, n); err != nil {
				return nil, err
			}
			continue
		}
		unmatched = append(unmatched, n)
	}
	for _, n := range unmatched {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// The first unmatched definition of the same kind: the list is
		// consumed from the front, so the search is linear overall.
		var pair *definition
		k := n.class() + "/" + n.kind
		list := byKind[k]
		for len(list) > 0 && matched[list[0]] {
			list = list[1:]
		}
		if len(list) > 0 {
			pair, list = list[0], list[1:]
		}
		byKind[k] = list
		if pair == nil {
			d.add(DefinitionAdded, Compatible, n, nil, "", "", nil, nil,
				"%s is new", n.what())
			continue
		}
		matched[pair] = true
		if err := d.definition(pair, n); err != nil {
			return nil, err
		}
	}
	for _, o := range olds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if matched[o] {
			continue
		}
		matched[o] = true
		d.add(DefinitionRemoved, Breaking, nil, o, "", "", nil, nil,
			"%s (%s) was removed: every object of its kinds is orphaned", o.what(), o.gk())
	}
	return d.res, nil
}

// semver decides whether a breaking change is a semver violation.
func (d *differ) semver() {
	if d.c.oldVersion == "" || d.c.newVersion == "" {
		return
	}
	ov, err1 := semver.NewVersion(d.c.oldVersion)
	nv, err2 := semver.NewVersion(d.c.newVersion)
	if err1 != nil || err2 != nil {
		return
	}
	d.res.Semver = true
	d.res.Major = nv.Major() > ov.Major()
	d.violation = !d.res.Major && ov.Major() >= 1
}

// definition is one CRD, MRD or XRD.
type definition struct {
	obj     *parser.Object
	m       map[string]any // the object's full content; nil if undecodable
	defKind string         // CustomResourceDefinition, ...
	xrd     bool
	name    string
	group   string
	kind    string
	plural  string
	claim   string
	scope   string
	// scopeSet says spec.scope is written (not a default).
	scopeSet bool
	// versions in order; schema paths in the object
	versions []*version
}

type version struct {
	name      string
	served    bool
	storage   bool
	index     int
	schema    map[string]any
	schemaAt  []string // the schema's field path in the object
	schemaRaw []byte   // canonical JSON, computed on demand
}

// class is what a definition defines: a composite resource (XRD), or a
// custom resource (CRD, or MRD: a Crossplane v2 provider may ship a
// ManagedResourceDefinition where its previous release had the CRD of the
// same name, and Crossplane creates the CRD from it).
func (d *definition) class() string {
	if d.xrd {
		return "xrd"
	}
	return "crd"
}

func (d *definition) key() string { return d.class() + "/" + d.name }

func (d *definition) what() string {
	return d.defKind + " " + safetext.Quote(d.name)
}

func (d *definition) gk() string {
	return safetext.Token(d.kind) + "." + safetext.Token(d.group)
}

// definitions lists the package's CRDs, MRDs and XRDs, decoded.
func definitions(p *parser.Package) []*definition {
	if p == nil {
		return nil
	}
	var out []*definition
	for _, o := range p.Objects {
		gvk := o.GroupVersionKind()
		var xrd bool
		switch {
		case gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition":
		case gvk.Group == "apiextensions.crossplane.io" && gvk.Kind == "ManagedResourceDefinition":
		case gvk.Group == "apiextensions.crossplane.io" && gvk.Kind == "CompositeResourceDefinition":
			xrd = true
		default:
			continue
		}
		def := &definition{obj: o, defKind: gvk.Kind, xrd: xrd, name: o.ObjectMeta.Name}
		// The outline (already decoded) names the kind, for matching;
		// the whole content is decoded only for definitions that differ.
		if m := o.Outline(); m != nil {
			def.group, _ = get(m, "spec", "group").(string)
			def.kind, _ = get(m, "spec", "names", "kind").(string)
		} else {
			def.load(nil)
		}
		out = append(out, def)
	}
	return out
}

// load decodes the definition's content and reads its names and versions.
// With locs, one parse serves the content and the positions of its
// changes (kept in locs).
func (d *definition) load(locs map[*parser.Object]*parser.FieldLocator) {
	if d.m != nil {
		return
	}
	var (
		u   *unstructured.Unstructured
		err error
	)
	if l, lerr := d.obj.FieldLocator(); lerr == nil && locs != nil {
		locs[d.obj] = l
		u, err = l.Unstructured()
	} else {
		u, err = d.obj.Unstructured()
	}
	if err != nil {
		d.m = map[string]any{}
		return
	}
	d.m = u.Object
	spec, _ := d.m["spec"].(map[string]any)
	d.group, _ = spec["group"].(string)
	names, _ := spec["names"].(map[string]any)
	d.kind, _ = names["kind"].(string)
	d.plural, _ = names["plural"].(string)
	claims, _ := spec["claimNames"].(map[string]any)
	d.claim, _ = claims["kind"].(string)
	d.scope, _ = spec["scope"].(string)
	d.scopeSet = d.scope != ""
	if d.xrd && d.scope == "" {
		// Crossplane's defaults: v1 XRDs are LegacyCluster, v2 Namespaced.
		d.scope = "LegacyCluster"
		if d.obj.GroupVersionKind().Version == "v2" {
			d.scope = "Namespaced"
		}
	}
	if !d.xrd && d.scope == "" {
		d.scope = "Namespaced"
	}
	vs, _ := spec["versions"].([]any)
	for i, e := range vs {
		vm, _ := e.(map[string]any)
		name, _ := vm["name"].(string)
		if name == "" {
			continue
		}
		v := &version{name: name, index: i}
		v.served, _ = vm["served"].(bool)
		if d.xrd {
			v.storage, _ = vm["referenceable"].(bool)
		} else {
			v.storage, _ = vm["storage"].(bool)
		}
		idx := strconv.Itoa(i)
		if s, ok := get(vm, "schema", "openAPIV3Schema").(map[string]any); ok {
			v.schema, v.schemaAt = s, []string{"spec", "versions", idx, "schema", "openAPIV3Schema"}
		} else if s, ok := get(spec, "validation", "openAPIV3Schema").(map[string]any); ok {
			// apiextensions.k8s.io/v1beta1: one schema for every version.
			v.schema, v.schemaAt = s, []string{"spec", "validation", "openAPIV3Schema"}
		}
		d.versions = append(d.versions, v)
	}
	if len(vs) == 0 {
		if name, _ := spec["version"].(string); name != "" {
			v := &version{name: name, served: true, storage: true}
			if s, ok := get(spec, "validation", "openAPIV3Schema").(map[string]any); ok {
				v.schema, v.schemaAt = s, []string{"spec", "validation", "openAPIV3Schema"}
			}
			d.versions = append(d.versions, v)
		}
	}
}

func get(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

// withoutStatus returns a document's bytes without its top-level status
// section, which the API does not depend on: crossplane xpkg build writes
// controller-gen's empty status into the image, a source tree may not
// have it. Only a block-style top-level "status:" key is recognised; any
// other form is compared as it is.
func withoutStatus(raw []byte) []byte {
	var start int
	switch {
	case bytes.HasPrefix(raw, []byte("status:")):
		start = 0
	default:
		i := bytes.Index(raw, []byte("\nstatus:"))
		if i < 0 {
			return raw
		}
		start = i + 1
	}
	// The section ends at the next line that starts in column 0 with
	// anything but a comment.
	end := len(raw)
	for i := bytes.IndexByte(raw[start:], '\n'); i >= 0; {
		pos := start + i + 1
		if pos < len(raw) && raw[pos] != ' ' && raw[pos] != '\t' && raw[pos] != '#' && raw[pos] != '\n' && raw[pos] != '-' {
			end = pos
			break
		}
		next := bytes.IndexByte(raw[pos:], '\n')
		if next < 0 {
			break
		}
		i = pos - start + next
	}
	out := make([]byte, 0, len(raw)-(end-start))
	return append(append(out, raw[:start]...), raw[end:]...)
}

// release drops the decoded content (the names stay).
func (d *definition) release() {
	d.m, d.versions = map[string]any{}, nil
}

// conversionWebhook reports whether the definition converts between its
// versions through a webhook.
func (d *definition) conversionWebhook() bool {
	s, _ := get(d.m, "spec", "conversion", "strategy").(string)
	return s == "Webhook"
}

func (d *definition) storage() *version {
	for _, v := range d.versions {
		if v.storage {
			return v
		}
	}
	return nil
}

func (v *version) canonical() []byte {
	if v.schemaRaw == nil {
		b, err := json.Marshal(v.schema)
		if err != nil {
			b = []byte{}
		}
		v.schemaRaw = b
	}
	return v.schemaRaw
}

// definition compares two definitions matched by name or kind.
func (d *differ) definition(o, n *definition) error {
	d.res.Compared++
	if ob, nb := o.obj.Raw(), n.obj.Raw(); ob != nil && bytes.Equal(withoutStatus(ob), withoutStatus(nb)) && o.obj.APIVersion == n.obj.APIVersion {
		return nil
	}
	o.load(d.locs)
	n.load(d.locs)
	// Memory stays bounded by the largest pair of definitions: their
	// content and position tables are dropped once they are compared.
	defer func() {
		o.release()
		n.release()
		clear(d.locs)
	}()
	for _, f := range []struct {
		what     string
		old, new string
		path     []string
	}{
		{"group", o.group, n.group, []string{"spec", "group"}},
		{"kind", o.kind, n.kind, []string{"spec", "names", "kind"}},
		{"plural", o.plural, n.plural, []string{"spec", "names", "plural"}},
	} {
		if f.old != f.new {
			// The same object (matched by name) with another kind: the
			// API server refuses the update.
			d.refused = f.what == "kind" && o.name == n.name
			d.add(NamesChanged, Breaking, n, o, "", "", f.path, f.path,
				"%s: the %s changed from %s to %s: objects of the old name are no longer served%s", n.what(), f.what, safetext.Quote(f.old), safetext.Quote(f.new), refusedNote(d.refused, n))
			d.refused = false
		}
	}
	if o.scope != n.scope {
		// A CRD's scope is immutable once established; an XRD's spec.scope
		// when both versions write it (a CEL transition rule).
		d.refused = !n.xrd || o.scopeSet && n.scopeSet
		d.add(ScopeChanged, Breaking, n, o, "", "", []string{"spec", "scope"}, []string{"spec", "scope"},
			"%s: the scope changed from %s to %s: existing objects cannot move%s", n.what(), safetext.Token(o.scope), safetext.Token(n.scope), refusedNote(d.refused, n))
		d.refused = false
	}
	if o.xrd && o.claim != "" && o.claim != n.claim {
		what := "was removed"
		if n.claim != "" {
			what = "changed to " + safetext.Quote(n.claim)
		}
		d.refused = n.claim != "" && o.name == n.name
		d.add(ClaimRemoved, Breaking, n, o, "", "", []string{"spec", "claimNames"}, []string{"spec", "claimNames", "kind"},
			"%s: the claim kind %s %s: every claim of it is orphaned%s", n.what(), safetext.Quote(o.claim), what, refusedNote(d.refused, n))
		d.refused = false
	}
	newVersions := map[string]*version{}
	for _, v := range n.versions {
		if _, dup := newVersions[v.name]; !dup {
			newVersions[v.name] = v
		}
	}
	oldVersions := map[string]*version{}
	for _, v := range o.versions {
		if _, dup := oldVersions[v.name]; !dup {
			oldVersions[v.name] = v
		}
	}
	for _, ov := range o.versions {
		if err := d.ctx.Err(); err != nil {
			return err
		}
		nv := newVersions[ov.name]
		vpath := func(v *version) []string {
			if v == nil || v.schemaAt == nil || v.schemaAt[1] != "versions" {
				return []string{"spec", "versions"}
			}
			return v.schemaAt[:3]
		}
		switch {
		case nv == nil && ov.served:
			d.add(VersionRemoved, Breaking, n, o, ov.name, "", vpath(ov), []string{"spec", "versions"},
				"%s: served version %s was removed: clients and objects of %s/%s fail", n.what(), safetext.Token(ov.name), safetext.Token(o.group), safetext.Token(ov.name))
			continue
		case nv == nil:
			continue
		case ov.served && !nv.served:
			d.add(VersionUnserved, Breaking, n, o, ov.name, "", append(vpath(ov), "served"), append(vpath(nv), "served"),
				"%s: version %s is no longer served: clients of %s/%s fail", n.what(), safetext.Token(ov.name), safetext.Token(o.group), safetext.Token(ov.name))
		}
		if ov.schema != nil && nv.schema != nil {
			sd := &schemaDiff{d: d, o: o, n: n, version: ov.name}
			if err := sd.node(ov.schema, nv.schema, nil, ov.schemaAt, nv.schemaAt, 0); err != nil {
				return err
			}
		}
	}
	for _, nv := range n.versions {
		if _, ok := oldVersions[nv.name]; !ok {
			path := []string{"spec", "versions"}
			if nv.schemaAt != nil && nv.schemaAt[1] == "versions" {
				path = nv.schemaAt[:3]
			}
			d.add(VersionAdded, Compatible, n, o, nv.name, "", []string{"spec", "versions"}, path,
				"%s: version %s is new", n.what(), safetext.Token(nv.name))
		}
	}
	os, ns := o.storage(), n.storage()
	if os != nil && ns != nil && os.name != ns.name {
		field := "storage"
		if n.xrd {
			field = "referenceable"
		}
		oldPath := []string{"spec", "versions", strconv.Itoa(os.index), field}
		newPath := []string{"spec", "versions", strconv.Itoa(ns.index), field}
		switch {
		case n.conversionWebhook():
			d.add(StorageChanged, Compatible, n, o, ns.name, "", oldPath, newPath,
				"%s: the storage version changed from %s to %s, through the conversion webhook", n.what(), safetext.Token(os.name), safetext.Token(ns.name))
		case os.schema != nil && ns.schema != nil && (bytes.Equal(os.canonical(), ns.canonical()) || sameSchema(os.schema, ns.schema)):
			// Equal, or equal but for descriptions: nothing needs
			// converting (issue 34 item 6).
			d.add(StorageChanged, Compatible, n, o, ns.name, "", oldPath, newPath,
				"%s: the storage version changed from %s to %s, whose schemas are equal but for their documentation (conversion None is enough)", n.what(), safetext.Token(os.name), safetext.Token(ns.name))
		default:
			d.add(StorageChanged, Breaking, n, o, ns.name, "", oldPath, newPath,
				"%s: the storage version changed from %s to %s without a conversion webhook: objects stored as %s are served as %s unconverted", n.what(), safetext.Token(os.name), safetext.Token(ns.name), safetext.Token(os.name), safetext.Token(ns.name))
		}
	}
	return nil
}

// add records a change, positioned in both packages, unless its kind is
// at the cap.
func (d *differ) add(k Kind, class Class, n, o *definition, version, path string, oldField, newField []string, format string, args ...any) {
	isErr := d.isError(class)
	if d.count[k] >= d.c.max {
		d.res.Dropped[k]++
		d.res.DroppedClass[k] = max(d.res.DroppedClass[k], class)
		if isErr {
			d.res.DroppedErrors[k]++
		}
		return
	}
	d.count[k]++
	msg := fmt.Sprintf(format, args...)
	if class == Breaking && !d.refused {
		msg += d.semverNote()
	}
	c := Change{Kind: k, Class: class, Version: version, Path: path, Error: isErr, Message: msg}
	if n != nil {
		c.Definition = n.what()
		c.New = d.locate(n.obj, newField, d.newPkg)
	} else {
		c.New = Location{Pos: packagePos(d.newPkg)}
	}
	if o != nil {
		if c.Definition == "" {
			c.Definition = o.what()
		}
		c.Old = d.locate(o.obj, oldField, d.oldPkg)
	} else {
		c.Old = Location{Pos: packagePos(d.oldPkg)}
	}
	d.res.Changes = append(d.res.Changes, c)
}

// isError reports whether a change of class is an error (Change.Error):
// refused at install, or breaking in a semver violation.
func (d *differ) isError(class Class) bool {
	return d.refused || class == Breaking && d.violation
}

func (d *differ) semverNote() string {
	switch {
	case !d.res.Semver:
		return " (package versions unknown: not checked against semver)"
	case d.res.Major:
		return fmt.Sprintf(" (allowed: %s -> %s is a major version change)", safetext.Token(d.c.oldVersion), safetext.Token(d.c.newVersion))
	case d.violation:
		return fmt.Sprintf(" (semver violation: %s -> %s is not a major version change)", safetext.Token(d.c.oldVersion), safetext.Token(d.c.newVersion))
	}
	return fmt.Sprintf(" (%s -> %s: a 0.x package may break its API in a minor release)", safetext.Token(d.c.oldVersion), safetext.Token(d.c.newVersion))
}

// refusedNote says why an update is refused, naming the code that refuses
// it.
func refusedNote(refused bool, n *definition) string {
	switch {
	case !refused:
		return ""
	case n.xrd:
		return ": the field is immutable (Crossplane's CompositeResourceDefinition CRD, x-kubernetes-validations self == oldSelf), so the API server refuses the new package's XRD at install"
	}
	return ": the API server refuses the update of an established CRD (k8s.io/apiextensions-apiserver validateCustomResourceDefinitionSpecUpdate), so the new package cannot install"
}

// locate returns the location of field in obj: the nearest present
// field's key. Each object is parsed for positions once.
func (d *differ) locate(obj *parser.Object, field []string, p *parser.Package) Location {
	loc := Location{Object: obj, Field: field, Pos: obj.Pos}
	if len(field) == 0 {
		return loc
	}
	l, ok := d.locs[obj]
	if !ok {
		l, _ = obj.FieldLocator()
		d.locs[obj] = l
	}
	if l == nil {
		return loc
	}
	for n := len(field); n > 0; n-- {
		if pos, err := l.FieldPosition(field[:n]...); err == nil {
			loc.Pos = pos
			break
		}
	}
	return loc
}

// packagePos is line 1 of the file of the package's meta object (or first
// object).
func packagePos(p *parser.Package) parser.Position {
	if p == nil {
		return parser.Position{}
	}
	for _, list := range [][]*parser.Object{p.Meta, p.Objects} {
		if len(list) > 0 {
			return parser.Position{File: list[0].Pos.File, Line: 1, Column: 1}
		}
	}
	return parser.Position{}
}

// dataPath formats a path of the API's objects.
func dataPath(p []string) string {
	var b strings.Builder
	for i, e := range p {
		switch {
		case e == "[*]":
			b.WriteString(e)
		case e == "" || e != "*" && strings.ContainsAny(e, "./[]\" *"):
			b.WriteString("[" + strconv.Quote(e) + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e)
		}
	}
	return b.String()
}
