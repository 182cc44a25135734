package xpkg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/klauspost/compress/gzip"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Crossplane's package cache (the directory its package manager keeps, and
// that users pre-populate for packagePullPolicy: Never) holds, per package,
// "<name>.gz": the package's YAML stream, gzip-compressed, as Crossplane
// v2's FsPackageCache writes it; users also copy ".xpkg" files there, as
// the packages guide describes. Crossplane looks an entry up by name with
// its extension replaced by ".gz".
const (
	crossplaneCacheExt = ".gz"
	xpkgExt            = ".xpkg"
)

// crossplaneCacheEntries lists the package entries of dir (files named
// *.gz or *.xpkg), sorted; nil when there are none.
func crossplaneCacheEntries(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		switch filepath.Ext(e.Name()) {
		case crossplaneCacheExt, xpkgExt:
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out
}

// openCrossplaneCache handles the sources that are Crossplane's package
// cache: a directory of cache entries (and nothing Open otherwise reads:
// no oci-layout, no crossplane.yaml), one entry (a gzip'd YAML stream), or
// a name that does not exist but whose "<name>.gz" or "<name>.xpkg" does,
// as Crossplane looks entries up. ok is false for any other source.
func openCrossplaneCache(ctx context.Context, source string, c *openConfig) (p *Package, tried []string, ok bool, err error) {
	fi, statErr := os.Stat(source)
	switch {
	case errors.Is(statErr, fs.ErrNotExist):
		base := strings.TrimSuffix(source, filepath.Ext(source))
		for _, ext := range []string{crossplaneCacheExt, xpkgExt} {
			if isFile(base + ext) {
				p, err := openCrossplaneEntry(ctx, base+ext, c)
				return p, nil, true, err
			}
		}
		return nil, nil, false, nil
	case statErr != nil:
		return nil, nil, false, nil
	case fi.IsDir():
		if isFile(filepath.Join(source, ocispec.ImageLayoutFile)) || isFile(filepath.Join(source, parser.MetaFile)) ||
			isFile(filepath.Join(source, packageSubdir, parser.MetaFile)) {
			return nil, nil, false, nil
		}
		ents := crossplaneCacheEntries(source)
		switch len(ents) {
		case 0:
			return nil, nil, false, nil
		case 1:
			p, err := openCrossplaneEntry(ctx, filepath.Join(source, ents[0]), c)
			return p, nil, true, err
		}
		show := ents
		if len(show) > 10 {
			show = append(slices.Clone(show[:10]), fmt.Sprintf("and %d more", len(ents)-10))
		}
		return nil, []string{fmt.Sprintf("Crossplane package cache: %d packages (%s); give the path of one of them",
			len(ents), strings.Join(show, ", "))}, true, ErrUnknownSource
	case fi.Mode().IsRegular() && isGzipYAML(source):
		p, err := openCrossplaneEntry(ctx, source, c)
		return p, nil, true, err
	}
	return nil, nil, false, nil
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
	if filepath.Ext(name) == xpkgExt || !isGzipYAML(name) {
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
	max := c.limits.OCI.MaxFileSize
	lr := &limitedReader{r: ctxReader{ctx, zr}, n: max}
	pkg, err := parser.Parse(ctx, lr, c.parseOptions(filepath.Base(name))...)
	if err != nil && ctx.Err() != nil {
		// Cancelled: a read of lr may still be in flight (parser.Parse
		// leaves it behind), so lr is not looked at.
		return nil, err
	}
	if lr.over {
		return nil, fmt.Errorf("xpkg: Crossplane package cache entry %s: decompressed stream over %d bytes: %w", filepath.Base(name), max, &oci.LimitError{Name: "MaxFileSize", Limit: max})
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
