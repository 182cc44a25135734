package deps

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/ref"
	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// maxDirEntries bounds the entries a dirSource walks when it indexes.
const maxDirEntries = 200000

// dirSource is the Source NewDirSource returns.
type dirSource struct {
	dir    string
	limits xpkg.Limits

	once  sync.Once
	index map[string]map[string]string // name -> tag -> path
	err   error

	mu      sync.Mutex
	digests map[string]map[string]string // name -> digest -> tag
	scanned map[string]bool              // names whose images' digests are known
}

// NewDirSource returns a Source over a local directory laid out like the
// references it serves, for offline CI:
//
//	DIR/<registry>/<repository>/<tag>.xpkg       a .xpkg file (docker archive)
//	DIR/<registry>/<repository>/<tag>.tar        an OCI layout tar
//	DIR/<registry>/<repository>/<tag>/           an OCI layout directory, or a
//	                                             package directory (crossplane.yaml
//	                                             at its root or in package/)
//	DIR/<registry>/<repository>/<tag>.yaml       a package.yaml stream
//
// so xpkg.example.org/acme/provider-a at v1.0.0 is
// DIR/xpkg.example.org/acme/provider-a/v1.0.0.xpkg. Images are read through
// their base layer only (the layer selector's choice), verified; their
// digest is the manifest digest. A dependency pinned by digest finds the
// image of its repository with that digest. Package directories and streams
// have no digest. Entries whose path is no valid reference are ignored, and
// so are names starting with '.'. The directory is indexed once, on first
// use. Safe for concurrent use.
//
// DIR is dir; packages are read within the package limits
// (WithPackageLimits).
func NewDirSource(dir string, opts ...SourceOption) Source {
	return &dirSource{dir: dir, limits: newSourceConfig(opts).limits, digests: map[string]map[string]string{}, scanned: map[string]bool{}}
}

func (d *dirSource) load(ctx context.Context) error {
	d.once.Do(func() { d.index, d.err = indexDir(ctx, d.dir) })
	return d.err
}

func indexDir(ctx context.Context, dir string) (map[string]map[string]string, error) {
	index := map[string]map[string]string{}
	n := 0
	add := func(rel, tag, path string) {
		name := filepath.ToSlash(rel)
		r, err := ref.Parse(name + ":" + tag)
		if isDigest(tag) {
			r, err = ref.Parse(name + "@" + tag)
		}
		if err != nil || r.Registry == "" {
			return
		}
		cn := canonicalName(r)
		if index[cn] == nil {
			index[cn] = map[string]string{}
		}
		index[cn][tag] = path
	}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > maxDirEntries {
			return limitErr(limitval.MaxDirEntries, n, maxDirEntries, dir)
		}
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if path == dir {
			return nil
		}
		base := e.Name()
		if strings.HasPrefix(base, ".") {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil || rel == "." {
			return nil
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			// A link to a package directory or an OCI layout is a leaf; the
			// walk follows no other link.
			if fi, err := os.Stat(path); err == nil && fi.IsDir() {
				if isPackageDir(path) {
					add(rel, base, path)
				}
				return nil
			}
		}
		if isDir {
			if isPackageDir(path) {
				add(rel, base, path)
				return filepath.SkipDir
			}
			return nil
		}
		for _, ext := range []string{xpkg.Extension, ".tar", ".tar.gz", ".tgz", ".yaml", ".yml"} {
			if tag, ok := strings.CutSuffix(base, ext); ok && tag != "" {
				add(rel, tag, path)
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("deps: indexing %s: %w", dir, err)
	}
	return index, nil
}

// isPackageDir reports whether dir is a leaf: an OCI layout or a package
// in its on-disk format.
func isPackageDir(dir string) bool {
	for _, f := range []string{"oci-layout", parser.MetaFile, filepath.Join("package", parser.MetaFile)} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err == nil && !fi.IsDir() {
			return true
		}
	}
	return false
}

// Tags implements Source.
func (d *dirSource) Tags(ctx context.Context, name string) ([]string, error) {
	if err := d.load(ctx); err != nil {
		return nil, err
	}
	tags, ok := d.index[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s in %s", ErrNotFound, name, d.dir)
	}
	out := make([]string, 0, len(tags))
	for t := range tags {
		if !isDigest(t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Fetch implements Source.
func (d *dirSource) Fetch(ctx context.Context, name, version string, opts ...SummaryOption) (*Package, error) {
	if err := d.load(ctx); err != nil {
		return nil, err
	}
	tags, ok := d.index[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s in %s", ErrNotFound, name, d.dir)
	}
	if path, ok := tags[version]; ok {
		tag := version
		if isDigest(version) {
			tag = ""
		}
		return loadPackage(ctx, path, name, tag, d.limits, opts)
	}
	if !isDigest(version) {
		return nil, fmt.Errorf("%w: %s:%s in %s", ErrNotFound, name, version, d.dir)
	}
	return d.fetchDigest(ctx, name, version, tags, opts)
}

// fetchDigest finds the image of name whose digest is dgst, reading the
// images of the repository not read yet, in tag order.
func (d *dirSource) fetchDigest(ctx context.Context, name, dgst string, tags map[string]string, opts []SummaryOption) (*Package, error) {
	d.mu.Lock()
	tag, known := d.digests[name][dgst]
	scanned := d.scanned[name]
	d.mu.Unlock()
	if known {
		return loadPackage(ctx, tags[tag], name, tag, d.limits, opts)
	}
	if scanned {
		return nil, fmt.Errorf("%w: %s@%s in %s", ErrNotFound, name, dgst, d.dir)
	}
	sorted := make([]string, 0, len(tags))
	for t := range tags {
		sorted = append(sorted, t)
	}
	slices.Sort(sorted)
	var found *Package
	for _, t := range sorted {
		dg, err := imageDigest(ctx, tags[t], d.limits)
		if err != nil {
			continue
		}
		d.mu.Lock()
		if d.digests[name] == nil {
			d.digests[name] = map[string]string{}
		}
		d.digests[name][dg] = t
		d.mu.Unlock()
		if dg == dgst && found == nil {
			p, err := loadPackage(ctx, tags[t], name, t, d.limits, opts)
			if err != nil {
				return nil, err
			}
			found = p
		}
	}
	d.mu.Lock()
	d.scanned[name] = true
	d.mu.Unlock()
	if found == nil {
		return nil, fmt.Errorf("%w: %s@%s in %s", ErrNotFound, name, dgst, d.dir)
	}
	return found, nil
}

// imageDigest returns the manifest digest of the image at path, reading
// only its index and manifest.
func imageDigest(ctx context.Context, path string, limits xpkg.Limits) (string, error) {
	src, err := openImage(ctx, path, limits)
	if err != nil {
		return "", err
	}
	defer src.Close()
	img, err := oci.Resolve(ctx, src, oci.WithLimits(limits.OCI))
	if err != nil {
		return "", err
	}
	return img.Descriptor.Digest.String(), nil
}

func openImage(ctx context.Context, path string, limits xpkg.Limits) (*oci.Source, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "oci-layout")); err != nil {
			return nil, oci.ErrUnknownFormat
		}
	} else if strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml") {
		return nil, oci.ErrUnknownFormat
	}
	return oci.Open(ctx, path, oci.WithLimits(limits.OCI))
}

