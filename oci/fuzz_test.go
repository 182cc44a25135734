package oci_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"testing"
	"testing/fstest"

	digest "github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/ocitest"
)

// fuzzLimits keeps each fuzz input cheap.
func fuzzLimits() oci.Option {
	return oci.WithLimits(oci.Limits{
		MaxManifestBytes: 64 << 10, MaxConfigBytes: 64 << 10, MaxBlobBytes: 1 << 20,
		MaxLayerBytes: 4 << 20, MaxImageBytes: 8 << 20, MaxFileBytes: 1 << 20,
		MaxTarEntries: 1000, MaxLayers: 16, MaxIndexDepth: 4, MaxZstdWindow: 4 << 20,
	})
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
		watchdog(t, len(indexJSON), func(t *testing.T) {
			l, err := oci.NewLayoutFS(context.Background(), m, fuzzLimits())
			if err != nil {
				t.Fatal(err)
			}
			readAny(t, l)
		})
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
		watchdog(t, len(manifestJSON), func(t *testing.T) {
			s, err := oci.OpenReaderAt(context.Background(), bytes.NewReader(archive), int64(len(archive)), fuzzLimits())
			checkTyped(t, "OpenReaderAt", err)
			if err != nil {
				return
			}
			defer s.Close()
			if s.Format() != oci.FormatDockerArchive {
				t.Fatalf("format %v, want %v", s.Format(), oci.FormatDockerArchive)
			}
			readAny(t, s)
		})
	})
}

// FuzzOpenArchive fuzzes whole archives: tar indexing and format detection.
// Its seeds are small (a few KB) so that the fuzzer runs thousands of inputs
// a second rather than a few multi-MiB corpus packages.
func FuzzOpenArchive(f *testing.F) {
	for _, seed := range smallArchives(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, archive []byte) {
		watchdog(t, len(archive), func(t *testing.T) {
			s, err := oci.OpenReaderAt(context.Background(), bytes.NewReader(archive), int64(len(archive)), fuzzLimits())
			checkTyped(t, "OpenReaderAt", err)
			if err != nil {
				return
			}
			defer s.Close()
			readAny(t, s)
		})
	})
}

// smallArchives returns small images in every archive form Open reads:
// testdata/configuration.xpkg, docker archives with the Crossplane CLI's and
// docker's entry names (plain, gzip-compressed, and with a layer named after
// another digest), and OCI layout tars (plain, gzip-compressed, and with an
// empty index).
func smallArchives(tb testing.TB) [][]byte {
	tb.Helper()
	xpkg, err := os.ReadFile(filepath.Join("testdata", "configuration.xpkg"))
	if err != nil {
		tb.Fatal(err)
	}
	const yaml = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: c\n"
	layer := gzipBytes(tb, tarBytes(tb, file("package.yaml", yaml)))
	ld := digest.FromBytes(layer)
	cfg := []byte(`{"config":{"Labels":{"io.crossplane.xpkg:` + ld.String() + `":"base"}},"rootfs":{"type":"layers","diff_ids":[]}}`)
	cd := digest.FromBytes(cfg)
	crossplane := dockerArchive(tb, cd.String(), cfg, ld.Encoded()+".tar.gz", layer)
	docker := dockerArchive(tb, cd.Encoded()+".json", cfg, digest.FromString("id").Encoded()+"/layer.tar", tarBytes(tb, file("package.yaml", yaml)))
	renamed := dockerArchive(tb, cd.String(), cfg, digest.FromString("other").Encoded()+".tar.gz", layer)

	m := []byte(mustJSON(tb, ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    ocispec.Descriptor{MediaType: ocispec.MediaTypeImageConfig, Digest: cd, Size: int64(len(cfg))},
		Layers:    []ocispec.Descriptor{{MediaType: ocispec.MediaTypeImageLayerGzip, Digest: ld, Size: int64(len(layer)), Annotations: map[string]string{"io.crossplane.xpkg": "base"}}},
	}))
	md := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(m), Size: int64(len(m)), Annotations: map[string]string{ocispec.AnnotationRefName: "v1"}}
	blob := func(d digest.Digest, b []byte) entry { return file("blobs/sha256/"+d.Encoded(), string(b)) }
	layoutFile := file("oci-layout", `{"imageLayoutVersion":"1.0.0"}`)
	layout := tarBytes(tb, layoutFile,
		file("index.json", `{"schemaVersion":2,"manifests":[`+mustJSON(tb, md)+`]}`),
		blob(md.Digest, m), blob(cd, cfg), blob(ld, layer))
	empty := tarBytes(tb, layoutFile, file("index.json", `{"schemaVersion":2,"manifests":[]}`))

	return [][]byte{xpkg, crossplane, gzipBytes(tb, crossplane), docker, renamed, layout, gzipBytes(tb, layout), empty}
}

// TestSmallArchives checks the seeds of FuzzOpenArchive: each is small and
// reads as intended, so that the fuzzer starts from valid archives.
func TestSmallArchives(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	seeds := smallArchives(t)
	want := []error{nil, nil, nil, nil, oci.ErrDigestMismatch, nil, nil, oci.ErrEmptyIndex}
	if len(seeds) != len(want) {
		t.Fatalf("%d seeds, want %d", len(seeds), len(want))
	}
	for i, b := range seeds {
		if len(b) > 8<<10 {
			t.Errorf("seed %d: %d bytes, want a few KB", i, len(b))
		}
		s, err := oci.OpenReaderAt(ctx, bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Errorf("seed %d: open: %v", i, err)
			continue
		}
		img, err := oci.Resolve(ctx, s)
		if err == nil {
			var f *oci.File
			if f, err = oci.ReadFile(ctx, s, img.Manifest.Layers, "package.yaml"); err == nil {
				_, err = io.Copy(io.Discard, f)
				f.Close()
			}
		}
		if !errors.Is(err, want[i]) {
			t.Errorf("seed %d: reading package.yaml: %v, want %v", i, err, want[i])
		}
	}
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
		watchdog(t, len(layer), func(t *testing.T) {
			ctx := context.Background()
			s := oci.NewMemoryStore()
			d, err := s.PushBytes(ctx, "", layer)
			if err != nil {
				t.Fatal(err)
			}
			read := func(what string, file *oci.File, err error) {
				checkTyped(t, what, err)
				if err != nil {
					return
				}
				defer file.Close()
				n, err := io.Copy(io.Discard, file)
				checkTyped(t, what+": Read", err)
				if err == nil && (n != file.Header.Size || n > 1<<20) {
					t.Fatalf("%s: read %d bytes of a file of %d (MaxFileBytes 1 MiB)", what, n, file.Header.Size)
				}
			}
			file, err := oci.ReadLayerFile(ctx, s, d, "package.yaml", fuzzLimits())
			read("ReadLayerFile", file, err)
			var walked int64
			err = oci.WalkLayer(ctx, s, d, func(h *tar.Header, r io.Reader) error {
				n, err := io.Copy(io.Discard, r)
				walked += n
				return err
			}, fuzzLimits())
			checkTyped(t, "WalkLayer", err)
			if walked > 4<<20 {
				t.Fatalf("WalkLayer read %d bytes of entries, over MaxLayerBytes", walked)
			}
			// Stacked on itself, the layer exercises whiteouts across layers.
			file, err = oci.ReadFile(ctx, s, []ocispec.Descriptor{d, d}, "d/package.yaml", fuzzLimits())
			read("ReadFile", file, err)
		})
	})
}
