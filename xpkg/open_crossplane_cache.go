package xpkg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/xpkgkit/xpkgkit/internal/ctxio"
	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Crossplane's package cache (the directory its package manager keeps, and
// that users pre-populate for packagePullPolicy: Never) holds, per package,
// "<key>.gz": the package's YAML stream, gzip-compressed, as Crossplane's
// FsPackageCache writes it (BuildPath replaces the key's extension, if any,
// with ".gz"); users also copy ".xpkg" files there, as the packages guide
// describes. The key changed at v2.2:
//
//   - Up to v2.1 the key is the PackageRevision's name
//     (crossplane@v2.1.0:internal/controller/pkg/revision/reconciler.go:675,
//     "id := pr.GetName()", and :747, "r.cache.Store(pr.GetName(), pipeR)"),
//     such as "provider-nop-3f2ac1b0e8d9.gz"; with packagePullPolicy: Never
//     it is the package source (reconciler.go:680, "id = pr.GetSource()"),
//     so a pre-populated cache nests directories named after the registry
//     and repository: "xpkg.crossplane.io/crossplane-contrib/provider-nop.gz".
//     v1.20 and v2.0 write the same layout.
//   - From v2.2 the package client keys the cache by source plus digest for
//     every pull policy (crossplane@v2.2.0:internal/xpkg/client.go:276,
//     "cacheKey := FriendlyID(ParsePackageSourceFromReference(parsedOriginalRef), digest)";
//     from v2.3 the same line is crossplane-runtime's
//     pkg/xpkg/client.go:275, unchanged at v2.4.0): a flat directory of
//     DNS labels made of the source's first 50 characters and the digest's
//     first 12 ("sha256:" and five hex digits), such as
//     "xpkg-crossplane-io-crossplane-contrib-provider-nop-sha256-3f2ac.gz"
//     (FriendlyID and ToDNSLabel, internal/xpkg/name.go:81 at v2.2.0, drop
//     every character but lower-case letters and digits, and turn '.', '/',
//     ':' and '-' into '-').
//
// Open reads both layouts: a cache directory (entries at its top level, and
// the nested entries of the layout before v2.2), one entry, an entry's name
// as Crossplane looks it up ("<cache>/<source>" finds "<cache>/<source>.gz"
// of the layout before v2.2), or a reference under the cache directory
// ("<cache>/<source>@<digest>", or "<cache>/<source>[:<tag>]" when one
// digest of that source is cached) that names an entry of the v2.2 layout.
//
// classify (classify.go) says when a source is one of these.
const crossplaneCacheExt = ".gz"

// Bounds of the walk over a cache directory: how deep its nested entries
// (the layout before v2.2: registry host, then repository path) may be, and
// how many directory entries the walk reads in all.
const (
	maxCacheDepth   = 8
	maxCacheVisited = 100_000
)

// crossplaneCacheEntries lists the package entries under dir, as paths
// relative to it, sorted; nil when there are none. Files named *.gz or
// *.xpkg at its top level are entries of every release's layout; in its
// subdirectories (the layout before v2.2, written for packagePullPolicy:
// Never) only gzip'd YAML streams count, so a directory that happens to
// hold compressed files somewhere is not taken for a cache. The walk is
// bounded by maxCacheDepth and maxCacheVisited and stops when ctx is done.
func crossplaneCacheEntries(ctx context.Context, dir string) []string {
	var out []string
	visited := 0
	var walk func(rel string, depth int)
	walk = func(rel string, depth int) {
		ents, err := os.ReadDir(filepath.Join(dir, rel))
		if err != nil {
			return
		}
		for _, e := range ents {
			visited++
			if visited > maxCacheVisited || ctx.Err() != nil {
				return
			}
			name := filepath.Join(rel, e.Name())
			switch {
			case e.IsDir() && depth < maxCacheDepth && !strings.HasPrefix(e.Name(), "."):
				walk(name, depth+1)
			case !e.Type().IsRegular():
			case depth == 0 && (filepath.Ext(name) == crossplaneCacheExt || filepath.Ext(name) == Extension):
				out = append(out, name)
			case depth > 0 && filepath.Ext(name) == crossplaneCacheExt && isGzipYAML(filepath.Join(dir, name)):
				out = append(out, name)
			}
		}
	}
	walk("", 0)
	slices.Sort(out)
	return out
}

// listEntries joins entry names for a message: each escaped as package
// data (safetext.Token), at most safetext.MaxListItems of them, and how
// many more there are.
func listEntries(ents []string) string {
	return safetext.Join(ents, safetext.Token)
}

// findCacheReference classifies a source that does not exist as a path:
// "<cache>/<reference>", where <cache> is an existing directory and the
// reference (a package source, with a tag or a digest or neither) names an
// entry of the v2.2 layout, "<FriendlyID(source, digest)>.gz". With a
// digest the key is exact; without one, the entry is the one cached digest
// of that source (several are listed, and Open refuses to guess). ok is
// false when no such entry exists.
func findCacheReference(ctx context.Context, source string) (found, bool) {
	dir, rel := filepath.Clean(source), ""
	for {
		parent := filepath.Dir(dir)
		rel = path.Join(filepath.Base(dir), rel)
		dir = parent
		if fi, err := os.Stat(dir); err == nil {
			if !fi.IsDir() {
				return found{}, false
			}
			break
		}
		if parent == filepath.Dir(parent) {
			return found{}, false
		}
	}
	if dir == "." && !strings.HasPrefix(source, "."+string(filepath.Separator)) {
		// A bare reference is a registry's; "./<reference>" names the
		// cache in the working directory.
		return found{}, false
	}
	src, digest := splitCacheReference(rel)
	if src == "" {
		return found{}, false
	}
	if digest != "" {
		name := filepath.Join(dir, crossplaneFriendlyID(src, digest)+crossplaneCacheExt)
		if !isFile(name) {
			return found{}, false
		}
		return found{kind: SourceCrossplaneCache, path: name}, true
	}
	f, err := os.Open(dir)
	if err != nil {
		return found{}, false
	}
	defer f.Close()
	var match []string
	for visited := 0; visited < maxCacheVisited; {
		if err := ctx.Err(); err != nil {
			return found{kind: SourceCrossplaneCache, err: err}, true
		}
		ents, err := f.ReadDir(1024)
		if len(ents) == 0 || err != nil && !errors.Is(err, io.EOF) {
			break
		}
		visited += len(ents)
		match = appendCacheMatches(match, ents, src)
	}
	switch len(match) {
	case 0:
		return found{}, false
	case 1:
		return found{kind: SourceCrossplaneCache, path: filepath.Join(dir, match[0])}, true
	}
	slices.Sort(match)
	return found{tried: []string{fmt.Sprintf("Crossplane package cache: %d digests of %s (%s); give the digest or the entry's path",
		len(match), safetext.QuotePath(src), listEntries(match))}, err: ErrUnknownSource}, true
}

