package oci_test

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"path"
	"path/filepath"
	"testing"
	"testing/fstest"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/ocitest"
)

// fuzzLimits keeps each fuzz input cheap.
func fuzzLimits() oci.Option {
	return oci.WithLimits(oci.Limits{
		MaxManifestSize: 64 << 10, MaxConfigSize: 64 << 10, MaxBlobSize: 1 << 20,
		MaxLayerSize: 4 << 20, MaxImageSize: 8 << 20, MaxFileSize: 1 << 20,
		MaxTarEntries: 1000, MaxLayers: 16, MaxIndexDepth: 4, MaxZstdWindow: 4 << 20,
	})
}

// readAny resolves s and reads package.yaml flattened, discarding errors:
// the fuzz targets check for panics, hangs and unbounded memory.
func readAny(s oci.Store) {
	ctx := context.Background()
	img, err := oci.Resolve(ctx, s, fuzzLimits())
	if err != nil {
		return
	}
	f, err := oci.ReadFile(ctx, s, img.Layers, "package.yaml", fuzzLimits())
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, f)
	_ = f.Close()
	_ = f.Warnings()
}

// FuzzLayoutIndex fuzzes index.json of a layout holding ocitest.Image's
// blobs.
func FuzzLayoutIndex(f *testing.F) {
	blobs, index := ocitest.Image()
	fsys := fstest.MapFS{"oci-layout": {Data: []byte(`{"imageLayoutVersion":"1.0.0"}`)}}
	for _, b := range blobs {
		fsys[path.Join("blobs", "sha256", b.Descriptor.Digest.Encoded())] = &fstest.MapFile{Data: b.Data}
	}
	f.Add([]byte(`{"schemaVersion":2,"manifests":[` + mustJSON(f, index) + `]}`))
	f.Add([]byte(`{"schemaVersion":2,"manifests":[` + mustJSON(f, blobs[4].Descriptor) + `]}`))
	f.Add([]byte(`{"schemaVersion":2,"manifests":[]}`))
	for _, name := range []string{"provider-helm", "function-go-templating"} {
		if b, err := os.ReadFile(filepath.Join(testcorpus.Dir(f), name+".oci", "index.json")); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, indexJSON []byte) {
		m := fstest.MapFS{}
		for k, v := range fsys {
			m[k] = v
		}
		m["index.json"] = &fstest.MapFile{Data: indexJSON}
		l, err := oci.NewLayoutFS(context.Background(), m, fuzzLimits())
		if err != nil {
			t.Fatal(err)
		}
		readAny(l)
	})
}

// FuzzDockerManifest fuzzes manifest.json of a docker archive holding a
// config and a layer.
func FuzzDockerManifest(f *testing.F) {
	layer := gzipBytes(f, tarBytes(f, file("package.yaml", "kind: Provider\n")))
	ld := digest.FromBytes(layer)
	cfg := []byte(`{"config":{"Labels":{"io.crossplane.xpkg:` + ld.String() + `":"base"}},"rootfs":{"type":"layers"}}`)
	cd := digest.FromBytes(cfg)
	f.Add([]byte(`[{"Config":"` + cd.String() + `","RepoTags":["example.com/p:v1"],"Layers":["` + ld.Encoded() + `.tar.gz"]}]`))
	f.Add([]byte(`[{"Config":"` + cd.String() + `","RepoTags":null,"Layers":["` + ld.Encoded() + `.tar.gz","` + ld.Encoded() + `.tar.gz"]}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, manifestJSON []byte) {
		archive := tarBytes(t,
			file(cd.String(), string(cfg)),
			file(ld.Encoded()+".tar.gz", string(layer)),
			file("manifest.json", string(manifestJSON)),
		)
		s, err := oci.OpenReaderAt(context.Background(), bytes.NewReader(archive), int64(len(archive)), fuzzLimits())
		if err != nil {
			return
		}
		readAny(s)
	})
}

// FuzzOpenArchive fuzzes whole archives: tar indexing and format detection.
func FuzzOpenArchive(f *testing.F) {
	for _, name := range []string{"e2e-configuration-dependency.xpkg", "function-go-templating.xpkg"} {
		if b, err := os.ReadFile(filepath.Join(testcorpus.Dir(f), name)); err == nil {
			f.Add(b)
		}
	}
	f.Add(tarBytes(f, file("oci-layout", `{"imageLayoutVersion":"1.0.0"}`), file("index.json", `{"schemaVersion":2,"manifests":[]}`)))
	f.Fuzz(func(t *testing.T, archive []byte) {
		s, err := oci.OpenReaderAt(context.Background(), bytes.NewReader(archive), int64(len(archive)), fuzzLimits())
		if err != nil {
			return
		}
		readAny(s)
	})
}

// FuzzReadLayerFile fuzzes a layer's bytes (compression sniffed) through
// ReadLayerFile and WalkLayer.
func FuzzReadLayerFile(f *testing.F) {
	raw := tarBytes(f, file("./package.yaml", "a"), file(".wh.x", ""), file("../y", ""), dir("d/"), file("d/.wh..wh..opq", ""))
	f.Add(raw)
	f.Add(gzipBytes(f, raw))
	f.Add(zstdBytes(f, raw))
	f.Add(gzipBytes(f, tarBytes(f, file("package.yaml", "a"), file("package.yaml", "b"))))
	f.Fuzz(func(t *testing.T, layer []byte) {
		ctx := context.Background()
		s := oci.NewMemoryStore()
		d, err := s.PushBytes(ctx, "", layer)
		if err != nil {
			t.Fatal(err)
		}
		if file, err := oci.ReadLayerFile(ctx, s, d, "package.yaml", fuzzLimits()); err == nil {
			_, _ = io.Copy(io.Discard, file)
			_ = file.Close()
		}
		_ = oci.WalkLayer(ctx, s, d, func(h *tar.Header, r io.Reader) error {
			_, err := io.Copy(io.Discard, r)
			return err
		}, fuzzLimits())
		// Stacked on itself, the layer exercises whiteouts across layers.
		if file, err := oci.ReadFile(ctx, s, []ocispec.Descriptor{d, d}, "d/package.yaml", fuzzLimits()); err == nil {
			_, _ = io.Copy(io.Discard, file)
			_ = file.Close()
		}
	})
}
