package xpkgtest

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// metaAPIVersion is the apiVersion of the meta objects fixtures write
// (meta.DefaultGroup at v1).
const metaAPIVersion = meta.DefaultGroup + "/v1"

// Package is a package fixture. Make one with NewProvider,
// NewConfiguration or NewFunction; every With... method returns a new
// Package.
type Package struct {
	kind        meta.Kind
	name        string
	annotations map[string]string
	xpVersion   string
	deps        []map[string]any
	objects     [][]byte // YAML documents, each ending with a newline
	examples    [][]byte
	noMeta      bool
	extraMetas  int
}

// NewProvider returns a valid Provider package named name, with no
// objects.
func NewProvider(name string) *Package { return newPackage(meta.KindProvider, name) }

// NewConfiguration returns a valid Configuration package named name, with
// no objects.
func NewConfiguration(name string) *Package { return newPackage(meta.KindConfiguration, name) }

// NewFunction returns a valid Function package named name, with no objects.
func NewFunction(name string) *Package { return newPackage(meta.KindFunction, name) }

func newPackage(kind meta.Kind, name string) *Package {
	return &Package{
		kind: kind,
		name: name,
		annotations: map[string]string{
			meta.AnnotationMaintainer:  "xpkgkit fixtures <fixtures@example.org>",
			meta.AnnotationSource:      "https://github.com/xpkgkit/xpkgkit",
			meta.AnnotationLicense:     "Apache-2.0",
			meta.AnnotationDescription: fmt.Sprintf("The %s %s is a test fixture built by xpkgtest.", name, strings.ToLower(string(kind))),
		},
	}
}

// clone returns a copy of p that shares nothing mutable with it.
func (p *Package) clone() *Package {
	c := *p
	c.annotations = maps.Clone(p.annotations)
	c.deps = slices.Clone(p.deps)
	c.objects = slices.Clone(p.objects)
	c.examples = slices.Clone(p.examples)
	return &c
}

// Kind returns the package's kind: meta.KindProvider, meta.KindConfiguration
// or meta.KindFunction.
func (p *Package) Kind() meta.Kind { return p.kind }

// Name returns the name of the package's meta object.
func (p *Package) Name() string { return p.name }

// WithCrossplaneConstraint sets spec.crossplane.version, a semantic version
// constraint such as ">=v1.14.0".
func (p *Package) WithCrossplaneConstraint(constraint string) *Package {
	c := p.clone()
	c.xpVersion = constraint
	return c
}

// WithAnnotation sets an annotation of the meta object.
func (p *Package) WithAnnotation(key, value string) *Package {
	c := p.clone()
	c.annotations[key] = value
	return c
}

// WithoutAnnotation removes an annotation of the meta object, such as one
// of the defaults (meta.AnnotationLicense, ...).
func (p *Package) WithoutAnnotation(key string) *Package {
	c := p.clone()
	delete(c.annotations, key)
	return c
}

// WithDependency adds an entry to spec.dependsOn: a package of kind
// meta.KindProvider, meta.KindConfiguration or meta.KindFunction, its reference with a
// registry host (e.g.
// "xpkg.crossplane.io/crossplane-contrib/provider-aws") and a version
// constraint (e.g. ">=v1.0.0"), written with apiVersion
// (pkg.crossplane.io/v1), kind and package, not with the deprecated
// provider/configuration/function fields.
func (p *Package) WithDependency(kind meta.Kind, pkg, version string) *Package {
	c := p.clone()
	c.deps = append(c.deps, map[string]any{
		"apiVersion": "pkg.crossplane.io/v1",
		"kind":       kind,
		"package":    pkg,
		"version":    version,
	})
	return c
}

