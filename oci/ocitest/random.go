package ocitest

import (
	"archive/tar"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/klauspost/compress/gzip"
	digest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
)

// randomFile returns the name of the one file that layer i of a random image
// holds.
func randomFile(i int) string { return fmt.Sprintf("random/%d", i) }

// randomPlatforms are the platforms of RandomIndex's images, in turn.
var randomPlatforms = [...]string{"linux/amd64", "linux/arm64", "linux/arm/v7", "linux/ppc64le", "linux/s390x", "linux/riscv64"}

// RandomImage returns the blobs of a linux/amd64 OCI image whose layers
// each hold one file, "random/<i>" for layer i (from 0), of size random
// bytes, as a gzip tar; its config, whose diff IDs are right; and the
// descriptor of its manifest, the last blob. The bytes depend on seed,
// layers and size only: the same arguments give the same digests on every
// run and machine. A negative layers or size counts as 0. Like
// go-containerregistry's random.Image, for property tests; everything is
// held in memory.
func RandomImage(seed uint64, layers int, size int64) (blobs []Blob, manifest ocispec.Descriptor) {
	return randomImage(rand.New(rand.NewPCG(seed, 0)), "linux/amd64", layers, size)
}

// RandomIndex returns the blobs of an OCI index of images random images,
// each made as RandomImage makes one (layers layers of size bytes) from the
// same seed in turn, for the platforms linux/amd64, linux/arm64,
// linux/arm/v7, linux/ppc64le, linux/s390x and linux/riscv64 in that order
// and again; and the descriptor of the index, the last blob. A negative
// count counts as 0.
func RandomIndex(seed uint64, images, layers int, size int64) (blobs []Blob, index ocispec.Descriptor) {
	r := rand.New(rand.NewPCG(seed, 0))
	var manifests []ocispec.Descriptor
	for i := range max(images, 0) {
		b, m := randomImage(r, randomPlatforms[i%len(randomPlatforms)], layers, size)
		blobs = append(blobs, b...)
		manifests = append(manifests, m)
	}
	index = addJSONBlob(&blobs, ocispec.MediaTypeImageIndex, ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex,
		Manifests: manifests,
	})
	return blobs, index
}

func randomImage(r *rand.Rand, platform string, layers int, size int64) (blobs []Blob, manifest ocispec.Descriptor) {
	pl, _ := oci.ParsePlatform(platform) // one of randomPlatforms: cannot fail
	var descs []ocispec.Descriptor
	var diffIDs []digest.Digest
	for i := range max(layers, 0) {
		content := make([]byte, max(size, 0)+7)
		for j := 0; j+8 <= len(content); j += 8 {
			binary.LittleEndian.PutUint64(content[j:], r.Uint64())
		}
		content = content[:max(size, 0)]
		tarData := tarOf(randomFile(i), content)
		diffIDs = append(diffIDs, digest.FromBytes(tarData))
		descs = append(descs, addBlob(&blobs, ocispec.MediaTypeImageLayerGzip, gzipOf(tarData)))
	}
	cfg := addJSONBlob(&blobs, ocispec.MediaTypeImageConfig, ocispec.Image{
		Platform: pl,
		RootFS:   ocispec.RootFS{Type: "layers", DiffIDs: diffIDs},
	})
	manifest = addJSONBlob(&blobs, ocispec.MediaTypeImageManifest, ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    cfg,
		Layers:    descs,
	})
	manifest.Platform = &pl
	return blobs, manifest
}

func addBlob(blobs *[]Blob, mediaType string, data []byte) ocispec.Descriptor {
	d := ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(data), Size: int64(len(data))}
	*blobs = append(*blobs, Blob{Descriptor: d, Data: data})
	return d
}

func addJSONBlob(blobs *[]Blob, mediaType string, v any) ocispec.Descriptor {
	b, _ := json.Marshal(v) // plain structs: cannot fail
	return addBlob(blobs, mediaType, b)
}

// tarOf returns an uncompressed tar of one file, with fixed header fields.
// Writing to memory cannot fail.
func tarOf(name string, body []byte) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	_ = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
	_, _ = tw.Write(body)
	_ = tw.Close()
	return buf.Bytes()
}

// gzipOf compresses b with a fixed header (no name, zero time).
func gzipOf(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}
