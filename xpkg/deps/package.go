package deps

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/xpkgkit/xpkgkit/internal/ref"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Package is what the graph keeps of one package: its identity, its meta
// facts, its dependsOn entries with their positions, the types its CRDs,
// XRDs and MRDs serve, and what its Compositions call and compose. It is a
// summary: the parsed package it was taken from is released, so a graph of
// many packages weighs the sum of its summaries, not of its packages.
type Package struct {
	// Name is the package's registry/repository, without tag or digest;
	// empty for a root package read from a file.
	Name string `json:"package,omitempty"`
	// Version is the tag the package was fetched by; empty when it was
	// fetched by digest and the source knows no tag for it, or for a root.
	Version string `json:"version,omitempty"`
	// Digest is the image (manifest) digest; empty when the source does
	// not know one (a package directory, a package.yaml stream).
	Digest string `json:"digest,omitempty"`
	// Source says where the package was read from (a path, a reference).
	Source string `json:"source,omitempty"`
	// Resolved is the reference the package was read by when an
	// ImageConfig rewrote the declared one (RewriteSource); "" when none
	// did.
	Resolved string `json:"resolved,omitempty"`
	// ImageConfig is the name of the ImageConfig that rewrote the
	// package's reference into Resolved; "" when none did.
	ImageConfig string `json:"imageConfig,omitempty"`
	// Kind is the kind of the package's meta object; empty when the
	// package holds no single meta object of a known kind.
	Kind meta.Kind `json:"kind,omitempty"`
	// Crossplane is spec.crossplane.version, the constraint on the
	// Crossplane version; empty when the package states none.
	Crossplane string `json:"crossplane,omitempty"`
	// CrossplanePos is the position of spec.crossplane.version.
	CrossplanePos parser.Position `json:"-"`
	// Meta identifies the meta object, by its metadata.name among others;
	// nil when the package holds no single meta object.
	Meta *parser.ObjectRef `json:"-"`
	// Dependencies are the spec.dependsOn entries, in file order.
	Dependencies []Dependency `json:"dependencies,omitempty"`
	// Types are the types the package's CRDs, XRDs (and their claims) and
	// MRDs serve.
	Types []Type `json:"types,omitempty"`

	// filePrefix is the prefix Summarize put before the files of the
	// package's positions ("" for none).
	filePrefix string
	// compositions are what the graph rules need of the package's
	// Compositions (Compositions).
	compositions []Composition
	// definitions are the CRDs, XRDs and MRDs kept for schema validation:
	// those serving a type that a Composition met before the package was
	// summarized composes (see Summarize). The others are released.
	definitions []*parser.Object
	// suppressions holds, for a root's summary, the package's suppression
	// annotations (meta.AnnotationSuppress): objects with their
	// position and that annotation only (Suppressions); nil when it has
	// none.
	suppressions *parser.Package
	// defs are the package's CRDs, MRDs and XRDs as the footprint
	// counts them (footprint.go); mraps its
	// ManagedResourceActivationPolicies (activation.go); safeStart that it
	// declares the safe-start capability.
	defs      []definitionInfo
	mraps     []mrap
	safeStart bool
	// metaPos is where the meta object starts.
	metaPos parser.Position
}

// Compositions returns what the summary keeps of the package's
// Compositions, in file order: the graph rules read them (the Functions a
// pipeline calls, the types it composes). The slice is shared: callers must
// not modify it.
func (p *Package) Compositions() []Composition { return p.compositions }

// Definitions returns the CRDs, XRDs and MRDs the summary keeps for schema
// validation: those serving a type that a Composition met before the
// package was summarized composes (see Summarize and AsDependency); the
// others are released. The objects are shared: callers must not modify
// them.
func (p *Package) Definitions() []*parser.Object { return p.definitions }

// Suppressions returns, for a root's summary, the objects of the package
// that carry the suppression annotation (meta.AnnotationSuppress), each
// with its position and that annotation only, as a package whose
// annotations linter.Suppress applies; nil when it has none or the
// summary is a dependency's.
func (p *Package) Suppressions() *parser.Package { return p.suppressions }

// MetaPos returns where the package's meta object starts (the zero
// Position when the package holds no single meta object).
func (p *Package) MetaPos() parser.Position { return p.metaPos }