// WithCRD adds a CustomResourceDefinition of group and kind, named
// <plural>.<group> (the plural is Plural(kind)), with the given versions
// (v1alpha1 when none): each is served and has a schema, and the first is
// the storage version. It is cluster-scoped. Provider and Function
// packages may hold CRDs. A CRD with other fields (namespaced, short
// names, unserved versions) is added as written with WithObject.
func (p *Package) WithCRD(group, kind string, versions ...string) *Package {
	if len(versions) == 0 {
		versions = []string{"v1alpha1"}
	}
	plural := Plural(kind)
	vs := make([]any, len(versions))
	for i, v := range versions {
		vs[i] = map[string]any{"name": v, "served": true, "storage": i == 0, "schema": map[string]any{"openAPIV3Schema": objectSchema()}}
	}
	return p.WithObject(mustYAML(map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group":    group,
			"scope":    "Cluster",
			"names":    map[string]any{"kind": kind, "listKind": kind + "List", "plural": plural, "singular": strings.ToLower(kind)},
			"versions": vs,
		},
	}))
}

// WithXRD adds a CompositeResourceDefinition (apiextensions.crossplane.io/v1)
// of group and kind, named <plural>.<group>, with the given versions
// (v1alpha1 when none): each is served and has a schema, and the first is
// the referenceable version. Configuration packages hold XRDs.
func (p *Package) WithXRD(group, kind string, versions ...string) *Package {
	if len(versions) == 0 {
		versions = []string{"v1alpha1"}
	}
	plural := Plural(kind)
	vs := make([]any, len(versions))
	for i, v := range versions {
		vs[i] = map[string]any{"name": v, "served": true, "referenceable": i == 0, "schema": map[string]any{"openAPIV3Schema": objectSchema()}}
	}
	return p.WithObject(mustYAML(map[string]any{
		"apiVersion": "apiextensions.crossplane.io/v1",
		"kind":       "CompositeResourceDefinition",
		"metadata":   map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group":    group,
			"names":    map[string]any{"kind": kind, "plural": plural},
			"versions": vs,
		},
	}))
}

// WithComposition adds a Composition named name for the composite resource
// of apiVersion (group/version) and kind, in Pipeline mode with one step
// that calls the function named function (for instance
// "crossplane-contrib-function-patch-and-transform"; add it as a dependency
// with WithDependency). Configuration packages hold Compositions.
func (p *Package) WithComposition(name, apiVersion, kind, function string) *Package {
	return p.WithObject(mustYAML(map[string]any{
		"apiVersion": "apiextensions.crossplane.io/v1",
		"kind":       "Composition",
		"metadata":   map[string]any{"name": name},
		"spec": map[string]any{
			"compositeTypeRef": map[string]any{"apiVersion": apiVersion, "kind": kind},
			"mode":             "Pipeline",
			"pipeline": []any{map[string]any{
				"step":        "run-" + function,
				"functionRef": map[string]any{"name": function},
			}},
		},
	}))
}

// WithObject adds a YAML document, as given (without "---" lines), after
// the objects already added.
func (p *Package) WithObject(doc []byte) *Package {
	c := p.clone()
	c.objects = append(c.objects, endLine(doc))
	return c
}

// WithExample adds a YAML document to the package's examples, which go to
// ExamplesDir of the on-disk format and to the examples layer of its
// image.
func (p *Package) WithExample(doc []byte) *Package {
	c := p.clone()
	c.examples = append(c.examples, endLine(doc))
	return c
}

// Meta returns the meta object's document: the content of crossplane.yaml.
func (p *Package) Meta() []byte {
	spec := map[string]any{}
	if p.xpVersion != "" {
		spec["crossplane"] = map[string]any{"version": p.xpVersion}
	}
	if len(p.deps) > 0 {
		deps := make([]any, len(p.deps))
		for i, d := range p.deps {
			deps[i] = d
		}
		spec["dependsOn"] = deps
	}
	m := map[string]any{
		"apiVersion": metaAPIVersion,
		"kind":       p.kind,
		"metadata":   map[string]any{"name": p.name, "annotations": p.annotations},
	}
	if len(spec) > 0 {
		m["spec"] = spec
	}
	return mustYAML(m)
}

// documents returns the package's documents in stream order.
func (p *Package) documents() [][]byte {
	var docs [][]byte
	if !p.noMeta {
		docs = append(docs, p.Meta())
	}
	for range p.extraMetas {
		docs = append(docs, p.Meta())
	}
	return append(docs, p.objects...)
}

// YAML returns the package's YAML stream, the content of package.yaml: the
// meta object first, then the objects in the order they were added,
// separated by "---" lines.
func (p *Package) YAML() []byte { return joinDocs(p.documents()) }

