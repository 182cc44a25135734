package ocitest

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"
	digest "github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
)

// Blob is a blob and its descriptor.
type Blob struct {
	Descriptor ocispec.Descriptor
	Data       []byte
}

// PackageYAML is the content of package.yaml in the image TestFetcher
// stores.
const PackageYAML = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: ocitest\n"

// TestFetcher stores a small image (an index, two platform manifests, their
// configs and gzip layers, one holding package.yaml) through newFetcher, which
// must return a Fetcher serving exactly those blobs, and checks that:
//   - every blob is fetched with its exact bytes, readers closing cleanly;
//   - a digest it does not hold fails with an error matching oci.ErrNotFound;
//   - fetches are independent and safe from many goroutines at once;
//   - a reader closed before its end does not disturb other readers;
//   - oci.ResolveDescriptor and oci.ReadFile read the image through it, with
//     every blob verified.
func TestFetcher(t *testing.T, newFetcher func(t *testing.T, blobs []Blob) oci.Fetcher) {
	t.Helper()
	blobs, root := Image()
	f := newFetcher(t, blobs)
	if f == nil {
		t.Fatal("ocitest: newFetcher returned nil")
	}
	ctx := context.Background()

	t.Run("Fetch", func(t *testing.T) {
		for _, b := range blobs {
			got, err := fetchAll(ctx, f, b.Descriptor)
			if err != nil {
				t.Errorf("Fetch(%s): %v", b.Descriptor.Digest, err)
				continue
			}
			if !bytes.Equal(got, b.Data) {
				t.Errorf("Fetch(%s) returned %d bytes that differ from the %d stored", b.Descriptor.Digest, len(got), len(b.Data))
			}
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		absent := []byte("ocitest: a blob that was never stored")
		d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayer, Digest: digest.FromBytes(absent), Size: int64(len(absent))}
		rc, err := f.Fetch(ctx, d)
		if err == nil {
			rc.Close()
			t.Fatalf("Fetch of an absent digest returned no error")
		}
		if !errors.Is(err, oci.ErrNotFound) {
			t.Errorf("Fetch of an absent digest: error %v does not match oci.ErrNotFound", err)
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		const workers = 8
		var wg sync.WaitGroup
		errs := make(chan error, workers*len(blobs))
		for w := range workers {
			wg.Go(func() {
				for i := range blobs {
					b := blobs[(i+w)%len(blobs)]
					got, err := fetchAll(ctx, f, b.Descriptor)
					if err != nil {
						errs <- err
						continue
					}
					if !bytes.Equal(got, b.Data) {
						errs <- fmt.Errorf("concurrent Fetch(%s) returned wrong bytes", b.Descriptor.Digest)
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})

	t.Run("Interleaved", func(t *testing.T) {
		var big Blob
		for _, b := range blobs {
			if len(b.Data) > len(big.Data) {
				big = b
			}
		}
		r1, err := f.Fetch(ctx, big.Descriptor)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := f.Fetch(ctx, big.Descriptor)
		if err != nil {
			r1.Close()
			t.Fatal(err)
		}
		half := make([]byte, len(big.Data)/2)
		if _, err := io.ReadFull(r1, half); err != nil {
			t.Errorf("partial read: %v", err)
		}
		r1.Close()
		got, err := io.ReadAll(r2)
		r2.Close()
		if err != nil || !bytes.Equal(got, big.Data) {
			t.Errorf("a second reader was disturbed by the first one's close: %v", err)
		}
	})

	t.Run("ReadImage", func(t *testing.T) {
		for _, p := range []string{"linux/amd64", "linux/arm64"} {
			pl, _ := oci.ParsePlatform(p)
			img, err := oci.ResolveDescriptor(ctx, f, root, oci.WithPlatform(pl))
			if err != nil {
				t.Fatalf("ResolveDescriptor(%s): %v", p, err)
			}
			if img.Platform == nil || oci.PlatformString(*img.Platform) != p {
				t.Errorf("resolved platform %v, want %s", img.Platform, p)
			}
			file, err := oci.ReadFile(ctx, f, img.Manifest.Layers, "package.yaml")
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			got, err := io.ReadAll(file)
			file.Close()
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			if string(got) != PackageYAML+p {
				t.Errorf("package.yaml = %q, want %q", got, PackageYAML+p)
			}
		}
	})
}

func fetchAll(ctx context.Context, f oci.Fetcher, d ocispec.Descriptor) ([]byte, error) {
	rc, err := f.Fetch(ctx, d)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(rc)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	return b, err
}

// Image returns the blobs of a small two-platform image (linux/amd64 and
// linux/arm64, each with a base layer holding package.yaml = PackageYAML
// followed by the platform, and a larger second layer) and the descriptor of
// its index. Each call returns fresh values.
func Image() (blobs []Blob, index ocispec.Descriptor) {
	add := func(mt string, data []byte) ocispec.Descriptor {
		d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(data), Size: int64(len(data))}
		blobs = append(blobs, Blob{Descriptor: d, Data: data})
		return d
	}
	addJSON := func(mt string, v any) ocispec.Descriptor {
		b, _ := json.Marshal(v) // plain structs: cannot fail
		return add(mt, b)
	}
	var manifests []ocispec.Descriptor
	for _, p := range []string{"linux/amd64", "linux/arm64"} {
		pl, _ := oci.ParsePlatform(p)
		base := add(ocispec.MediaTypeImageLayerGzip, gzipTar("package.yaml", PackageYAML+p))
		// An upper layer big enough to be read in several chunks.
		extra := add(ocispec.MediaTypeImageLayerGzip, gzipTar("data/"+pl.Architecture, string(bytes.Repeat([]byte(p), 40000))))
		cfg := addJSON(ocispec.MediaTypeImageConfig, ocispec.Image{Platform: pl, RootFS: ocispec.RootFS{Type: "layers"}})
		m := addJSON(ocispec.MediaTypeImageManifest, ocispec.Manifest{
			Versioned: specs.Versioned{SchemaVersion: 2},
			MediaType: ocispec.MediaTypeImageManifest,
			Config:    cfg,
			Layers:    []ocispec.Descriptor{base, extra},
		})
		m.Platform = &pl
		manifests = append(manifests, m)
	}
	index = addJSON(ocispec.MediaTypeImageIndex, ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex,
		Manifests: manifests,
	})
	return blobs, index
}

// gzipTar returns a gzip-compressed tar of one file. Writing to memory cannot
// fail.
func gzipTar(name, body string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	_ = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
	_, _ = io.WriteString(tw, body)
	_ = tw.Close()
	_ = zw.Close()
	return buf.Bytes()
}
