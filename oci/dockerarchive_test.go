package oci_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	digest "github.com/opencontainers/go-digest"

	"github.com/xpkgkit/xpkgkit/oci"
)

// dockerArchive writes a docker archive of one image: a config entry and
// one layer entry, under the names given.
func dockerArchive(t testing.TB, cfgName string, cfg []byte, layerName string, layer []byte) []byte {
	t.Helper()
	manifest := mustJSON(t, []map[string]any{{"Config": cfgName, "RepoTags": []string{"example.com/p:v1"}, "Layers": []string{layerName}}})
	return tarBytes(t, file(cfgName, string(cfg)), file(layerName, string(layer)), file("manifest.json", manifest))
}

// TestDockerArchiveNamedDigests checks that entries named after a digest
// their content does not have fail with ErrDigestMismatch when read, naming
// the entry, and that other names are not checked.
func TestDockerArchiveNamedDigests(t *testing.T) {
	t.Parallel()
	const yaml = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\n"
	gz := gzipBytes(t, tarBytes(t, file("package.yaml", yaml)))
	raw := tarBytes(t, file("package.yaml", yaml))
	gzHex, rawHex := digest.FromBytes(gz).Encoded(), digest.FromBytes(raw).Encoded()
	cfg := []byte(`{"config":{"Labels":{"io.crossplane.xpkg:sha256:` + gzHex + `":"base"}},"rootfs":{"type":"layers"}}`)
	cfgHex := digest.FromBytes(cfg).Encoded()
	other := digest.FromString("something else").Encoded()

	cases := []struct {
		name             string
		cfgName, layName string
		layer            []byte
		badPath          string // the entry reported; empty: the archive reads
		claimed          string // the digest its name claims, when not other
		atResolve        bool   // the mismatch shows when the config is read
	}{
		{name: "crossplane names", cfgName: "sha256:" + cfgHex, layName: gzHex + ".tar.gz", layer: gz},
		{name: "docker names", cfgName: cfgHex + ".json", layName: other + "/layer.tar", layer: raw},
		{name: "oci blob names", cfgName: "blobs/sha256/" + cfgHex, layName: "blobs/sha256/" + rawHex, layer: raw},
		{name: "names without digests", cfgName: "config.json", layName: "layer.tar.gz", layer: gz},
		{name: "uppercase hex is no digest", cfgName: "config.json", layName: "A" + gzHex[1:] + ".tar.gz", layer: gz},
		{name: "layer renamed tar.gz", cfgName: "sha256:" + cfgHex, layName: other + ".tar.gz", layer: gz, badPath: other + ".tar.gz"},
		{name: "layer renamed tar", cfgName: "sha256:" + cfgHex, layName: other + ".tar", layer: raw, badPath: other + ".tar"},
		{name: "layer renamed blob", cfgName: "sha256:" + cfgHex, layName: "blobs/sha256/" + other, layer: raw, badPath: "blobs/sha256/" + other},
		{name: "gzip layer under the plain digest", cfgName: "sha256:" + cfgHex, layName: rawHex + ".tar", layer: gz, badPath: rawHex + ".tar", claimed: rawHex},
		{name: "config renamed", cfgName: "sha256:" + other, layName: gzHex + ".tar.gz", layer: gz, badPath: "sha256:" + other, atResolve: true},
		{name: "config renamed json", cfgName: other + ".json", layName: gzHex + ".tar.gz", layer: gz, badPath: other + ".json", atResolve: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b := dockerArchive(t, tc.cfgName, cfg, tc.layName, tc.layer)
			src, err := oci.OpenReaderAt(ctx, bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatalf("open: %v", err) // a mismatch shows only when the blob is read
			}
			img, err := oci.Resolve(ctx, src)
			if err == nil {
				var f *oci.File
				if f, err = oci.ReadFile(ctx, src, img.Manifest.Layers, "package.yaml"); err == nil {
					var got []byte
					if got, err = io.ReadAll(f); err == nil && string(got) != yaml {
						t.Errorf("package.yaml = %q, want %q", got, yaml)
					}
					f.Close()
				}
			} else if !tc.atResolve {
				t.Fatalf("resolve: %v", err)
			}
			if tc.badPath == "" {
				wantErr(t, err, nil)
				return
			}
			wantErr(t, err, oci.ErrDigestMismatch)
			claimed := tc.claimed
			if claimed == "" {
				claimed = other
			}
			var e *oci.Error
			if !errors.As(err, &e) || e.Op != "verify" || e.Path != tc.badPath || e.Descriptor.Digest.Encoded() != claimed {
				t.Errorf("error %v: want an *oci.Error verifying the entry %q under the digest of its name", err, tc.badPath)
			}
		})
	}
}