// Dependency is one spec.dependsOn entry.
type Dependency struct {
	// Index is the entry's index in spec.dependsOn.
	Index int `json:"index"`
	// Key is the key naming the package: "package", or the deprecated
	// "provider", "configuration" or "function".
	Key string `json:"key"`
	// Package is the reference as written.
	Package string `json:"ref"`
	// Name is the reference's registry/repository, the registry lower-cased
	// (hosts are case-insensitive); empty when Package does not parse.
	Name string `json:"name,omitempty"`
	// Kind is the declared kind: the kind field with package, or the kind
	// the deprecated key implies; empty when none is declared.
	Kind meta.Kind `json:"kind,omitempty"`
	// Constraint is the version field: a semver constraint or a digest.
	Constraint string `json:"version"`
	// Pos is the position of the entry's package key (its Key).
	Pos parser.Position `json:"-"`
	// Field is the dotted path of that key, e.g. "spec.dependsOn[0].package".
	Field string `json:"-"`
	// Err says why the entry cannot be resolved as written (an invalid
	// reference, no package named); nil when it can.
	Err error `json:"-"`
}

// String returns the entry as a user reads it: "[KIND ]PACKAGE VERSION",
// e.g. "Provider xpkg.crossplane.io/crossplane-contrib/provider-nop
// >=v0.1.0", each value escaped and shortened (a package's text), with
// "(no package)" or "(no version)" for what the entry lacks.
func (d *Dependency) String() string {
	if d == nil {
		return "<nil>"
	}
	var b strings.Builder
	if d.Kind != "" {
		b.WriteString(token(string(d.Kind)) + " ")
	}
	if d.Package == "" {
		b.WriteString("(no package)")
	} else {
		b.WriteString(token(d.Package))
	}
	if d.Constraint == "" {
		b.WriteString(" (no version)")
	} else {
		b.WriteString(" " + token(d.Constraint))
	}
	return b.String()
}

// Type is a type (group, kind) some CRD, XRD or MRD of a package serves.
type Type struct {
	Group    string   `json:"group"`
	Kind     string   `json:"kind"`
	Versions []string `json:"versions"`
	// By is the kind of the object that defines it:
	// CustomResourceDefinition, CompositeResourceDefinition (for the
	// composite and its claim) or ManagedResourceDefinition.
	By string `json:"by"`
}

// Composition is what a summary keeps of one Composition: its name, the
// Functions its pipeline calls and the types it composes, each with its
// position (Package.Compositions).
type Composition struct {
	// Object identifies the Composition; its Name is the metadata.name.
	Object *parser.ObjectRef `json:"object"`
	// Functions are the pipeline steps' functionRef.name values.
	Functions []CompositionRef `json:"functions,omitempty"`
	// Composed are the apiVersion/kind of the composed resources that can
	// be read statically: the base of each resource of a
	// function-patch-and-transform input, and of spec.resources (the
	// removed Resources mode).
	Composed []CompositionRef `json:"composed,omitempty"`
}