// summarizeImage reads package.yaml from the base layer of img (the layer
// selector's choice: no other layer is read) and returns its summary.
func summarizeImage(ctx context.Context, f oci.Fetcher, img *oci.Image, name, tag, source string, limits xpkg.Limits, opts []SummaryOption) (*Package, error) {
	label := name
	if tag != "" {
		label += ":" + tag
	}
	sel, err := xpkg.SelectLayer(img.Manifest.Layers, img.Config.Config.Labels)
	if err != nil && !errors.Is(err, xpkg.ErrMultipleBaseLayers) {
		return nil, fmt.Errorf("deps: %s: %w", source, err)
	}
	file, err := sel.OpenPackageYAML(ctx, f, xpkg.WithLimits(limits))
	if err != nil {
		return nil, fmt.Errorf("deps: %s: %w", source, err)
	}
	pp, err := parser.Parse(ctx, file, parser.WithLimits(limits.Parser), parser.WithFile(xpkg.PackageFile))
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("deps: %s: %w", source, err)
	}
	s, err := Summarize(ctx, pp, label, opts...)
	if err != nil {
		return nil, err
	}
	s.Name, s.Version, s.Digest, s.Source = name, tag, img.Descriptor.Digest.String(), source
	return s, nil
}

// loadPackage reads the package at path (an image through its base layer,
// a package directory, or a stream) and returns its summary.
func loadPackage(ctx context.Context, path, name, tag string, limits xpkg.Limits, opts []SummaryOption) (*Package, error) {
	label := name
	if tag != "" {
		label += ":" + tag
	}
	popts := []parser.Option{parser.WithLimits(limits.Parser)}
	var pp *parser.Package
	src, err := openImage(ctx, path, limits)
	switch {
	case err == nil:
		defer src.Close()
		img, err := oci.Resolve(ctx, src, oci.WithLimits(limits.OCI))
		if err != nil {
			return nil, fmt.Errorf("deps: %s: %w", path, err)
		}
		return summarizeImage(ctx, src, img, name, tag, path, limits, opts)
	case errors.Is(err, oci.ErrUnknownFormat):
		fi, serr := os.Stat(path)
		if serr != nil {
			return nil, serr
		}
		if fi.IsDir() {
			root := path
			if _, err := os.Stat(filepath.Join(root, parser.MetaFile)); err != nil {
				root = filepath.Join(path, "package")
			}
			pp, err = parser.ParseFS(ctx, os.DirFS(root), popts...)
		} else {
			var f *os.File
			if f, err = safefile.Open(path); err == nil { // a regular file, never a FIFO
				pp, err = parser.Parse(ctx, f, append(popts, parser.WithFile(xpkg.PackageFile))...)
				f.Close()
			}
		}
		if err != nil {
			return nil, fmt.Errorf("deps: %s: %w", path, err)
		}
	default:
		return nil, fmt.Errorf("deps: %s: %w", path, err)
	}
	s, err := Summarize(ctx, pp, label, opts...)
	if err != nil {
		return nil, err
	}
	s.Name, s.Version, s.Source = name, tag, path
	return s, nil
}
