package xpkg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
)

// SourceKind says what kind of source a package was read from.
type SourceKind int

// The kinds of sources Open, OpenReader and OpenImage read.
const (
	// SourceXpkg is a docker-archive tarball, as the Crossplane CLI writes
	// a .xpkg file.
	SourceXpkg SourceKind = iota + 1
	// SourceOCILayout is an OCI image layout directory.
	SourceOCILayout
	// SourceOCILayoutTar is an OCI image layout in a tar (plain or gzip).
	SourceOCILayoutTar
	// SourceDirectory is a package in its on-disk format: parser.MetaFile at the
	// root of the directory, or in package/ below it.
	SourceDirectory
	// SourcePackageYAML is a file holding a package's YAML stream.
	SourcePackageYAML
	// SourceReader is an io.Reader (stdin), detected by content: a tar or
	// gzip stream is an image (Package.Image says which form), anything else
	// a YAML stream.
	SourceReader
	// SourceImage is an image the caller resolved and gave to OpenImage.
	SourceImage
	// SourceRegistry is an image pulled from a registry by reference.
	SourceRegistry
	// SourceCrossplaneCache is Crossplane's package cache: a gzip'd
	// package.yaml stream (<name>.gz) or a directory of them and of .xpkg
	// files.
	SourceCrossplaneCache
)

// String returns the kind's name: "xpkg", "oci-layout", "oci-layout-tar",
// "directory", "package.yaml", "reader", "image", "registry" or
// "crossplane-cache".
func (k SourceKind) String() string {
	switch k {
	case SourceXpkg:
		return "xpkg"
	case SourceOCILayout:
		return "oci-layout"
	case SourceOCILayoutTar:
		return "oci-layout-tar"
	case SourceDirectory:
		return "directory"
	case SourcePackageYAML:
		return "package.yaml"
	case SourceReader:
		return "reader"
	case SourceImage:
		return "image"
	case SourceRegistry:
		return "registry"
	case SourceCrossplaneCache:
		return "crossplane-cache"
	}
	return fmt.Sprintf("SourceKind(%d)", int(k))
}

// Package is a loaded package: its parsed YAML, where it came from, and,
// for an image, what the image holds.
type Package struct {
	// Package holds the meta objects, the other objects and the errors of
	// the documents that could not be parsed. Such documents are not errors
	// of Open: the linter reports them (XP001, XP002, XP005).
	*parser.Package
	// Source is the source as given to Open ("<stdin>" for OpenReader, ""
	// for OpenImage), unless WithSourceName says otherwise.
	Source string
	// SourceKind is what the source was found to be (the kind of the
	// package itself is that of its meta object: see Pkg).
	SourceKind SourceKind
	// Resolved is the reference pulled when an ImageConfig rewrote Source
	// (WithImageConfig); "" when none did.
	Resolved string
	// ImageConfig names the ImageConfig that rewrote Source; "" when none
	// did.
	ImageConfig string
	// Root is the directory that file names in positions are relative to:
	// the package root (the directory holding parser.MetaFile) for a directory,
	// the file's directory for a package.yaml file. It is empty for images,
	// whose positions name the file inside the layer (PackageFile), and for
	// readers.
	Root string
	// Image is what was learned from the image; nil unless the package was
	// read from one.
	Image *Image
	// Examples holds the package's examples: ExamplesFile of the image's
	// examples layer, or the YAML files of ExamplesDir of a package
	// directory. It is nil when there are none.
	Examples *parser.Package
}

// ErrUnknownSource is the class of sources Open cannot recognise: the
// *SourceError says what was tried and why each kind did not fit.
var ErrUnknownSource = errors.New("xpkg: not a package source")

// ErrEmpty is the class of sources that hold no bytes at all: an empty
// file, an empty upload, an empty standard input.
var ErrEmpty = errors.New("xpkg: empty input")

// ImageTruncatedError reports content recognised as an image (a tar or a
// gzip stream) that stops short: an upload or a copy that did not finish.
// It matches oci.ErrMalformed; Err, the image readers' error, stays
// reachable with errors.Is and errors.As.
type ImageTruncatedError struct {
	// Reason says how it stops short, e.g. "the tar has no end-of-archive
	// marker".
	Reason string
	// Err is the error of the image readers.
	Err error
}