// CompositionRef is a name or an apiVersion/kind found in a Composition,
// with where.
type CompositionRef struct {
	// Name is the functionRef's name; APIVersion and Kind a composed
	// resource's type.
	Name       string          `json:"name,omitempty"`
	APIVersion string          `json:"apiVersion,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	Pos        parser.Position `json:"-"`
	Field      string          `json:"-"`
	// Base is the composed resource's base, for schema validation; nil
	// for a functionRef, and in a dependency's summary (see Summarize).
	Base map[string]any `json:"-"`
}

// wanted is a set of group/kind pairs, safe for concurrent use: the
// composed types whose definitions a Resolver's summaries keep.
type wanted struct {
	mu sync.RWMutex
	m  map[string]bool
}

func (w *wanted) add(group, kind string) {
	w.mu.Lock()
	w.m[group+"/"+kind] = true
	w.mu.Unlock()
}

func (w *wanted) has(group, kind string) bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.m[group+"/"+kind]
}

// SummaryOption configures Summarize.
type SummaryOption func(*summaryConfig)

type summaryConfig struct {
	dependency bool
	keep       func(group, kind string) bool
}

// AsDependency makes Summarize take a dependency's summary, as a Resolver
// asks its Source for one (Source.Fetch passes its options on): it keeps
// the definitions (CRDs, XRDs, MRDs) of the types for which keep reports
// true (the types the Compositions fetched so far compose), for XP607 to
// validate the root's composed bases against, and no composed base, with
// one composed type per Composition and type (XP607 checks that a
// dependency's composed types are served), placed at its Composition's
// document with its field path: a dependency's documents are not parsed
// again to locate their fields. A nil keep keeps no definition.
func AsDependency(keep func(group, kind string) bool) SummaryOption {
	return func(c *summaryConfig) { c.dependency, c.keep = true, keep }
}

// Summarize takes the summary of a parsed package. Positions are those of
// the parser, with prefix (when not empty) and "/" put before each file
// name, so that positions in a dependency's files say which package they
// are in. By default it takes a root package's summary, which keeps its
// Compositions' composed bases for XP607 to validate; AsDependency takes
// a dependency's. Everything else of the package is released. It fails
// only when ctx is done.
func Summarize(ctx context.Context, pkg *parser.Package, prefix string, opts ...SummaryOption) (*Package, error) {
	var cfg summaryConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	s := &Package{filePrefix: prefix}
	pos := func(p parser.Position) parser.Position {
		if prefix != "" {
			if p.File == "" {
				p.File = prefix
			} else {
				p.File = prefix + "/" + p.File
			}
		}
		return p
	}
	if len(pkg.Meta) == 1 {
		if err := summarizeMeta(ctx, s, pkg, pos); err != nil {
			return nil, err
		}
	}
	if !cfg.dependency {
		s.suppressions = suppressionsOf(pkg, pos)
	}
	keep := func(o *parser.Object, ts []Type) {
		s.Types = append(s.Types, ts...)
		if cfg.keep == nil {
			return
		}
		for _, t := range ts {
			if cfg.keep(t.Group, t.Kind) {
				s.definitions = append(s.definitions, detach(ctx, o))
				return
			}
		}
	}
	for i, o := range pkg.Objects {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		switch o.GroupVersionKind().GroupKind().String() {
		case "CustomResourceDefinition.apiextensions.k8s.io":
			keep(o, typesOf(o, "CustomResourceDefinition", false))
			s.defs = append(s.defs, definitionOf(o, "CustomResourceDefinition"))
		case "ManagedResourceDefinition.apiextensions.crossplane.io":
			keep(o, typesOf(o, "ManagedResourceDefinition", false))
			s.defs = append(s.defs, definitionOf(o, "ManagedResourceDefinition"))
		case "CompositeResourceDefinition.apiextensions.crossplane.io":
			keep(o, typesOf(o, "CompositeResourceDefinition", true))
			s.defs = append(s.defs, definitionOf(o, "CompositeResourceDefinition"))
		case "ManagedResourceActivationPolicy.apiextensions.crossplane.io":
			if m, ok := mrapOf(o, pos); ok {
				s.mraps = append(s.mraps, m)
			}
		case "Composition.apiextensions.crossplane.io":
			// A Composition may be megabytes: one check each, not one
			// per 64 objects, so that a cancelled resolution stops
			// within one (deps-cost-composed-distinct).
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if c, ok := summarizeComposition(o, pos, cfg.dependency); ok {
				s.compositions = append(s.compositions, c)
			}
		}
	}
	return s, nil
}

// detach returns a dependency's definition parsed again on its own: an
// object of the package's parse holds that parse's shared storage (its
// compressed documents and its outlines' shared values), so keeping one
// object kept its whole package. A root composing kinds from 50 packages
// of 2,000 MRDs (deps-cost-activation) kept all of them: 360 MiB where
// their summaries take 170. The copy's positions start at line 1 of the
// definition's file: XP607 reports at the composed base, not at the
// definition. The object itself is returned when its bytes were not
// kept or do not parse alone.
func detach(ctx context.Context, o *parser.Object) *parser.Object {
	raw := o.Raw()
	if raw == nil {
		return o
	}
	p, err := parser.Parse(ctx, bytes.NewReader(raw), parser.WithFile(o.Pos.File), parser.WithConcurrency(1))
	if err != nil || len(p.Objects) != 1 {
		return o
	}
	return p.Objects[0]
}

// suppressionsOf returns the objects of pkg that carry the suppression
// annotation, each reduced to its position (with pos applied) and that
// annotation; nil when none does.
func suppressionsOf(pkg *parser.Package, pos func(parser.Position) parser.Position) *parser.Package {
	var out *parser.Package
	reduce := func(o *parser.Object) *parser.Object {
		v, ok := o.Annotations[meta.AnnotationSuppress]
		if !ok {
			return nil
		}
		if out == nil {
			out = &parser.Package{}
		}
		r := &parser.Object{Pos: pos(o.Pos), TypeMeta: o.TypeMeta}
		r.Name, r.Annotations = o.Name, map[string]string{meta.AnnotationSuppress: v}
		return r
	}
	for _, o := range pkg.Meta {
		if r := reduce(o); r != nil {
			out.Meta = append(out.Meta, r)
		}
	}
	for _, o := range pkg.Objects {
		if r := reduce(o); r != nil {
			out.Objects = append(out.Objects, r)
		}
	}
	return out
}

func summarizeMeta(ctx context.Context, s *Package, pkg *parser.Package, pos func(parser.Position) parser.Position) error {
	o := pkg.Meta[0]
	s.Meta = o.Ref()
	s.metaPos = pos(o.Pos)
	p := pkg.Pkg()
	if p == nil {
		return nil
	}
	if k, ok := meta.KindOf(p); ok {
		s.Kind = k
	}
	s.safeStart = meta.CapabilitiesContain(p.GetCapabilities(), meta.ProviderCapabilitySafeStart)
	loc, locErr := o.FieldLocator()
	at := func(path ...string) parser.Position {
		if locErr == nil {
			for n := len(path); n > 0; n-- {
				if fp, err := loc.FieldPosition(path[:n]...); err == nil {
					return pos(fp)
				}
			}
		}
		return pos(o.Pos)
	}
	if c := p.GetCrossplaneConstraints(); c != nil {
		s.Crossplane = c.Version
		s.CrossplanePos = at("spec", "crossplane", "version")
	}
	for i, d := range p.GetDependencies() {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		dep := Dependency{Index: i, Constraint: d.Version}
		idx := strconv.Itoa(i)
		switch {
		case d.Package != nil && *d.Package != "":
			dep.Key, dep.Package = "package", *d.Package
			if d.Kind != nil {
				dep.Kind = meta.Kind(*d.Kind)
			}
		//lint:ignore SA1019 packages still declare dependencies the v1.x way; Crossplane reads them
		case d.Provider != nil && *d.Provider != "":
			//lint:ignore SA1019 as above
			dep.Key, dep.Package, dep.Kind = "provider", *d.Provider, meta.KindProvider
		//lint:ignore SA1019 packages still declare dependencies the v1.x way; Crossplane reads them
		case d.Configuration != nil && *d.Configuration != "":
			//lint:ignore SA1019 as above
			dep.Key, dep.Package, dep.Kind = "configuration", *d.Configuration, meta.KindConfiguration
		//lint:ignore SA1019 packages still declare dependencies the v1.x way; Crossplane reads them
		case d.Function != nil && *d.Function != "":
			//lint:ignore SA1019 as above
			dep.Key, dep.Package, dep.Kind = "function", *d.Function, meta.KindFunction
		}
		path := []string{"spec", "dependsOn", idx}
		if dep.Key != "" {
			path = append(path, dep.Key)
		}
		dep.Pos, dep.Field = at(path...), parser.FieldPath(path...)
		if dep.Key == "" {
			dep.Err = fmt.Errorf("names no package (XP301)")
		} else if r, err := ref.Parse(dep.Package); err != nil {
			dep.Err = err
		} else {
			dep.Name = canonicalName(r)
		}
		s.Dependencies = append(s.Dependencies, dep)
	}
	return nil
}

// canonicalName is a reference's registry (lower-cased) and repository.
func canonicalName(r ref.Reference) string {
	r.Registry = strings.ToLower(r.Registry)
	return r.Name()
}

// CanonicalName returns the name the graph knows the package reference s
// by: its registry, lower-cased, and repository, without tag or digest.
func CanonicalName(s string) (string, error) {
	r, err := ref.Parse(s)
	if err != nil {
		return "", err
	}
	return canonicalName(r), nil
}

func typesOf(o *parser.Object, by string, claims bool) []Type {
	spec, _ := o.Outline()["spec"].(map[string]any)
	group, _ := spec["group"].(string)
	names, _ := spec["names"].(map[string]any)
	kind, _ := names["kind"].(string)
	if group == "" || kind == "" {
		return nil
	}
	var versions []string
	if vs, ok := spec["versions"].([]any); ok {
		for _, v := range vs {
			vm, _ := v.(map[string]any)
			name, _ := vm["name"].(string)
			if served, ok := vm["served"].(bool); name != "" && (!ok || served) {
				versions = append(versions, name)
			}
		}
	}
	if v, ok := spec["version"].(string); ok && v != "" && len(versions) == 0 {
		versions = append(versions, v) // apiextensions.k8s.io/v1beta1
	}
	ts := []Type{{Group: group, Kind: kind, Versions: versions, By: by}}
	if claims {
		if cn, ok := spec["claimNames"].(map[string]any); ok {
			if ck, _ := cn["kind"].(string); ck != "" {
				ts = append(ts, Type{Group: group, Kind: ck, Versions: versions, By: by})
			}
		}
	}
	return ts
}

// maxComposedPerComposition bounds what one Composition contributes.
const maxComposedPerComposition = 10000

// summarizeComposition takes what the graph rules need of a Composition.
// For a dependency (dep), whose Compositions XP607 checks for presence
// only, it keeps no base and one Ref per composed apiVersion and kind (the
// first), so that a dependency composing the same type many times weighs
// one Ref.
func summarizeComposition(o *parser.Object, pos func(parser.Position) parser.Position, dep bool) (Composition, bool) {
	c := Composition{Object: o.Ref()}
	// The root's Composition: one parse of the document for its content
	// and the positions of its fields. A dependency's: its content as
	// the parse read it (the parser's fast path, for the YAML most
	// packages are written in), and no position beyond the document's:
	// the full parse that locates fields costs about three times the
	// content's read, and a graph's dependencies may compose hundreds of
	// thousands of resources (deps-cost-composed-types), for findings
	// that point into packages the user does not edit. Their field path
	// still names the entry.
	var (
		loc *parser.FieldLocator
		u   *unstructured.Unstructured
		err error
	)
	if dep {
		u, err = o.Unstructured()
	} else if loc, err = o.FieldLocator(); err == nil {
		u, err = loc.Unstructured()
	}
	if err != nil {
		return c, false
	}
	spec, _ := u.Object["spec"].(map[string]any)
	type pending struct {
		ref  CompositionRef
		path []string
		fn   bool
	}
	var refs []pending
	type gvk struct{ apiVersion, kind string }
	seen := map[gvk]bool{}
	addBases := func(resources []any, path []string) {
		for j, r := range resources {
			if len(refs) >= maxComposedPerComposition {
				return
			}
			rm, _ := r.(map[string]any)
			base, _ := rm["base"].(map[string]any)
			av, _ := base["apiVersion"].(string)
			k, _ := base["kind"].(string)
			if av == "" || k == "" {
				continue
			}
			if dep {
				if seen[gvk{av, k}] {
					continue
				}
				seen[gvk{av, k}] = true
				base = nil
			}
			p := append(append([]string(nil), path...), strconv.Itoa(j), "base", "kind")
			refs = append(refs, pending{ref: CompositionRef{APIVersion: av, Kind: k, Base: base}, path: p})
		}
	}
	if steps, ok := spec["pipeline"].([]any); ok {
		for i, st := range steps {
			sm, _ := st.(map[string]any)
			idx := strconv.Itoa(i)
			if fr, ok := sm["functionRef"].(map[string]any); ok {
				if n, _ := fr["name"].(string); n != "" {
					refs = append(refs, pending{ref: CompositionRef{Name: n}, path: []string{"spec", "pipeline", idx, "functionRef", "name"}, fn: true})
				}
			}
			in, _ := sm["input"].(map[string]any)
			if av, _ := in["apiVersion"].(string); strings.HasPrefix(av, "pt.fn.crossplane.io/") {
				if rs, ok := in["resources"].([]any); ok {
					addBases(rs, []string{"spec", "pipeline", idx, "input", "resources"})
				}
			}
		}
	}
	if rs, ok := spec["resources"].([]any); ok {
		addBases(rs, []string{"spec", "resources"})
	}
	if len(refs) > 0 {
		for _, p := range refs {
			r := p.ref
			r.Pos, r.Field = pos(o.Pos), parser.FieldPath(p.path...)
			if loc != nil {
				if fp, err := loc.FieldPosition(p.path...); err == nil {
					r.Pos = pos(fp)
				}
			}
			if p.fn {
				c.Functions = append(c.Functions, r)
			} else {
				c.Composed = append(c.Composed, r)
			}
		}
	}
	return c, true
}
