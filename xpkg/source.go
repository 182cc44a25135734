package xpkg

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/xpkgkit/xpkgkit/internal/ctxio"
	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
)

// sniffSize is how many leading bytes decide what a file or reader holds:
// enough for a tar header (its magic is at offset 257) and to tell text from
// binary.
const sniffSize = 8 << 10

// packageSubdir is the directory below a repository's root that holds the
// package, as many repositories have it.
const packageSubdir = "package"

// maxYAMLSearch bounds the entries hasYAMLBelow looks at.
const maxYAMLSearch = 100_000

// hasYAMLBelow reports whether the tree below dir (not following symbolic
// links) holds a regular file named *.yaml or *.yml, stopping at the first,
// after maxYAMLSearch entries, or when ctx is done.
func hasYAMLBelow(ctx context.Context, dir string) bool {
	found, n := false, 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		n++
		if err != nil || n > maxYAMLSearch || ctx.Err() != nil {
			return fs.SkipAll
		}
		if ext := filepath.Ext(d.Name()); (ext == ".yaml" || ext == ".yml") && d.Type().IsRegular() {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// hasYAML reports whether the directory holds a regular file named *.yaml
// or *.yml, reading its entries a few at a time and stopping at the first.
func hasYAML(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	for {
		entries, err := f.ReadDir(256)
		for _, e := range entries {
			if ext := filepath.Ext(e.Name()); (ext == ".yaml" || ext == ".yml") && e.Type().IsRegular() {
				return true
			}
		}
		if err != nil || len(entries) == 0 {
			return false
		}
	}
}

// openPackageDir reads a package in its on-disk format rooted at root.
func openPackageDir(ctx context.Context, root string, c *openConfig) (*Package, error) {
	return openPackageFS(ctx, os.DirFS(root), root, c)
}

// OpenFS loads a package in its on-disk format from fsys, as Open loads a
// package directory (SourceDirectory): the files parser.ParseFS lists, and
// the examples from ExamplesDir. root is the directory fsys stands for: it
// becomes Package.Root and, unless WithSourceName says otherwise,
// Package.Source; positions name files by their path in fsys, as Open's name
// them relative to the root. An editor passes an overlay of its unsaved
// buffers over os.DirFS(root), so that what is linted is what the author
// sees. Options: WithParserOptions, WithLimits, WithSourceName; errors are
// those of Open for a directory, in a *SourceError.
func OpenFS(ctx context.Context, fsys fs.FS, root string, opts ...Option) (*Package, error) {
	switch {
	case ctx == nil:
		return nil, errors.New("xpkg: OpenFS: nil context")
	case fsys == nil:
		return nil, errors.New("xpkg: OpenFS: nil fs.FS")
	}
	c := newOpenConfig(opts)
	name := root
	if c.sourceName != "" {
		name = c.sourceName
	}
	c.sourceName = name
	p, err := openPackageFS(ctx, fsys, root, c)
	if err != nil {
		return nil, &SourceError{Source: name, SourceKind: SourceDirectory, Err: err}
	}
	p.Source = name
	p.SourceKind = SourceDirectory
	return p, nil
}

// openPackageFS reads a package in its on-disk format from fsys, which
// stands for the directory root.
func openPackageFS(ctx context.Context, fsys fs.FS, root string, c *openConfig) (*Package, error) {
	pkg, err := parser.ParseFS(ctx, fsys, c.parseOptions("")...)
	if err != nil {
		return nil, err
	}
	p := &Package{Package: pkg, Root: root}
	if fi, err := fs.Stat(fsys, ExamplesDir); err == nil && fi.IsDir() {
		sub, err := fs.Sub(fsys, ExamplesDir)
		if err != nil {
			return nil, err
		}
		// One budget for the upload: the examples' documents and bytes
		// count on from the package's.
		// Every directory: Crossplane's examples parser reads the YAML
		// files of hidden directories under examples/ too.
		ex, err := parser.ParseFS(ctx, sub, append(c.parseOptions(""), parser.WithUsage(pkg.Usage), parser.WithAllDirectories())...)
		if err != nil {
			return nil, fmt.Errorf("xpkg: reading %s: %w", ExamplesDir, err)
		}
		bad, err := crossplaneExampleErrors(ctx, sub, ex.Files)
		if err != nil {
			return nil, fmt.Errorf("xpkg: reading %s: %w", ExamplesDir, err)
		}
		ex.Errors = append(ex.Errors, bad...)
		for _, o := range append(append([]*parser.Object(nil), ex.Meta...), ex.Objects...) {
			o.Pos.File = filepath.ToSlash(filepath.Join(ExamplesDir, o.Pos.File))
			for i := range o.DuplicateKeys {
				o.DuplicateKeys[i].Pos.File = o.Pos.File
			}
		}
		for _, e := range ex.Errors {
			e.Pos.File = filepath.ToSlash(filepath.Join(ExamplesDir, e.Pos.File))
		}
		if len(ex.Meta)+len(ex.Objects)+len(ex.Errors) > 0 {
			p.Examples = ex
		}
	}
	return p, nil
}

// openImageFile loads a file that starts as a tar or a gzip stream: a
// docker archive (SourceXpkg) or an OCI layout tar (SourceOCILayoutTar), as
// the image readers find; content that is no image is not a package source
// (see imageError).
func openImageFile(ctx context.Context, name string, c *openConfig) (*Package, SourceKind, []string, error) {
	p, format, err := openImagePath(ctx, name, c)
	var kind SourceKind // unknown while the image format is
	switch format {
	case oci.FormatDockerArchive:
		kind = SourceXpkg
	case 0:
	default:
		kind = SourceOCILayoutTar
	}
	if err != nil {
		tried, err := imageError(ctx, err, func() (io.ReadCloser, error) { return os.Open(name) }, c)
		if tried != nil {
			kind = 0
		}
		return nil, kind, tried, err
	}
	return p, kind, nil, nil
}

// openYAMLFile parses a file holding a package's YAML stream.
func openYAMLFile(ctx context.Context, name string, c *openConfig) (*Package, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pkg, err := parser.Parse(ctx, f, c.parseOptions(filepath.Base(name))...)
	if err != nil {
		return nil, err
	}
	return &Package{Package: pkg, Root: filepath.Dir(name)}, nil
}

// openImagePath opens the image at path (layout directory or tar). It
// returns the format found even when loading fails.
func openImagePath(ctx context.Context, path string, c *openConfig) (*Package, oci.Format, error) {
	src, err := oci.Open(ctx, path, c.ociOptions()...)
	if err != nil {
		// The format recognised before reading failed, if any.
		var oe *oci.Error
		if errors.As(err, &oe) {
			return nil, oe.Format, err
		}
		return nil, 0, err
	}
	defer src.Close()
	p, err := openStore(ctx, src, src.Format(), c)
	return p, src.Format(), err
}

// openReader loads what r holds: an image, spooled to a temporary file, or
// a YAML stream.
func openReader(ctx context.Context, r io.Reader, c *openConfig) (*Package, []string, error) {
	br := bufio.NewReaderSize(r, sniffSize)
	head, err := br.Peek(sniffSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, nil, err
	}
	if len(head) == 0 {
		return nil, nil, ErrEmpty
	}
	switch sniff(head) {
	case contentImage:
		return spoolImage(ctx, br, c)
	case contentText:
		if c.imagesOnly {
			return nil, []string{"image: not a tar or gzip stream", "YAML stream: not accepted (WithImagesOnly)"}, ErrUnknownSource
		}
		file := c.sourceName
		if file == "-" {
			file = readerName
		}
		pkg, err := parser.Parse(ctx, br, c.parseOptions(file)...)
		if err != nil {
			return nil, nil, err
		}
		return &Package{Package: pkg}, nil, nil
	}
	return nil, binaryTried(head), ErrUnknownSource
}

// openReaderAt is OpenReaderAt's detection: an image is read through r
// where it is, a YAML stream parsed from it.
func openReaderAt(ctx context.Context, r io.ReaderAt, size int64, c *openConfig) (*Package, []string, error) {
	if max := c.limits.MaxReaderBytes; size > max {
		return nil, nil, &limit.Error{Limit: limitval.MaxReaderBytes, Value: size, Max: max}
	}
	head := make([]byte, min(size, sniffSize))
	if n, err := r.ReadAt(head, 0); err != nil && !(errors.Is(err, io.EOF) && n == len(head)) {
		return nil, nil, err
	}
	if len(head) == 0 {
		return nil, nil, ErrEmpty
	}
	switch sniff(head) {
	case contentImage:
		return openImageAt(ctx, r, size, c)
	case contentText:
		if c.imagesOnly {
			return nil, []string{"image: not a tar or gzip stream", "YAML stream: not accepted (WithImagesOnly)"}, ErrUnknownSource
		}
		pkg, err := parser.Parse(ctx, io.NewSectionReader(r, 0, size), c.parseOptions(c.sourceName)...)
		if err != nil {
			return nil, nil, err
		}
		return &Package{Package: pkg}, nil, nil
	}
	return nil, binaryTried(head), ErrUnknownSource
}

// spoolImage copies an image stream to a temporary file, at most
// MaxReaderBytes bytes, and loads it.
func spoolImage(ctx context.Context, r io.Reader, c *openConfig) (*Package, []string, error) {
	tmp, err := os.CreateTemp(c.spoolDir, "xpkg-*.tar")
	if err != nil {
		return nil, nil, fmt.Errorf("xpkg: spooling the input: %w", err)
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	max := c.limits.MaxReaderBytes
	// r is the caller's: a read of it that blocks does not block
	// cancellation (it is left behind, see package ctxio).
	cr := ctxio.NewReader(ctx, r)
	defer cr.Close()
	n, err := io.Copy(tmp, io.LimitReader(cr, max+1))
	if err != nil {
		return nil, nil, fmt.Errorf("xpkg: spooling the input: %w", err)
	}
	if n > max {
		return nil, nil, &limit.Error{Limit: limitval.MaxReaderBytes, Value: n, Max: max}
	}
	return openImageAt(ctx, tmp, n, c)
}

// openImageAt loads the image of size bytes that r holds (an upload, or
// a spooled stream), and returns the image error (imageError) when it
// cannot.
func openImageAt(ctx context.Context, r io.ReaderAt, size int64, c *openConfig) (*Package, []string, error) {
	reopen := func() (io.ReadCloser, error) { return io.NopCloser(io.NewSectionReader(r, 0, size)), nil }
	src, err := oci.OpenReaderAt(ctx, r, size, c.ociOptions()...)
	if err != nil {
		tried, err := imageError(ctx, err, reopen, c)
		return nil, tried, err
	}
	defer src.Close()
	p, err := openStore(ctx, src, src.Format(), c)
	if err != nil {
		tried, err := imageError(ctx, err, reopen, c)
		return nil, tried, err
	}
	return p, nil, nil
}

// imageError returns the error of content recognised as an image (a tar
// or gzip stream) whose reading failed: the image error itself, with its
// class, except when the image readers found no image format
// (oci.ErrUnknownFormat). Then a stream that stops short (a tar without its
// end-of-archive marker, a gzip stream cut off: an upload that did not
// finish) is an *ImageTruncatedError, of class oci.ErrMalformed; a complete
// stream that holds no image (a tar of other files, gzip'd text) is not a
// package source (ErrUnknownSource, with what was tried), the oci error
// still reachable with errors.Is and errors.As.
func imageError(ctx context.Context, err error, open func() (io.ReadCloser, error), c *openConfig) ([]string, error) {
	if !errors.Is(err, oci.ErrUnknownFormat) {
		return nil, err
	}
	notImage := func() ([]string, error) {
		return []string{"image: " + err.Error(), "YAML stream: the content is a tar or gzip stream"}, &notAnImageError{err: err}
	}
	rc, oerr := open()
	if oerr != nil {
		return notImage()
	}
	defer rc.Close()
	switch st, why := streamState(ctx, rc, c.limits.OCI.MaxImageBytes); st {
	case streamTruncated:
		return nil, &ImageTruncatedError{Reason: why, Err: err}
	default:
		return notImage()
	}
}

type stream int

const (
	streamComplete stream = iota // ends as a complete tar does
	streamTruncated
	streamNotTar // a complete gzip stream of something else
)

// streamState reads a tar or gzip'd tar stream to its end, at most max
// decompressed bytes, and tells whether it ends as a complete tar does
// (with its end-of-archive marker, two zero blocks, and for gzip a
// well-formed trailer), stops short (and why), or is a gzip stream of
// something other than a tar. A stream longer than max is taken as
// complete (the image readers report the limit).
func streamState(ctx context.Context, r io.Reader, max int64) (stream, string) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(2)
	var tr io.Reader = br
	gz := bytes.Equal(magic, []byte{0x1f, 0x8b})
	if gz {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return streamTruncated, "the gzip stream is cut off or corrupt: " + err.Error()
		}
		defer zr.Close()
		tr = zr
	}
	if max <= 0 {
		max = 2 << 30
	}
	const block, tail = 512, 1024
	var first [block]byte
	var last [tail]byte
	buf := make([]byte, 32<<10)
	var total int64
	lr := io.LimitReader(ctxio.Check(ctx, tr), max+1)
	for {
		n, err := lr.Read(buf)
		if n > 0 {
			if total < block {
				copy(first[total:], buf[:n])
			}
			total += int64(n)
			if n >= tail {
				copy(last[:], buf[n-tail:n])
			} else {
				copy(last[:], last[n:])
				copy(last[tail-n:], buf[:n])
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return streamComplete, "" // cancelled: the image error stands
			}
			return streamTruncated, "the stream is cut off or corrupt: " + err.Error()
		}
	}
	switch {
	case total > max:
		return streamComplete, ""
	case gz && (total < block || !isTarHeader(first[:])):
		return streamNotTar, ""
	case total < tail || !bytes.Equal(last[:], make([]byte, tail)):
		return streamTruncated, "the tar has no end-of-archive marker"
	}
	return streamComplete, ""
}

// content is what the first bytes of a source say it holds.
type content int

const (
	contentBinary content = iota
	contentImage
	contentText
)

// sniff tells an image (a tar or gzip stream) from text (a YAML stream)
// and from anything else.
func sniff(head []byte) content {
	switch {
	case isGzip(head):
		return contentImage
	case isTarHeader(head):
		return contentImage
	case isBinary(head):
		return contentBinary
	}
	return contentText
}

// binaryWindow is how far into its content a NUL byte makes a source
// binary rather than a YAML stream: far enough for the headers of the
// binary formats a user may give by mistake (ELF, zip, PNG, zstd), near
// enough that a text file with a stray NUL (or any other byte YAML forbids)
// further on is read as the broken YAML it is, and reported with a position.
const binaryWindow = 512

// isBinary reports whether head is not the start of a text file: it has a
// NUL byte within binaryWindow.
func isBinary(head []byte) bool {
	nul := bytes.IndexByte(head, 0)
	return nul >= 0 && nul < binaryWindow
}

// isTarHeader reports whether head starts with a tar header: the ustar or
// GNU magic at offset 257, or, for the old V7 format, which has no magic, a
// valid header checksum.
func isTarHeader(head []byte) bool {
	if len(head) < 512 {
		return false
	}
	if bytes.HasPrefix(head[257:], []byte("ustar")) {
		return true
	}
	var sum int64
	for i, b := range head[:512] {
		if i >= 148 && i < 156 {
			b = ' '
		}
		sum += int64(b)
	}
	field := bytes.Trim(head[148:156], " \x00")
	if len(field) == 0 {
		return false
	}
	var want int64
	for _, d := range field {
		if d < '0' || d > '7' {
			return false
		}
		want = want*8 + int64(d-'0')
	}
	return want == sum
}

// binaryTried says why binary content fit no kind.
func binaryTried(head []byte) []string {
	return []string{
		"image: not a tar or gzip stream",
		fmt.Sprintf("YAML stream: binary content (a NUL byte at offset %d)", bytes.IndexByte(head, 0)),
	}
}

// isFile reports whether name exists and is a regular file.
func isFile(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}
