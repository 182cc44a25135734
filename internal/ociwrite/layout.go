package ociwrite

import (
	"archive/tar"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// layoutFile is the content of an OCI layout's oci-layout file.
const layoutFile = `{"imageLayoutVersion":"1.0.0"}`

// IndexJSON returns the layout's index.json: one manifest entry per ref name
// (annotated org.opencontainers.image.ref.name), or one unannotated entry
// when the image has no names.
func (b *Built) IndexJSON() ([]byte, error) {
	idx := ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex,
	}
	if len(b.refNames) == 0 {
		idx.Manifests = []ocispec.Descriptor{b.manBlob.desc}
	}
	for _, n := range b.refNames {
		d := b.manBlob.desc
		d.Annotations = map[string]string{ocispec.AnnotationRefName: n}
		idx.Manifests = append(idx.Manifests, d)
	}
	out, err := json.Marshal(idx)
	if err != nil {
		return nil, fmt.Errorf("ociwrite: encoding index: %w", err)
	}
	return out, nil
}

// layoutBlobs returns every blob of the layout, manifest included, sorted by
// digest.
func (b *Built) layoutBlobs() []blob {
	all := append(b.blobs(), b.manBlob)
	slices.SortFunc(all, func(x, y blob) int { return strings.Compare(string(x.desc.Digest), string(y.desc.Digest)) })
	return slices.CompactFunc(all, func(x, y blob) bool { return x.desc.Digest == y.desc.Digest })
}

// WriteLayout writes the image as an OCI image layout in dir, creating it
// when needed. Files it writes replace files of the same name; index.json is
// written last and replaces any index already there.
func (b *Built) WriteLayout(ctx context.Context, dir string) error {
	blobDir := filepath.Join(dir, "blobs", "sha256")
	if err := os.MkdirAll(blobDir, DirMode); err != nil {
		return fmt.Errorf("ociwrite: %w", err)
	}
	for _, bl := range b.layoutBlobs() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(blobDir, bl.desc.Digest.Encoded()), bl.data, FileMode); err != nil {
			return fmt.Errorf("ociwrite: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ocispec.ImageLayoutFile), []byte(layoutFile), FileMode); err != nil {
		return fmt.Errorf("ociwrite: %w", err)
	}
	idx, err := b.IndexJSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ocispec.ImageIndexFile), idx, FileMode); err != nil {
		return fmt.Errorf("ociwrite: %w", err)
	}
	return nil
}

// WriteLayoutTar writes the image as an OCI image layout in an uncompressed
// tar stream: entries sorted by path ("blobs/", "blobs/sha256/", the blobs,
// "index.json", "oci-layout"), no leading "./".
func (b *Built) WriteLayoutTar(ctx context.Context, w io.Writer) error {
	tw := tar.NewWriter(ctxWriter{ctx: ctx, w: w})
	for _, d := range []string{"blobs/", "blobs/sha256/"} {
		if err := tw.WriteHeader(dirHeader(d)); err != nil {
			return fmt.Errorf("ociwrite: %w", err)
		}
	}
	for _, bl := range b.layoutBlobs() {
		if err := writeTarEntry(tw, "blobs/sha256/"+bl.desc.Digest.Encoded(), bl.data); err != nil {
			return err
		}
	}
	idx, err := b.IndexJSON()
	if err != nil {
		return err
	}
	if err := writeTarEntry(tw, ocispec.ImageIndexFile, idx); err != nil {
		return err
	}
	if err := writeTarEntry(tw, ocispec.ImageLayoutFile, []byte(layoutFile)); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("ociwrite: %w", err)
	}
	return nil
}

func writeTarEntry(tw *tar.Writer, name string, data []byte) error {
	if err := tw.WriteHeader(fileHeader(name, int64(len(data)))); err != nil {
		return fmt.Errorf("ociwrite: writing %s: %w", name, err)
	}
	if _, err := tw.Write(data); err != nil {
		return fmt.Errorf("ociwrite: writing %s: %w", name, err)
	}
	return nil
}
