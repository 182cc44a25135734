package xpkg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Classes of Build errors; test with errors.Is.
var (
	// ErrNoMetaFile: the package directory has no parser.MetaFile at its root.
	ErrNoMetaFile = errors.New("xpkg: no " + parser.MetaFile + " at the package root")
	// ErrParse: documents of the package or of its examples cannot be
	// parsed. Errors of this class are *ParseError.
	ErrParse = errors.New("xpkg: package has documents that cannot be parsed")
)

// ParseError lists the documents that could not be parsed, in the order the
// parser read them. Positions name files by their path in the package
// directory (examples under ExamplesDir).
type ParseError struct {
	Errors []*parser.DocumentError
}

// Error lists up to five of the document errors.
func (e *ParseError) Error() string {
	return listErrors(ErrParse.Error(), len(e.Errors), func(i int) string { return e.Errors[i].Error() })
}

// Is reports whether target is ErrParse.
func (e *ParseError) Is(target error) bool { return target == ErrParse }

// Unwrap returns the document errors, so that errors.Is finds their classes
// (parser.ErrSyntax, ...).
func (e *ParseError) Unwrap() []error {
	out := make([]error, len(e.Errors))
	for i, de := range e.Errors {
		out[i] = de
	}
	return out
}

// listErrors formats a headline and up to five items.
func listErrors(head string, n int, item func(int) string) string {
	const show = 5
	var b strings.Builder
	b.WriteString(head)
	for i := 0; i < n && i < show; i++ {
		b.WriteString("\n\t")
		b.WriteString(item(i))
	}
	if n > show {
		fmt.Fprintf(&b, "\n\t... and %d more", n-show)
	}
	return b.String()
}

// BuildResult is a package image built by Build, held in memory. It can be
// written any number of times, in any of the three forms, and is safe for
// concurrent use.
type BuildResult struct {
	img          *ociwrite.Built
	pkg          *parser.Package
	packageYAML  []byte
	examplesYAML []byte
}

// Build builds a package image from a package in its on-disk format, as the
// Crossplane CLI's build does:
//
//   - it parses fsys with parser.ParseFS (parser.MetaFile first, then every other
//     *.yaml and *.yml file in lexical order of path, skipping directories
//     whose names start with "." and ExamplesDir), and refuses a package
//     with documents that cannot be parsed (*ParseError);
//   - it runs the check given with WithCheck, if any (the linter's lint
//     gate is linter/rules.BuildCheck), and refuses the package when the
//     check fails;
//   - it joins those files, unchanged, into one PackageFile stream: each
//     file's bytes, ended with a newline when they are not, separated by
//     "---" lines; the result is byte for byte what the corpus's
//     package.yaml files hold;
//   - it writes one layer holding PackageFile, annotated AnnotationKey =
//     AnnotationBase, and, when the package has examples (the YAML files
//     below ExamplesDir, hidden directories included, or WithExamplesFS), a second layer holding
//     ExamplesFile, annotated AnnotationExamples, joined and checked the
//     same way;
//   - the image config records each layer annotation as a label (LayerLabel)
//     so that a `.xpkg` file keeps them, and has an empty platform and fixed
//     timestamps, as Crossplane's has.
//
// The result is reproducible: the same files give the same digests on every
// run and every machine. Unlike Crossplane, Build does not re-encode the
// YAML: the layer holds the source text, comments and key order included.
func Build(ctx context.Context, fsys fs.FS, opts ...BuildOption) (*BuildResult, error) {
	c := newBuildConfig(opts)

	files, err := parser.PackageFiles(fsys)
	if err != nil {
		return nil, fmt.Errorf("xpkg: listing package files: %w", err)
	}
	if len(files) == 0 || files[0] != parser.MetaFile {
		return nil, ErrNoMetaFile
	}
	pkg, err := parser.ParseFS(ctx, fsys, c.parseOpts...)
	if err != nil {
		return nil, fmt.Errorf("xpkg: parsing package: %w", err)
	}
	if len(pkg.Errors) > 0 {
		return nil, &ParseError{Errors: pkg.Errors}
	}
	if c.check != nil {
		if err := c.check(ctx, pkg); err != nil {
			return nil, err
		}
	}
	pkgYAML, err := joinFiles(ctx, fsys, files)
	if err != nil {
		return nil, err
	}

	exFS, err := c.examples(fsys)
	if err != nil {
		return nil, err
	}
	var exYAML []byte
	if exFS != nil {
		if exYAML, err = readExamples(ctx, exFS, c); err != nil {
			return nil, err
		}
	}

	img, err := newPackageImage(ctx, pkgYAML, exYAML, c.imageOptions)
	if err != nil {
		return nil, err
	}
	return &BuildResult{img: img, pkg: pkg, packageYAML: pkgYAML, examplesYAML: exYAML}, nil
}