// appendCacheMatches appends the names of the entries of the v2.2 layout
// that hold a digest of src.
func appendCacheMatches(match []string, ents []os.DirEntry, src string) []string {
	for _, e := range ents {
		key, isEntry := strings.CutSuffix(e.Name(), crossplaneCacheExt)
		const marker = "-sha256-"
		at := strings.LastIndex(key, marker)
		if !isEntry || !e.Type().IsRegular() || at < 0 || len(key)-at-len(marker) != 5 {
			continue
		}
		if crossplaneFriendlyID(src, "sha256:"+key[at+len(marker):]) == key {
			match = append(match, e.Name())
		}
	}
	return match
}

// splitCacheReference splits a reference into its source (the reference
// without tag or digest, as Crossplane's ParsePackageSourceFromReference
// makes it) and its digest, if any.
func splitCacheReference(ref string) (source, digest string) {
	if i := strings.LastIndex(ref, "@"); i >= 0 {
		ref, digest = ref[:i], ref[i+1:]
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref = ref[:i]
	}
	return ref, digest
}

// crossplaneFriendlyID is the cache key Crossplane v2.2 and later derive
// from a package source and its digest (FriendlyID, ToDNSLabel: see the
// comment at the top of this file): the first 50 bytes of the source and
// the first 12 of the digest, joined by '-', keeping lower-case letters and
// digits, turning '.', '/', ':' and '-' into '-' (except at the first and
// the 63rd byte, and the last), stopping at the 63rd byte, trimmed of '-'.
// It matches Crossplane byte for byte, including dropping upper-case
// letters, so that Open finds the entries Crossplane wrote.
func crossplaneFriendlyID(source, digest string) string {
	s := source[:min(len(source), 50)] + "-" + digest[:min(len(digest), 12)]
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			b.WriteByte(c)
		}
		if (c == '.' || c == '/' || c == ':' || c == '-') && i != 0 && i != 62 && i != len(s)-1 {
			b.WriteByte('-')
		}
		if i == 62 {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

// isGzipYAML reports whether the file holds a gzip stream of Kubernetes
// objects in YAML (text, not a tar, with "apiVersion:" or "kind:" in its
// first KiB): a Crossplane cache entry rather than a compressed image.
func isGzipYAML(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return false
	}
	head := make([]byte, 1024)
	n, _ := io.ReadFull(zr, head)
	head = head[:n]
	return n > 0 && !isTarHeader(head) && !isBinary(head) &&
		(bytes.Contains(head, []byte("apiVersion:")) || bytes.Contains(head, []byte("kind:")))
}

// openCrossplaneEntry reads one entry of Crossplane's package cache: a
// .xpkg image, or a gzip'd YAML stream, whose positions name the entry.
// Package.Root is the cache directory, so the entry read is Root joined
// with the file of the positions, or, for a .xpkg, Image.Facts.Source.
func openCrossplaneEntry(ctx context.Context, name string, c *openConfig) (*Package, error) {
	if filepath.Ext(name) == Extension || !isGzipYAML(name) {
		ec := *c
		ec.sourceName = name // Image.Facts.Source names the entry read
		p, _, err := openImagePath(ctx, name, &ec)
		if err != nil {
			return nil, fmt.Errorf("xpkg: Crossplane package cache entry %s: %w", filepath.Base(name), err)
		}
		p.Root = filepath.Dir(name)
		return p, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("xpkg: Crossplane package cache entry %s: %w", filepath.Base(name), err)
	}
	max := c.limits.OCI.MaxFileBytes
	lr := &limitedReader{r: ctxio.Check(ctx, zr), n: max}
	pkg, err := parser.Parse(ctx, lr, c.parseOptions(filepath.Base(name))...)
	if err != nil && ctx.Err() != nil {
		// Cancelled: a read of lr may still be in flight (parser.Parse
		// leaves it behind), so lr is not looked at.
		return nil, err
	}
	if lr.over {
		return nil, fmt.Errorf("xpkg: Crossplane package cache entry %s: decompressed stream over %d bytes: %w", filepath.Base(name), max, &limit.Error{Limit: limitval.MaxFileBytes, Value: max + 1, Max: max})
	}
	if err != nil {
		return nil, err
	}
	return &Package{Package: pkg, Root: filepath.Dir(name)}, nil
}

// limitedReader reads at most n bytes and notes whether there were more.
type limitedReader struct {
	r    io.Reader
	n    int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		var one [1]byte
		if k, _ := l.r.Read(one[:]); k > 0 {
			l.over = true
			return 0, errors.New("xpkg: the decompressed stream is too long")
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}
