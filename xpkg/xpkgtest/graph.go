package xpkgtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
)

// WithLegacyDependency adds an entry to spec.dependsOn written with the
// deprecated key that kind implies (provider, configuration or function)
// instead of apiVersion, kind and package.
func (p *Package) WithLegacyDependency(kind meta.Kind, pkg, version string) *Package {
	c := p.clone()
	c.deps = append(c.deps, map[string]any{strings.ToLower(string(kind)): pkg, "version": version})
	return c
}

// Graph is a set of package fixtures, each published under a reference
// and a tag, for tests of dependency resolution (package xpkg/deps). Add
// packages, then read them through Source (in memory) or Dir (a directory
// for deps.NewDirSource, one .xpkg file per package).
//
//	g := xpkgtest.NewGraph().
//		Add("xpkg.example.org/acme/provider-a", "v1.0.0", xpkgtest.NewProvider("provider-a")).
//		Add("xpkg.example.org/acme/provider-a", "v1.1.0", xpkgtest.NewProvider("provider-a"))
//	src := g.Source(t)
type Graph struct {
	entries []graphEntry
}

type graphEntry struct {
	name, tag string
	pkg       *Package
}

// NewGraph returns an empty Graph.
func NewGraph() *Graph { return &Graph{} }

// Add publishes p as the tag of the package name (a reference with a
// registry host and no tag, e.g. "xpkg.example.org/acme/provider-a"). It
// returns g, to chain calls.
func (g *Graph) Add(name, tag string, p *Package) *Graph {
	g.entries = append(g.entries, graphEntry{name, tag, p})
	return g
}

// Len returns how many package versions g holds.
func (g *Graph) Len() int { return len(g.entries) }

// Source returns the packages of g in a deps.MemorySource.
func (g *Graph) Source(tb testing.TB) *deps.MemorySource {
	tb.Helper()
	src := deps.NewMemorySource()
	for _, e := range g.entries {
		if _, err := src.Add(e.name, e.tag, e.pkg.YAML()); err != nil {
			tb.Fatalf("xpkgtest: graph: %s:%s: %v", e.name, e.tag, err)
		}
	}
	return src
}

// Digest returns the digest the MemorySource of g gives the package name
// at tag: the sha256 digest of its package.yaml stream.
func (g *Graph) Digest(tb testing.TB, name, tag string) string {
	tb.Helper()
	for _, e := range g.entries {
		if e.name == name && e.tag == tag {
			d, err := deps.NewMemorySource().Add(name, tag, e.pkg.YAML())
			if err != nil {
				tb.Fatal(err)
			}
			return d
		}
	}
	tb.Fatalf("xpkgtest: graph has no %s:%s", name, tag)
	return ""
}

// Dir writes the packages of g to a new directory in tb.TempDir(), laid
// out as deps.NewDirSource reads it: DIR/<name>/<tag>.xpkg.
func (g *Graph) Dir(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	for _, e := range g.entries {
		img := e.pkg.MustImage(tb)
		path := filepath.Join(dir, filepath.FromSlash(e.name), e.tag+".xpkg")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatalf("xpkgtest: graph: %v", err)
		}
		if err := os.WriteFile(path, img.xpkg(tb), 0o644); err != nil {
			tb.Fatalf("xpkgtest: graph: %v", err)
		}
	}
	return dir
}