// readExamples checks and joins the examples' YAML files. It returns nil
// when there are none.
// Like Crossplane's build, it reads every directory under the examples
// directory, hidden ones included (parser.WithAllDirectories).
func readExamples(ctx context.Context, exFS fs.FS, c *buildConfig) ([]byte, error) {
	ex, err := parser.ParseFS(ctx, exFS, append(append([]parser.Option(nil), c.parseOpts...), parser.WithAllDirectories())...)
	if err != nil {
		return nil, fmt.Errorf("xpkg: parsing examples: %w", err)
	}
	files := ex.Files
	if len(files) == 0 {
		return nil, nil
	}
	if len(ex.Errors) > 0 {
		if c.examplesFS == nil {
			for _, e := range ex.Errors {
				e.Pos.File = path.Join(ExamplesDir, e.Pos.File)
			}
		}
		return nil, &ParseError{Errors: ex.Errors}
	}
	return joinFiles(ctx, exFS, files)
}

// joinFiles returns the files' bytes joined into one YAML stream: each file
// ends with a newline, and a "---" line separates one file from the next.
func joinFiles(ctx context.Context, fsys fs.FS, files []string) ([]byte, error) {
	var buf bytes.Buffer
	for i, name := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("xpkg: reading %s: %w", name, err)
		}
		buf.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes(), nil
}

// imageOptions are the parts of a build that shape the image, shared with
// xpkgtest through newPackageImage.
type imageOptions struct {
	tags       []string
	mediaTypes ociwrite.MediaTypes
}

// newPackageImage makes the image of a package: a base layer holding
// PackageFile and, when examples is not nil, an examples layer holding
// ExamplesFile, with the config Crossplane writes.
func newPackageImage(ctx context.Context, pkgYAML, examples []byte, o imageOptions) (*ociwrite.Built, error) {
	layers := []ociwrite.Layer{fileLayer(PackageFile, pkgYAML, AnnotationBase)}
	if examples != nil {
		layers = append(layers, fileLayer(ExamplesFile, examples, AnnotationExamples))
	}
	created := time.Time{} // Crossplane writes 0001-01-01T00:00:00Z.
	img, err := ociwrite.Build(ctx, ociwrite.Image{
		Layers:           layers,
		Config:           ocispec.Image{Created: &created},
		LabelAnnotations: []string{AnnotationKey},
		RefNames:         o.tags,
		MediaTypes:       o.mediaTypes,
	})
	if err != nil {
		return nil, fmt.Errorf("xpkg: building image: %w", err)
	}
	return img, nil
}

// fileLayer returns a layer holding one file, annotated AnnotationKey =
// annotation. The tar stream is written straight into the compressor.
func fileLayer(name string, data []byte, annotation string) ociwrite.Layer {
	return ociwrite.Layer{
		WriteTar: func(w io.Writer) error {
			return ociwrite.WriteTar(context.Background(), w, ociwrite.File{Name: name, Data: data})
		},
		Annotations: map[string]string{AnnotationKey: annotation},
	}
}

// Digest returns the digest of the image's manifest as written in an OCI
// layout: the image's digest, what a registry reports after a push.
func (r *BuildResult) Digest() digest.Digest { return r.img.ManifestDescriptor().Digest }

// Manifest returns the image's manifest.
func (r *BuildResult) Manifest() ocispec.Manifest { return r.img.Manifest() }

// Package returns the parsed package, with positions in the source files.
func (r *BuildResult) Package() *parser.Package { return r.pkg }

// PackageYAML returns the content of PackageFile in the base layer. The
// caller must not modify it.
func (r *BuildResult) PackageYAML() []byte { return r.packageYAML }

// ExamplesYAML returns the content of ExamplesFile in the examples layer,
// or nil when there is none. The caller must not modify it.
func (r *BuildResult) ExamplesYAML() []byte { return r.examplesYAML }

// WriteLayout writes the image as an OCI image layout in dir, creating it
// when needed. index.json names the image with each tag of WithTags
// (annotation org.opencontainers.image.ref.name), and is replaced when dir
// already holds one.
func (r *BuildResult) WriteLayout(ctx context.Context, dir string) error {
	return r.img.WriteLayout(ctx, dir)
}

// WriteLayoutTar writes the image to w as an OCI image layout in a tar
// stream.
func (r *BuildResult) WriteLayoutTar(ctx context.Context, w io.Writer) error {
	return r.img.WriteLayoutTar(ctx, w)
}

// WriteXpkg writes the image to w as a docker-archive tar, the `.xpkg` file
// the Crossplane CLI writes (its RepoTags are the tags of WithTags). The
// format drops layer annotations; the config labels keep them.
func (r *BuildResult) WriteXpkg(ctx context.Context, w io.Writer) error {
	return r.img.WriteDockerArchive(ctx, w)
}
