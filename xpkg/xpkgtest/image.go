package xpkgtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// Image is a package image, held in memory, ready to be written in
// tb.TempDir() as a `.xpkg` file (XpkgFile), an OCI image layout
// (LayoutDir), or an OCI layout tar (LayoutTarFile). It is safe for
// concurrent use.
type Image struct {
	name  string
	built *ociwrite.Built
}

// Image builds the package's image as xpkg.Build would from FS, without
// parsing or linting it (so broken content builds too): a layer holding
// package.yaml (YAML) annotated io.crossplane.xpkg=base and, when the
// package has examples, a layer holding .up/examples.yaml annotated
// upbound, with the config labels Crossplane writes. Its digest is the
// digest xpkg.Build gives for FS.
func (p *Package) Image(ctx context.Context) (*Image, error) {
	layers := []ociwrite.Layer{fileLayer(xpkg.PackageFile, p.YAML(), xpkg.AnnotationBase)}
	if ex := p.ExamplesYAML(); ex != nil {
		layers = append(layers, fileLayer(xpkg.ExamplesFile, ex, xpkg.AnnotationExamples))
	}
	return newImage(ctx, p.name, ociwrite.Image{Layers: layers, LabelAnnotations: []string{xpkg.AnnotationKey}})
}

// MustImage is Image for tests: it fails tb when the image cannot be built.
func (p *Package) MustImage(tb testing.TB) *Image {
	tb.Helper()
	img, err := p.Image(tb.Context())
	if err != nil {
		tb.Fatalf("xpkgtest: building %s: %v", p.name, err)
	}
	return img
}

// newImage builds spec with the config every package image has: empty
// platform, Crossplane's zero creation time.
func newImage(ctx context.Context, name string, spec ociwrite.Image) (*Image, error) {
	created := time.Time{}
	spec.Config = ocispec.Image{Created: &created}
	b, err := ociwrite.Build(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("xpkgtest: %w", err)
	}
	return &Image{name: name, built: b}, nil
}

// fileLayer returns a layer holding one file, annotated
// io.crossplane.xpkg=annotation (none when annotation is empty).
func fileLayer(name string, data []byte, annotation string) ociwrite.Layer {
	l := ociwrite.Layer{WriteTar: func(w io.Writer) error {
		return ociwrite.WriteTar(context.Background(), w, ociwrite.File{Name: name, Data: data})
	}}
	if annotation != "" {
		l.Annotations = map[string]string{xpkg.AnnotationKey: annotation}
	}
	return l
}

// Digest returns the digest of the image's manifest, as written in an OCI
// layout.
func (i *Image) Digest() digest.Digest { return i.built.ManifestDescriptor().Digest }

// Manifest returns the image's manifest.
func (i *Image) Manifest() ocispec.Manifest { return i.built.Manifest() }

// XpkgFile writes the image as "<name>.xpkg" in tb.TempDir() and returns
// its path.
func (i *Image) XpkgFile(tb testing.TB) string {
	tb.Helper()
	return writeTemp(tb, i.name+xpkg.Extension, i.xpkg(tb))
}

// xpkg returns the image as a docker-archive tar, the `.xpkg` file the
// Crossplane CLI writes.
func (i *Image) xpkg(tb testing.TB) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := i.built.WriteDockerArchive(tb.Context(), &buf); err != nil {
		tb.Fatalf("xpkgtest: %v", err)
	}
	return buf.Bytes()
}

// LayoutDir writes the image as an OCI image layout in a new directory in
// tb.TempDir() and returns its path.
func (i *Image) LayoutDir(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), i.name)
	if err := i.built.WriteLayout(tb.Context(), dir); err != nil {
		tb.Fatalf("xpkgtest: %v", err)
	}
	return dir
}

// LayoutTarFile writes the image as an OCI layout tar named "<name>.tar"
// in tb.TempDir() and returns its path.
func (i *Image) LayoutTarFile(tb testing.TB) string {
	tb.Helper()
	var buf bytes.Buffer
	if err := i.built.WriteLayoutTar(tb.Context(), &buf); err != nil {
		tb.Fatalf("xpkgtest: %v", err)
	}
	return writeTemp(tb, i.name+".tar", buf.Bytes())
}