// ExamplesYAML returns the examples' YAML stream, the content of the
// examples layer's file, or nil when the package has no examples.
func (p *Package) ExamplesYAML() []byte {
	if len(p.examples) == 0 {
		return nil
	}
	return joinDocs(p.examples)
}

// FS returns the package in its on-disk format: crossplane.yaml holding the
// meta object (absent when the package has none), each other object in a
// file of its own under objects/, and each example under examples/, named
// so that reading them in lexical order, as xpkg.Build and parser.ParseFS
// do, gives YAML and ExamplesYAML back.
func (p *Package) FS() fstest.MapFS {
	fsys := fstest.MapFS{}
	docs := p.documents()
	if !p.noMeta {
		fsys[parser.MetaFile] = &fstest.MapFile{Data: docs[0], Mode: 0o644}
		docs = docs[1:]
	}
	for i, d := range docs {
		fsys[fmt.Sprintf("objects/%0*d-%s.yaml", indexWidth(len(docs)), i, docFileName(d))] = &fstest.MapFile{Data: d, Mode: 0o644}
	}
	for i, d := range p.examples {
		fsys[fmt.Sprintf("%s/%0*d-%s.yaml", xpkg.ExamplesDir, indexWidth(len(p.examples)), i, docFileName(d))] = &fstest.MapFile{Data: d, Mode: 0o644}
	}
	return fsys
}

// Dir writes the package in its on-disk format (FS) to a new directory in
// tb.TempDir() and returns its path.
func (p *Package) Dir(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), p.name)
	if err := os.CopyFS(dir, p.FS()); err != nil {
		tb.Fatalf("xpkgtest: writing %s: %v", dir, err)
	}
	return dir
}

// PackageYAMLFile writes YAML to a file named package.yaml in tb.TempDir()
// and returns its path.
func (p *Package) PackageYAMLFile(tb testing.TB) string {
	tb.Helper()
	return writeTemp(tb, xpkg.PackageFile, p.YAML())
}

// indexWidth returns how many digits file name prefixes need for n files
// to sort in order: at least 3.
func indexWidth(n int) int {
	return max(3, len(strconv.Itoa(n-1)))
}

// docFileName returns "kind-name" of a document, lower-cased and made safe
// for a file name, or "object" when it has neither.
func docFileName(doc []byte) string {
	var head struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = yaml.Unmarshal(doc, &head) // a document that is not YAML keeps the default name
	name := strings.Trim(strings.ToLower(head.Kind)+"-"+strings.ToLower(head.Metadata.Name), "-")
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, name)
	if name == "" {
		return "object"
	}
	return name
}

// joinDocs joins documents, each ending with a newline, with "---" lines.
func joinDocs(docs [][]byte) []byte {
	return bytes.Join(docs, []byte("---\n"))
}

func endLine(b []byte) []byte {
	b = slices.Clone(b)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	return b
}

// mustYAML encodes v, a tree of maps, slices, strings and booleans built by
// this package, which always encodes.
func mustYAML(v any) []byte {
	b, err := yaml.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("xpkgtest: encoding a fixture: %v", err)) // only on a bug in this package
	}
	return b
}

func objectSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"spec": map[string]any{
				"type":       "object",
				"properties": map[string]any{"size": map[string]any{"type": "integer", "description": "The size."}},
			},
		},
	}
}

// Plural returns the plural that WithCRD and WithXRD give kind: lower-cased,
// with "es" after s, x, z, ch and sh, "ies" for a final consonant and y,
// and "s" otherwise.
func Plural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case k == "":
		return k
	case strings.HasSuffix(k, "s"), strings.HasSuffix(k, "x"), strings.HasSuffix(k, "z"),
		strings.HasSuffix(k, "ch"), strings.HasSuffix(k, "sh"):
		return k + "es"
	case strings.HasSuffix(k, "y") && len(k) > 1 && !strings.ContainsRune("aeiou", rune(k[len(k)-2])):
		return k[:len(k)-1] + "ies"
	}
	return k + "s"
}

func writeTemp(tb testing.TB, name string, data []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatalf("xpkgtest: %v", err)
	}
	return p
}
