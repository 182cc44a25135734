package ociwrite

import (
	"archive/tar"
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// DockerManifestFile is the name of a docker archive's manifest entry.
const DockerManifestFile = "manifest.json"

// dockerManifestEntry is one image of a docker archive's manifest.json. The
// field order is the one docker and the Crossplane CLI write.
type dockerManifestEntry struct {
	Config   string
	RepoTags []string
	Layers   []string
}

// DockerManifestJSON returns the docker archive's manifest.json:
// [{"Config":"sha256:<hex>","RepoTags":[...] or null,"Layers":["<hex>.tar.gz",...]}].
func (b *Built) DockerManifestJSON() ([]byte, error) {
	e := dockerManifestEntry{Config: b.cfgBlob.desc.Digest.String(), RepoTags: b.RefNames()}
	for _, l := range b.layers {
		e.Layers = append(e.Layers, dockerLayerName(l))
	}
	out, err := json.Marshal([]dockerManifestEntry{e})
	if err != nil {
		return nil, fmt.Errorf("ociwrite: encoding manifest.json: %w", err)
	}
	return out, nil
}

func dockerLayerName(l blob) string { return l.desc.Digest.Encoded() + ".tar.gz" }

// WriteDockerArchive writes the image as a docker-archive tar, as the
// Crossplane CLI writes a `.xpkg` file: an uncompressed USTAR stream holding
// the config as "sha256:<hex>", each distinct layer as "<hex>.tar.gz" in
// manifest order, and manifest.json last. The format has no place for layer
// or manifest annotations; Image.LabelAnnotations keeps the ones that matter
// in the config.
func (b *Built) WriteDockerArchive(ctx context.Context, w io.Writer) error {
	tw := tar.NewWriter(ctxWriter{ctx: ctx, w: w})
	if err := writeTarEntry(tw, b.cfgBlob.desc.Digest.String(), b.cfgBlob.data); err != nil {
		return err
	}
	for _, bl := range b.blobs()[1:] {
		if err := writeTarEntry(tw, dockerLayerName(bl), bl.data); err != nil {
			return err
		}
	}
	man, err := b.DockerManifestJSON()
	if err != nil {
		return err
	}
	if err := writeTarEntry(tw, DockerManifestFile, man); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("ociwrite: %w", err)
	}
	return nil
}