// Error implements error.
func (e *ImageTruncatedError) Error() string {
	return "truncated image: " + e.Reason + " (" + e.Err.Error() + ")"
}

// Unwrap returns oci.ErrMalformed and the image readers' error.
func (e *ImageTruncatedError) Unwrap() []error { return []error{oci.ErrMalformed, e.Err} }

// notAnImageError is a complete tar or gzip stream that holds no image: not
// a package source, the image readers' error kept.
type notAnImageError struct{ err error }

func (e *notAnImageError) Error() string { return ErrUnknownSource.Error() }

func (e *notAnImageError) Unwrap() []error { return []error{ErrUnknownSource, e.err} }

// SourceError is the error of Open, OpenReader and OpenImage: which source,
// what it was found to be, and what went wrong.
type SourceError struct {
	// Source is the source as given.
	Source string
	// SourceKind is what the source was found to be; zero when detection
	// failed.
	SourceKind SourceKind
	// Tried lists, when detection failed, each kind of source tried and why
	// it did not fit, e.g. "OCI image layout: no oci-layout file".
	Tried []string
	// Err is the cause: ErrUnknownSource when detection failed, ErrEmpty,
	// otherwise an error of the oci or parser package (a truncated image:
	// *ImageTruncatedError, of class oci.ErrMalformed), ErrNoPackageYAML, a
	// *limit.Error, an I/O error. Its own causes stay reachable with
	// errors.Is and errors.As.
	Err error
}

// Error implements error.
func (e *SourceError) Error() string {
	var b strings.Builder
	b.WriteString("xpkg: ")
	if e.Source != "" {
		fmt.Fprintf(&b, "%s: ", e.Source)
	}
	if e.SourceKind != 0 {
		fmt.Fprintf(&b, "reading %s: ", e.SourceKind)
	}
	if e.Err != nil {
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "xpkg: "))
	}
	if len(e.Tried) > 0 {
		b.WriteString(" (tried ")
		b.WriteString(strings.Join(e.Tried, "; "))
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *SourceError) Unwrap() error { return e.Err }

// Open loads the package at source, whose kind is recognised by its
// content, not its name (classify, in classify.go, is the one place that
// decides, in this order):
//
//   - a directory holding an oci-layout file is an OCI image layout
//     (SourceOCILayout);
//   - a directory holding parser.MetaFile (crossplane.yaml), or
//     package/parser.MetaFile, is a package in its on-disk format, read with
//     parser.ParseFS, the examples from ExamplesDir (SourceDirectory);
//   - a directory of Crossplane's package cache that holds one package, a
//     file of that cache (a gzip'd package.yaml stream), a name that does not
//     exist but whose "<name>.gz" or "<name>.xpkg" does, as Crossplane looks
//     entries up, or "<cache directory>/<reference>" naming an entry of the
//     v2.2 layout (SourceCrossplaneCache; see open_crossplane_cache.go);
//   - a directory with no meta file, whose tree holds YAML files, is a
//     package directory too, as the Crossplane CLI builds it
//     (SourceDirectory);
//   - a file that starts as a tar or a gzip stream is an image: a docker
//     archive, as a .xpkg file is (SourceXpkg), or an OCI layout tar
//     (SourceOCILayoutTar);
//   - any other file that holds text is a YAML stream, a package.yaml
//     (SourcePackageYAML);
//   - a string that is no local path and parses as a reference naming a
//     registry host and a tag or digest ("xpkg.example.org/org/name:v1.2.3",
//     or "...@sha256:...") is pulled from that registry through the client
//     given with WithRemote (SourceRegistry): only the manifest, the config
//     and the layers the selector reads are fetched. Without WithRemote,
//     Open reaches no network, and such a source fails with
//     ErrUnknownSource.
//
// When nothing fits, the error matches ErrUnknownSource and says what was
// tried; an empty file matches ErrEmpty. Content recognised as an image (a
// tar or gzip stream) fails with the image's own error and class: a
// truncated upload is an *ImageTruncatedError (oci.ErrMalformed), never
// ErrUnknownSource. An image index is resolved to one manifest (WithPlatform), the
// layer selector (SelectLayer) chooses where package.yaml is, and the file
// is streamed out of its layer into the parser; the blobs read are verified.
// Parsing is bounded by WithLimits.
//
// Open fails (with a *SourceError) when the source cannot be read: I/O
// errors, detection, OCI errors (digest mismatches, limits, an unmatched
// platform), and an image without package.yaml at its root that gives no
// reason (ErrNoPackageYAML). Image problems the linter reports are not
// errors: with several base layers package.yaml is read from the first and
// Image.Facts.BaseLayers lists them all (XP501); with package.yaml only
// below the root, or the defunct stack layout, the package is empty and the
// facts say why (XP503, XP504). Documents that cannot be parsed are in
// Package.Errors (XP001, XP002, XP005).
func Open(ctx context.Context, source string, opts ...Option) (*Package, error) {
	if ctx == nil {
		return nil, errors.New("xpkg: Open: nil context")
	}
	c := newOpenConfig(opts)
	name := source
	if c.sourceName != "" {
		name = c.sourceName
	}
	c.sourceName = name
	p, kind, tried, err := openSource(ctx, source, c)
	if err != nil {
		return nil, &SourceError{Source: name, SourceKind: kind, Tried: tried, Err: err}
	}
	p.Source = name
	p.SourceKind = kind
	return p, nil
}

