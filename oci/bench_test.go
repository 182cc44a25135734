package oci_test

import (
	"archive/tar"
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"io"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/oci"
)

const monolith = "provider-upjet-aws-monolith"

// streamPackageYAML opens path, resolves the image, and streams the base
// layer's package.yaml to io.Discard.
func streamPackageYAML(b *testing.B, path string) int64 {
	ctx := context.Background()
	src, err := oci.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	img, err := oci.Resolve(ctx, src)
	if err != nil {
		b.Fatal(err)
	}
	f, err := oci.ReadLayerFile(ctx, src, baseLayer(b, img), "package.yaml")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	n, err := io.Copy(io.Discard, f)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkReadPackageYAML streams package.yaml of the monolith (102 MB
// inflated) to io.Discard out of its .xpkg and its OCI layout, with this
// package (open, resolve, base layer, ReadLayerFile) and with
// go-containerregistry (tarball.ImageFromPath or layout.FromPath, the base
// layer's Uncompressed(), a tar reader). Compare with
// `benchstat -col /impl`.
func BenchmarkReadPackageYAML(b *testing.B) {
	ggcrOpen := map[string]func(path string) (v1.Image, error){
		"xpkg": func(path string) (v1.Image, error) { return tarball.ImageFromPath(path, nil) },
		"oci": func(path string) (v1.Image, error) {
			p, err := layout.FromPath(path)
			if err != nil {
				return nil, err
			}
			idx, err := p.ImageIndex()
			if err != nil {
				return nil, err
			}
			m, err := idx.IndexManifest()
			if err != nil {
				return nil, err
			}
			return idx.Image(m.Manifests[0].Digest)
		},
	}
	for _, format := range []string{"xpkg", "oci"} {
		path := testcorpus.Path(b, monolith+"."+format)
		b.Run("format="+format+"/impl=xpkgkit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.SetBytes(streamPackageYAML(b, path))
			}
		})
		b.Run("format="+format+"/impl=ggcr", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.SetBytes(streamGGCR(b, ggcrOpen[format], path))
			}
		})
	}
}

func streamGGCR(b *testing.B, open func(string) (v1.Image, error), path string) int64 {
	img, err := open(path)
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		b.Fatal(err)
	}
	m, err := img.Manifest()
	if err != nil {
		b.Fatal(err)
	}
	var base v1.Hash
	for _, l := range m.Layers {
		if l.Annotations["io.crossplane.xpkg"] == "base" || cfg.Config.Labels["io.crossplane.xpkg:"+l.Digest.String()] == "base" {
			base = l.Digest
		}
	}
	layer, err := img.LayerByDigest(base)
	if err != nil {
		b.Fatal(err)
	}
	rc, err := layer.Uncompressed()
	if err != nil {
		b.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if err != nil {
			b.Fatal(err)
		}
		if hdr.Name == "package.yaml" {
			n, err := io.Copy(io.Discard, tr)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
}

// BenchmarkGunzip compares the standard library's gzip with klauspost's on
// the monolith's 12 MB base layer (102 MB inflated): the reason this package
// uses klauspost. Compare with `benchstat -col /impl`.
func BenchmarkGunzip(b *testing.B) {
	ctx := context.Background()
	src, err := oci.Open(ctx, testcorpus.Path(b, monolith+".oci"))
	if err != nil {
		b.Fatal(err)
	}
	img, err := oci.Resolve(ctx, src)
	if err != nil {
		b.Fatal(err)
	}
	rc, err := oci.FetchVerified(ctx, src, baseLayer(b, img))
	if err != nil {
		b.Fatal(err)
	}
	blob, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		b.Fatal(err)
	}
	readers := map[string]func(io.Reader) (io.Reader, error){
		"stdlib":    func(r io.Reader) (io.Reader, error) { return stdgzip.NewReader(r) },
		"klauspost": func(r io.Reader) (io.Reader, error) { return kgzip.NewReader(r) },
	}
	for _, name := range []string{"stdlib", "klauspost"} {
		b.Run("impl="+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				zr, err := readers[name](bytes.NewReader(blob))
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, zr)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(n)
			}
		})
	}
}
