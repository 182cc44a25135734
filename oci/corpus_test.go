package oci_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"testing"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/oci"
)

// baseLayer returns the layer annotated io.crossplane.xpkg=base, or, in a
// docker archive, that the config label io.crossplane.xpkg:<digest> says is.
func baseLayer(t testing.TB, img *oci.Image) ocispec.Descriptor {
	t.Helper()
	var found []ocispec.Descriptor
	for _, l := range img.Manifest.Layers {
		if l.Annotations["io.crossplane.xpkg"] == "base" || img.Config.Config.Labels["io.crossplane.xpkg:"+l.Digest.String()] == "base" {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one base layer, got %d in %v", len(found), img.Manifest.Layers)
	}
	return found[0]
}

type corpusImage struct {
	src     *oci.Source
	img     *oci.Image
	base    ocispec.Descriptor
	content digest.Digest // of package.yaml
	meta    bool          // package.yaml mentions meta.pkg.crossplane.io
}

// digestFile streams a File to its digest, checking that it closes cleanly.
func digestFile(t testing.TB, f *oci.File) (digest.Digest, bool) {
	t.Helper()
	h := sha256.New()
	var head [4096]byte
	n, _ := io.ReadFull(f, head[:])
	h.Write(head[:n])
	if _, err := io.Copy(h, f); err != nil {
		t.Fatalf("read %s: %v", f.Header.Name, err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return digest.NewDigest(digest.SHA256, h), bytes.Contains(head[:n], []byte("meta.pkg.crossplane.io"))
}

func openCorpus(t *testing.T, path string, want oci.Format) corpusImage {
	t.Helper()
	ctx := context.Background()
	src, err := oci.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { src.Close() })
	if src.Format() != want {
		t.Errorf("Format() = %v, want %v", src.Format(), want)
	}
	img, err := oci.Resolve(ctx, src)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	base := baseLayer(t, img)
	f, err := oci.ReadLayerFile(ctx, src, base, "package.yaml")
	if err != nil {
		t.Fatalf("ReadLayerFile: %v", err)
	}
	d, meta := digestFile(t, f)
	return corpusImage{src: src, img: img, base: base, content: d, meta: meta}
}

// TestCorpus reads every corpus package as .xpkg and as .oci and checks both
// give the same base layer and package.yaml, by layer and flattened.
func TestCorpus(t *testing.T) {
	t.Parallel()
	for _, name := range testcorpus.Names() {
		t.Run(name, func(t *testing.T) {
			if name == monolith && (testing.Short() || raceEnabled) {
				t.Skip("monolith: skipped with -short and -race (the benchmarks read it)")
			}
			x := openCorpus(t, testcorpus.Path(t, name+".xpkg"), oci.FormatDockerArchive)
			o := openCorpus(t, testcorpus.Path(t, name+".oci"), oci.FormatLayoutDir)
			if x.base.Digest != o.base.Digest {
				t.Errorf("base layer digest: xpkg %s, oci %s", x.base.Digest, o.base.Digest)
			}
			if x.img.Manifest.Config.Digest != o.img.Manifest.Config.Digest {
				t.Errorf("config digest: xpkg %s, oci %s", x.img.Manifest.Config.Digest, o.img.Manifest.Config.Digest)
			}
			if x.content != o.content {
				t.Errorf("package.yaml differs: xpkg %s, oci %s", x.content, o.content)
			}
			if !x.meta {
				t.Errorf("package.yaml has no meta object in its first 4 KiB")
			}
			if name == monolith {
				return // the flattened read is the same code; keep the test short under -race
			}
			f, err := oci.ReadFile(context.Background(), o.src, o.img.Manifest.Layers, "./package.yaml")
			if err != nil {
				t.Fatalf("ReadFile flattened: %v", err)
			}
			if flat, _ := digestFile(t, f); flat != o.content {
				t.Errorf("flattened package.yaml differs from the base layer's")
			}
		})
	}
}
