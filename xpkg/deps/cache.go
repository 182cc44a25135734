package deps

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/ref"
	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// cacheSource is the Source NewCacheSource returns.
type cacheSource struct {
	dir    string
	limits xpkg.Limits

	once  sync.Once
	index map[string][]string // revision prefix (name label + "-") -> hex prefixes
	err   error
}

// NewCacheSource returns a Source over Crossplane's package cache directory (the
// volume mounted at /cache in Crossplane's pod). Crossplane stores there
// the package.yaml stream of each package revision, gzip-compressed, in a
// file named after the revision: <revision>.gz
// (internal/xpkg/cache.go, FsPackageCache). A dependency Crossplane
// installed is named after its repository made a DNS label, and its
// revision after that name and the first 12 hex digits of the image digest
// (internal/xpkg/name.go, FriendlyID; internal/controller/pkg/manager,
// Revision), so the cache holds xpkg.example.org/acme/provider-a as
// acme-provider-a-<12 hex>.gz.
//
// The cache records no tags: Tags fails with ErrUnversioned for a package
// it holds, and Fetch with version "" returns the one revision held (or
// fails with ErrAmbiguous when several are). A digest version matches the
// revision whose 12 hex digits begin it. The Digest of a package read from
// the cache is "sha256:" and those 12 digits: a prefix, not a full digest.
// Safe for concurrent use.
//
// The cache directory is dir; packages are parsed within the package
// limits (WithPackageLimits; the gzip stream is bounded by Limits.Parser's
// total bytes).
func NewCacheSource(dir string, opts ...SourceOption) Source {
	return &cacheSource{dir: dir, limits: newSourceConfig(opts).limits}
}

func (c *cacheSource) load(ctx context.Context) error {
	c.once.Do(func() {
		c.index = map[string][]string{}
		entries, err := os.ReadDir(c.dir)
		if err != nil {
			c.err = fmt.Errorf("deps: reading the package cache: %w", err)
			return
		}
		if len(entries) > maxDirEntries {
			c.err = limitErr(limitval.MaxDirEntries, len(entries), maxDirEntries, c.dir)
			return
		}
		for i, e := range entries {
			if i%256 == 0 && ctx.Err() != nil {
				c.err = ctx.Err()
				return
			}
			id, ok := strings.CutSuffix(e.Name(), ".gz")
			if !ok || e.IsDir() || len(id) < 14 || id[len(id)-13] != '-' {
				continue
			}
			hex := id[len(id)-12:]
			if !isLowerHex(hex) {
				continue
			}
			prefix := id[:len(id)-12]
			c.index[prefix] = append(c.index[prefix], hex)
		}
		for _, v := range c.index {
			slices.Sort(v)
		}
	})
	return c.err
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return s != ""
}

// revisionPrefix is the start of the revision names of a dependency
// Crossplane installed: its name (the repository as a DNS label), cut to
// 50 characters, and '-', as FriendlyID joins them (the 63-byte cut of its
// DNS label falls after the 12 hex digits).
func revisionPrefix(name string) string {
	pkgName := ref.InstalledName(name)
	if pkgName == "" {
		return ""
	}
	if len(pkgName) > 50 {
		pkgName = pkgName[:50]
	}
	return pkgName + "-"
}

// Tags implements Source: it fails with ErrUnversioned for a package the
// cache holds, ErrNotFound otherwise.
func (c *cacheSource) Tags(ctx context.Context, name string) ([]string, error) {
	if err := c.load(ctx); err != nil {
		return nil, err
	}
	if len(c.index[revisionPrefix(name)]) == 0 {
		return nil, fmt.Errorf("%w: %s in the package cache %s", ErrNotFound, name, c.dir)
	}
	return nil, fmt.Errorf("%w: %s in the package cache", ErrUnversioned, name)
}

// Fetch implements Source.
func (c *cacheSource) Fetch(ctx context.Context, name, version string, opts ...SummaryOption) (*Package, error) {
	if err := c.load(ctx); err != nil {
		return nil, err
	}
	prefix := revisionPrefix(name)
	hexes := c.index[prefix]
	var hex string
	switch {
	case len(hexes) == 0:
		return nil, fmt.Errorf("%w: %s in the package cache %s", ErrNotFound, name, c.dir)
	case isDigest(version):
		want := strings.TrimPrefix(version, "sha256:")[:12]
		if !slices.Contains(hexes, want) {
			return nil, fmt.Errorf("%w: %s@%s in the package cache %s", ErrNotFound, name, version, c.dir)
		}
		hex = want
	case version != "":
		return nil, fmt.Errorf("%w: %s:%s: the package cache records no tags", ErrNotFound, name, version)
	case len(hexes) > 1:
		return nil, fmt.Errorf("%w: %s has %d revisions in the package cache", ErrAmbiguous, name, len(hexes))
	default:
		hex = hexes[0]
	}
	path := filepath.Join(c.dir, prefix+hex+".gz")
	// A regular file only: a FIFO or a device at the entry's name would
	// block the read forever, a link would be followed out of the cache.
	f, err := safefile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("deps: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("deps: %s: %w", path, err)
	}
	defer zr.Close()
	lim := limitval.Or(c.limits.Parser.MaxTotalBytes, parser.DefaultLimits().MaxTotalBytes)
	label := name + "@sha256:" + hex
	pp, err := parser.Parse(ctx, io.LimitReader(zr, lim+1), parser.WithLimits(c.limits.Parser), parser.WithFile(xpkg.PackageFile))
	if err != nil {
		return nil, fmt.Errorf("deps: %s: %w", path, err)
	}
	s, err := Summarize(ctx, pp, label, opts...)
	if err != nil {
		return nil, err
	}
	s.Name, s.Digest, s.Source = name, "sha256:"+hex, path
	return s, nil
}
