package verdictcache

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	digest "github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// testRepo starts docker-registry on loopback (skipping when it is not
// installed) and returns a repository of it.
func testRepo(t *testing.T) *remote.Repository {
	t.Helper()
	reg := registrytest.Start(t, registrytest.Plain)
	c, err := remote.New(remote.WithAnonymous(), remote.WithPlainHTTP(true))
	if err != nil {
		t.Fatal(err)
	}
	repo, err := c.Repository(reg.Host + "/xpkgkit/verdicts")
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func pushManifest(t *testing.T, repo *remote.Repository, m ocispec.Manifest, tag string) {
	t.Helper()
	ctx := context.Background()
	raw, _ := json.Marshal(m)
	desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(raw), Size: int64(len(raw))}
	if err := repo.Push(ctx, desc, bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag(ctx, desc, tag); err != nil {
		t.Fatal(err)
	}
}

// TestRegistry stores and reads entries in docker-registry, and requires
// a tag that names something else than an entry to be a miss.
func TestRegistry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := testRepo(t)
	r := NewRegistry(repo)
	if _, ok := r.Get(ctx, key(1)); ok {
		t.Fatal("a hit in an empty repository")
	}
	for i, v := range [][]byte{[]byte("one"), []byte("two"), bytes.Repeat([]byte{'x'}, 100<<10)} {
		if err := r.Put(ctx, key(i), v); err != nil {
			t.Fatal(err)
		}
		if got, ok := r.Get(ctx, key(i)); !ok || !bytes.Equal(got, v) {
			t.Errorf("entry %d: %d bytes (hit %v); want %d", i, len(got), ok, len(v))
		}
	}
	// The same value under two keys is one blob; a second Put of a key
	// moves its tag.
	if err := r.Put(ctx, key(5), []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := r.Put(ctx, key(0), []byte("zero")); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Get(ctx, key(0)); string(got) != "zero" {
		t.Errorf("moved tag: %q", got)
	}
	if err := r.Put(ctx, "../x", []byte("v")); err == nil {
		t.Error("an invalid key was stored")
	}

	// Tags that lie: another artifact type, two layers, a layer of another
	// type, a layer larger than an entry, a layer whose digest is not
	// its content's, an image index.
	value := []byte("entry")
	layer := ocispec.Descriptor{MediaType: mediaTypeEntry, Digest: digest.FromBytes(value), Size: int64(len(value))}
	if err := repo.Push(ctx, layer, bytes.NewReader(value)); err != nil {
		t.Fatal(err)
	}
	if err := repo.Push(ctx, ocispec.DescriptorEmptyJSON, bytes.NewReader(emptyConfig)); err != nil {
		t.Fatal(err)
	}
	big := ocispec.Descriptor{MediaType: mediaTypeEntry, Digest: layer.Digest, Size: maxEntrySize + 1}
	wrongSize := ocispec.Descriptor{MediaType: mediaTypeEntry, Digest: layer.Digest, Size: layer.Size - 1}
	manifest := func(artifact string, layers ...ocispec.Descriptor) ocispec.Manifest {
		return ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest, ArtifactType: artifact, Config: ocispec.DescriptorEmptyJSON, Layers: layers}
	}
	lies := map[string]ocispec.Manifest{
		"another-artifact-type": manifest("application/vnd.example", layer),
		"two-layers":            manifest(ArtifactType, layer, layer),
		"no-layer":              manifest(ArtifactType),
		"a-layer-too-large":     manifest(ArtifactType, big),
		"a-layer-of-wrong-size": manifest(ArtifactType, wrongSize),
		"a-layer-of-another-type": manifest(ArtifactType, ocispec.Descriptor{
			MediaType: "application/octet-stream", Digest: layer.Digest, Size: layer.Size}),
	}
	for tag, m := range lies {
		pushManifest(t, repo, m, tag)
		if b, ok := r.Get(ctx, tag); ok {
			t.Errorf("%s: a hit of %q", tag, b)
		}
	}
	pushManifest(t, repo, manifest(ArtifactType, layer), "control")
	if b, ok := r.Get(ctx, "control"); !ok || string(b) != "entry" {
		t.Errorf("control: %q (hit %v)", b, ok)
	}
}
