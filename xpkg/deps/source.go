package deps

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/opencontainers/go-digest"

	"github.com/xpkgkit/xpkgkit/parser"
)

// Source is where the resolver finds packages: it lists the versions
// (tags) of a package and fetches one version, by tag or digest, as a
// summary. Implementations are safe for concurrent use.
type Source interface {
	// Tags lists the tags of the package name (registry/repository, as
	// CanonicalName gives it). The error wraps ErrNotFound when the source
	// has no such package, and ErrUnversioned when it holds the package
	// but cannot list its versions (Crossplane's package cache).
	Tags(ctx context.Context, name string) ([]string, error)
	// Fetch reads the package name at version — a tag, a digest
	// "sha256:<hex>", or "" for the one copy an unversioned source holds —
	// from its base layer only, and returns its summary, taken by
	// Summarize with opts (the Resolver's AsDependency: what the graph
	// keeps of a dependency), with Name, Version, Digest and Source set.
	// The error wraps ErrNotFound when the source has no such version.
	Fetch(ctx context.Context, name, version string, opts ...SummaryOption) (*Package, error)
}

// Classes of source errors; test with errors.Is.
var (
	// ErrNotFound: the source has no such package or version.
	ErrNotFound = errors.New("deps: not found")
	// ErrUnversioned: the source holds the package but records no
	// versions for it; Fetch it with version "".
	ErrUnversioned = errors.New("deps: the source records no versions")
	// ErrAmbiguous: an unversioned source holds several copies of the
	// package and nothing says which one a constraint means.
	ErrAmbiguous = errors.New("deps: several copies and no version to choose by")
)

// Sources combines sources: the first source that has a package (whose
// Tags does not fail with ErrNotFound) answers every question about it, so
// that a local directory given first shadows a registry given after it.
// Which source answered for a package is remembered, so a Fetch after Tags
// asks only that one.
func Sources(srcs ...Source) Source {
	if len(srcs) == 1 {
		return srcs[0]
	}
	return &multiSource{srcs: slices.Clone(srcs), owner: map[string]int{}}
}

type multiSource struct {
	srcs  []Source
	mu    sync.Mutex
	owner map[string]int // name -> index of the source that has it
}

// find returns the index of the first source that has name, and its tags.
func (m *multiSource) find(ctx context.Context, name string) (int, []string, error) {
	for i, s := range m.srcs {
		tags, err := s.Tags(ctx, name)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		m.mu.Lock()
		m.owner[name] = i
		m.mu.Unlock()
		return i, tags, err
	}
	return -1, nil, fmt.Errorf("%w: %s", ErrNotFound, name)
}

func (m *multiSource) Tags(ctx context.Context, name string) ([]string, error) {
	_, tags, err := m.find(ctx, name)
	return tags, err
}

func (m *multiSource) Fetch(ctx context.Context, name, version string, opts ...SummaryOption) (*Package, error) {
	m.mu.Lock()
	i, ok := m.owner[name]
	m.mu.Unlock()
	if !ok {
		var err error
		if i, _, err = m.find(ctx, name); i < 0 {
			return nil, err
		}
	}
	return m.srcs[i].Fetch(ctx, name, version, opts...)
}

// MemorySource is a Source held in memory: package.yaml streams added by
// name and tag. Its digests are the sha256 digests of the streams (not of
// an image, which it has none of). xpkg/xpkgtest builds whole graphs into
// one. Safe for concurrent use.
type MemorySource struct {
	mu     sync.Mutex
	pkgs   map[string]map[string][]byte // name -> tag -> package.yaml
	digest map[string]map[string]string // name -> digest -> tag
	opts   []parser.Option
	// fetches counts the calls of Fetch, for tests that check that the
	// resolver fetches each package once (export_test.go).
	fetches map[string]int
}

// NewMemorySource returns an empty MemorySource; opts are given to the
// parser when a package is fetched.
func NewMemorySource(opts ...parser.Option) *MemorySource {
	return &MemorySource{pkgs: map[string]map[string][]byte{}, digest: map[string]map[string]string{}, opts: opts, fetches: map[string]int{}}
}

// Add stores the package.yaml stream yaml as version tag of the package
// name (a reference without tag, e.g. "xpkg.example.org/acme/provider-a"),
// and returns its digest.
func (m *MemorySource) Add(name, tag string, yaml []byte) (string, error) {
	n, err := CanonicalName(name)
	if err != nil {
		return "", err
	}
	d := digest.FromBytes(yaml).String()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pkgs[n] == nil {
		m.pkgs[n] = map[string][]byte{}
		m.digest[n] = map[string]string{}
	}
	m.pkgs[n][tag] = bytes.Clone(yaml)
	m.digest[n][d] = tag
	return d, nil
}

// fetchCount returns how many times Fetch was called for name at version.
func (m *MemorySource) fetchCount(name, version string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fetches[name+"@"+version]
}

// Tags implements Source.
func (m *MemorySource) Tags(_ context.Context, name string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tags, ok := m.pkgs[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	out := make([]string, 0, len(tags))
	for t := range tags {
		out = append(out, t)
	}
	slices.Sort(out)
	return out, nil
}

// Fetch implements Source.
func (m *MemorySource) Fetch(ctx context.Context, name, version string, opts ...SummaryOption) (*Package, error) {
	m.mu.Lock()
	m.fetches[name+"@"+version]++
	tag := version
	if isDigest(version) {
		t, ok := m.digest[name][version]
		if !ok {
			m.mu.Unlock()
			return nil, fmt.Errorf("%w: %s@%s", ErrNotFound, name, version)
		}
		tag = t
	}
	y, ok := m.pkgs[name][tag]
	m.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: %s:%s", ErrNotFound, name, version)
	}
	label := name + ":" + tag
	pp, err := parser.Parse(ctx, bytes.NewReader(y), append(slices.Clone(m.opts), parser.WithFile("package.yaml"))...)
	if err != nil {
		return nil, fmt.Errorf("deps: %s: %w", label, err)
	}
	s, err := Summarize(ctx, pp, label, opts...)
	if err != nil {
		return nil, err
	}
	s.Name, s.Version, s.Source = name, tag, "memory:"+label
	s.Digest = fmt.Sprintf("sha256:%x", sha256.Sum256(y))
	return s, nil
}
