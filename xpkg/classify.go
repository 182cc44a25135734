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
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/parser"
)

// This file is the one place that says what a source of Open is: classify
// looks at the source once and says what it found, and openSource reads
// it. A new kind of source is one more case of each.

// sourceImageFile is what classify finds a file that starts as a tar or a
// gzip stream to be: an image, whose kind (SourceXpkg or
// SourceOCILayoutTar) the image readers tell when they open it.
const sourceImageFile SourceKind = -1

// found is what classify found a source to be.
type found struct {
	// kind is the kind of source; zero when nothing fits.
	kind SourceKind
	// path is what to read: the OCI layout directory, the package root,
	// the file, the entry of Crossplane's cache, or, for SourceRegistry,
	// the reference.
	path string
	// tried lists, when nothing fits, each kind of source tried and why it
	// did not fit.
	tried []string
	// err is why the source cannot be read (ErrUnknownSource with tried,
	// ErrEmpty, an I/O error, a cancelled context); kind says what the
	// source was found to be, if anything.
	err error
}

// openSource classifies source, then reads it as what it is.
func openSource(ctx context.Context, source string, c *openConfig) (*Package, SourceKind, []string, error) {
	f := classify(ctx, source)
	if f.err != nil {
		return nil, f.kind, f.tried, f.err
	}
	var (
		p   *Package
		err error
	)
	switch f.kind {
	case SourceOCILayout:
		p, _, err = openImagePath(ctx, f.path, c)
	case sourceImageFile:
		return openImageFile(ctx, f.path, c)
	case SourceDirectory:
		p, err = openPackageDir(ctx, f.path, c)
	case SourcePackageYAML:
		p, err = openYAMLFile(ctx, f.path, c)
	case SourceCrossplaneCache:
		p, err = openCrossplaneEntry(ctx, f.path, c)
	case SourceRegistry:
		if c.remote == nil {
			return nil, 0, []string{"a local path: none of that name", errNoRemote.Error()}, ErrUnknownSource
		}
		p, err = openRemote(ctx, f.path, c)
	default:
		return nil, 0, nil, fmt.Errorf("xpkg: source kind %s found but not read", f.kind)
	}
	return p, f.kind, nil, err
}

// classify says what source is, looking at each path it needs once, in
// this order:
//
//   - a path that does not exist: an entry of Crossplane's package cache
//     named as Crossplane looks it up ("<name>" for "<name>.gz" or
//     "<name>.xpkg"), or a reference under a cache directory (see
//     findCacheReference), or a registry reference (see isReference);
//   - a directory: an OCI image layout (an oci-layout file); a package
//     directory (parser.MetaFile at its root or in package/); Crossplane's
//     package cache holding one package; a package directory whose meta
//     object is in another YAML file of its tree;
//   - a regular file: an entry of Crossplane's cache (a gzip'd YAML
//     stream), an image (a tar or gzip stream), a YAML stream.
func classify(ctx context.Context, source string) found {
	fi, err := os.Stat(source)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return classifyMissing(ctx, source, err)
	case err != nil:
		return found{err: err}
	case fi.IsDir():
		return classifyDir(ctx, source)
	case !fi.Mode().IsRegular():
		// A named pipe or a device could block forever, or never end.
		return found{tried: []string{fmt.Sprintf("a file: it is not a regular file (mode %s); give its content on stdin (-) instead", fi.Mode().Type())}, err: ErrUnknownSource}
	}
	return classifyFile(source)
}

// classifyMissing classifies a source that names no existing path; statErr
// is the error of looking it up.
func classifyMissing(ctx context.Context, source string, statErr error) found {
	base := strings.TrimSuffix(source, filepath.Ext(source))
	for _, ext := range []string{crossplaneCacheExt, Extension} {
		if isFile(base + ext) {
			return found{kind: SourceCrossplaneCache, path: base + ext}
		}
	}
	if f, ok := findCacheReference(ctx, source); ok {
		return f
	}
	if isReference(source) {
		return found{kind: SourceRegistry, path: source}
	}
	return found{err: statErr}
}

// classifyDir classifies a directory.
func classifyDir(ctx context.Context, dir string) found {
	if isFile(filepath.Join(dir, ocispec.ImageLayoutFile)) {
		return found{kind: SourceOCILayout, path: dir}
	}
	tried := []string{"OCI image layout: no " + ocispec.ImageLayoutFile + " file"}
	irregular := false // a MetaFile that is not a regular file
	for _, root := range []string{dir, filepath.Join(dir, packageSubdir)} {
		fi, err := os.Stat(filepath.Join(root, parser.MetaFile))
		switch {
		case err != nil:
		case !fi.Mode().IsRegular():
			// A named pipe would block the reader forever.
			rel, _ := filepath.Rel(dir, filepath.Join(root, parser.MetaFile))
			tried = append(tried, fmt.Sprintf("package directory: %s is not a regular file (mode %s)", filepath.ToSlash(rel), fi.Mode().Type()))
			irregular = true
		default:
			return found{kind: SourceDirectory, path: root}
		}
	}
	ents := crossplaneCacheEntries(ctx, dir)
	if err := ctx.Err(); err != nil {
		return found{kind: SourceCrossplaneCache, err: err}
	}
	switch len(ents) {
	case 0:
	case 1:
		return found{kind: SourceCrossplaneCache, path: filepath.Join(dir, ents[0])}
	default:
		return found{tried: []string{fmt.Sprintf("Crossplane package cache: %d packages (%s); give the path of one of them",
			len(ents), listEntries(ents))}, err: ErrUnknownSource}
	}
	if !irregular && (hasYAML(dir) || hasYAMLBelow(ctx, dir)) {
		// crossplane xpkg build finds the meta object in any YAML file of
		// the package root, not only in crossplane.yaml, and reads every
		// YAML file of the whole tree, a subdirectory's included
		// (crossplane v2.1.0, internal/xpkg/build.go Builder.Build over the
		// parser's filesystem backend, which walks the tree): so does
		// ParseFS (and the linter notes the file's name, XP008). A
		// directory holding only PackageFile (an image's root, or a
		// repository that ships its stream that way) is such a package
		// root too: --package-root reads it.
		return found{kind: SourceDirectory, path: dir}
	}
	if !irregular {
		tried = append(tried, "package directory: no "+parser.MetaFile+" at its root or in "+packageSubdir+"/, nor any other YAML file in its tree")
	}
	return found{tried: tried, err: ErrUnknownSource}
}

// classifyFile classifies a regular file by its first sniffSize bytes.
func classifyFile(name string) found {
	f, err := os.Open(name)
	if err != nil {
		return found{err: err}
	}
	head := make([]byte, sniffSize)
	n, err := io.ReadFull(f, head)
	f.Close()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return found{err: err}
	}
	head = head[:n]
	switch {
	case n == 0:
		return found{err: ErrEmpty}
	case isGzip(head) && isGzipYAML(name):
		return found{kind: SourceCrossplaneCache, path: name}
	}
	switch sniff(head) {
	case contentImage:
		return found{kind: sourceImageFile, path: name}
	case contentText:
		return found{kind: SourcePackageYAML, path: name}
	}
	return found{tried: binaryTried(head), err: ErrUnknownSource}
}

// isGzip reports whether head starts as a gzip stream.
func isGzip(head []byte) bool { return bytes.HasPrefix(head, []byte{0x1f, 0x8b}) }