// OpenReaderAt loads the package held by the size bytes of r (an upload
// held in memory or in a file the caller manages), recognised by content as
// OpenReader recognises it: a tar or gzip stream is an image (a docker
// archive, as a .xpkg is, or an OCI layout tar), read at offsets through r
// with nothing copied; anything else that holds text is a YAML stream. It
// is the one call an upload handler needs. Limits.MaxReaderBytes bounds
// size as it bounds what OpenReader copies; the image readers' and the
// parser's limits apply as for any source. The Package's SourceKind is
// SourceReader and its Source "<stdin>" unless WithSourceName gives a
// name. Errors are those of Open (a *SourceError).
func OpenReaderAt(ctx context.Context, r io.ReaderAt, size int64, opts ...Option) (*Package, error) {
	switch {
	case ctx == nil:
		return nil, errors.New("xpkg: OpenReaderAt: nil context")
	case r == nil:
		return nil, errors.New("xpkg: OpenReaderAt: nil reader")
	case size < 0:
		return nil, fmt.Errorf("xpkg: OpenReaderAt: negative size %d", size)
	}
	c := newOpenConfig(opts)
	if c.sourceName == "" {
		c.sourceName = readerName
	}
	p, tried, err := openReaderAt(ctx, r, size, c)
	return readerPackage(p, tried, err, c)
}

// readerName is the name OpenReader gives a reader when WithSourceName gives
// none, as Package.Source and as the file of positions in a YAML stream:
// the usual reader is standard input.
const readerName = "<stdin>"

// OpenReader loads the package held by r (stdin, an upload), recognised by
// content: a tar or gzip stream is an image (a docker archive or an OCI
// layout tar), which is copied to a temporary file (at most
// Limits.MaxReaderBytes bytes) because images are read at offsets, and
// removed before OpenReader returns; anything else that holds text is a YAML
// stream, parsed as it is read. The Package's SourceKind is SourceReader and its
// Source "<stdin>", the name that also names the YAML stream in positions
// (WithSourceName gives another). Errors are those of Open.
func OpenReader(ctx context.Context, r io.Reader, opts ...Option) (*Package, error) {
	switch {
	case ctx == nil:
		return nil, errors.New("xpkg: OpenReader: nil context")
	case r == nil:
		return nil, errors.New("xpkg: OpenReader: nil reader")
	}
	c := newOpenConfig(opts)
	if c.sourceName == "" {
		c.sourceName = readerName
	}
	p, tried, err := openReader(ctx, r, c)
	return readerPackage(p, tried, err, c)
}

// readerPackage is the result of OpenReader and OpenReaderAt: p, named
// c.sourceName, of SourceKind SourceReader, or a *SourceError that says
// what was tried (of no kind when the content was recognised as none).
func readerPackage(p *Package, tried []string, err error, c *openConfig) (*Package, error) {
	if err != nil {
		kind := SourceReader
		if errors.Is(err, ErrUnknownSource) || errors.Is(err, ErrEmpty) {
			kind = 0
		}
		return nil, &SourceError{Source: c.sourceName, SourceKind: kind, Tried: tried, Err: err}
	}
	p.Source = c.sourceName
	p.SourceKind = SourceReader
	return p, nil
}
