package hostile

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

const (
	nestedIndexDepth = 100
	hugeManifestN    = 1 << 20 // layer descriptors in manifest-huge
	manyLayersN      = 20_000  // layer descriptors in manifest-many-layers
	hugeJSONSize     = 8 << 20 // bytes of padding in the oversized JSON cases
)

// validLayers is the one-layer image every metadata case starts from.
func validLayers() []layerSpec {
	return []layerSpec{baseLayer(tarOf(file("package.yaml", []byte(validPackage))))}
}

// rawTarLayers is validLayers with an uncompressed layer, so cases can
// change its bytes without breaking a compressed stream.
func rawTarLayers() []layerSpec {
	return []layerSpec{{
		mediaType:  ocispec.MediaTypeImageLayer,
		annotation: baseValue,
		tar:        tarOf(file("package.yaml", []byte(validPackage))),
	}}
}

// metadataCases attack index.json, manifests, configs, descriptors and a
// docker archive's manifest.json.
func metadataCases() []Case {
	return []Case{
		{
			Name: "index-self-reference",
			Description: "index.json points to an index blob that lists itself. A blob cannot contain its own " +
				"digest, so the file stored under that digest does not hash to it: a reader verifies before it " +
				"follows and reports a digest mismatch; a reader that does not verify must still stop at its " +
				"visited set or depth limit.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassDigestMismatch),
			Alternatives: []Outcome{limit(LimitIndexDepth), class(ClassMalformed)},
			Size:         1_000,
			Seed:         true,
			Write:        ociCase("index-self-reference", KindOCILayoutDir, writeSelfReference),
		},
		{
			Name:        "index-nested-deep",
			Description: "index.json → index → … → manifest, 100 indexes deep, every digest valid. The index-depth limit must stop the descent.",
			Kind:        KindOCILayoutDir,
			Expect:      limit(LimitIndexDepth),
			Size:        35_000,
			Seed:        true,
			Write:       ociCase("index-nested-deep", KindOCILayoutDir, writeNestedIndex),
		},
		{
			Name:        "index-json-huge",
			Description: "index.json is valid but 8 MiB (an annotation padded with 'x'). index.json is metadata like a manifest: the manifest-size limit applies before it is parsed.",
			Kind:        KindOCILayoutDir,
			Expect:      limit(LimitManifestSize),
			Size:        8_400_000,
			Write: ociImageCase("index-json-huge", KindOCILayoutDir, validLayers, ociHooks{
				after: func(l *layout, _ *image, mb blob) error {
					// Built by hand: marshalling 8 MiB is slow under the race detector.
					x, err := json.Marshal(indexOf(descriptor(ocispec.MediaTypeImageManifest, mb)))
					if err != nil {
						return err
					}
					return writeFile(l.ctx, filepath.Join(l.root, "index.json"), repeated(
						string(x[:len(x)-1])+`,"annotations":{"pad":"`, "x", hugeJSONSize, `"}}`))
				},
			}),
		},
		{
			Name: "manifest-huge",
			Description: "The manifest lists 1,048,576 layer descriptors (about 150 MiB of JSON, digest and " +
				"size correct in index.json). The manifest-size limit must refuse it from the descriptor's " +
				"size, or while reading, never after buffering it.",
			Kind:   KindOCILayoutDir,
			Expect: limit(LimitManifestSize),
			Size:   157_000_000,
			Heavy:  true,
			Write:  ociCase("manifest-huge", KindOCILayoutDir, writeHugeManifest),
		},
		{
			Name:         "manifest-size-claim-huge",
			Description:  "index.json's descriptor says the (normal) manifest is 2^62 bytes. A reader must not allocate by a claimed size: it refuses the size against its limit, or reads and reports the mismatch.",
			Kind:         KindOCILayoutDir,
			Expect:       limit(LimitManifestSize),
			Alternatives: []Outcome{class(ClassSizeMismatch)},
			Size:         3_000,
			Seed:         true,
			Write: ociImageCase("manifest-size-claim-huge", KindOCILayoutDir, validLayers, ociHooks{
				index: func(x *ocispec.Index, _ blob) { x.Manifests[0].Size = 1 << 62 },
			}),
		},
		{
			Name: "manifest-many-layers",
			Description: "A 2.6 MiB manifest (under a 4 MiB manifest limit) lists 20,000 layers, all the same " +
				"empty tar, with no base annotation and no package.yaml anywhere. Flattening must stay fast " +
				"and small, and end in not-found (or a layer-count limit).",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassNotFound),
			Alternatives: []Outcome{limit(LimitLayerCount)},
			Size:         5_200_000,
			Write:        ociCase("manifest-many-layers", KindOCILayoutDir, writeManyLayers),
		},
		{
			Name:         "index-empty",
			Description:  "index.json lists no manifests. An index with zero manifests is an error.",
			Kind:         KindOCILayoutTar,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{class(ClassNotFound)},
			Size:         6_000,
			Seed:         true,
			Write: ociImageCase("index-empty", KindOCILayoutTar, validLayers, ociHooks{
				index: func(x *ocispec.Index, _ blob) { x.Manifests = []ocispec.Descriptor{} },
			}),
		},
		{
			Name:        "index-json-truncated",
			Description: "index.json is cut in half: invalid JSON.",
			Kind:        KindOCILayoutDir,
			Expect:      class(ClassMalformed),
			Size:        2_000,
			Seed:        true,
			Write: ociImageCase("index-json-truncated", KindOCILayoutDir, validLayers, ociHooks{
				after: func(l *layout, _ *image, _ blob) error {
					return truncateFile(filepath.Join(l.root, "index.json"), 0.5)
				},
			}),
		},
		{
			Name:        "index-json-deep-nesting",
			Description: "index.json is valid OCI plus an unknown field nested 20,000 arrays deep. encoding/json stops at depth 10,000; a hand-written walker must not recurse that far.",
			Kind:        KindOCILayoutDir,
			Expect:      class(ClassMalformed),
			Size:        42_000,
			Seed:        true,
			Write: ociImageCase("index-json-deep-nesting", KindOCILayoutDir, validLayers, ociHooks{
				after: func(l *layout, _ *image, mb blob) error {
					d, err := json.Marshal(descriptor(ocispec.MediaTypeImageManifest, mb))
					if err != nil {
						return err
					}
					raw := `{"schemaVersion":2,"mediaType":"` + ocispec.MediaTypeImageIndex + `","manifests":[` + string(d) +
						`],"x":` + strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000) + `}`
					return l.file("index.json", []byte(raw))
				},
			}),
		},
		{
			Name:        "manifest-not-json",
			Description: "index.json's manifest descriptor (manifest media type, correct digest and size) points at the gzip layer blob. The bytes verify but are not a manifest.",
			Kind:        KindOCILayoutDir,
			Expect:      class(ClassMalformed),
			Size:        2_000,
			Seed:        true,
			Write: ociImageCase("manifest-not-json", KindOCILayoutDir, validLayers, ociHooks{
				after: func(l *layout, im *image, _ blob) error {
					return l.json("index.json", indexOf(descriptor(ocispec.MediaTypeImageManifest, im.layers[0])))
				},
			}),
		},
		{
			Name: "two-base-layers",
			Description: "Two layers carry io.crossplane.xpkg: base (a Configuration and a Provider). At most one may: two is an error, not a silent pick. " +
				"A reader may refuse the image, or read package.yaml from the first base layer and report the second as an error diagnostic (XP501): both say so. " +
				"From Crossplane v2.2 the first base layer wins and the others are ignored (crossplane commit 99aae5796): XP501 warns, exit 0.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{rule(ClassLintError, "XP501")},
			Later:        secondBaseIgnored,
			Size:         3_000,
			Seed:         true,
			Write:        ociImageCase("two-base-layers", KindOCILayoutDir, twoBaseLayers, ociHooks{}),
		},
		{
			Name:         "xpkg-two-base-labels",
			Description:  "A .xpkg whose config labels two layers as base. An error (or an XP501 error diagnostic), as for two-base-layers; from v2.2 an XP501 warning.",
			Kind:         KindXpkg,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{rule(ClassLintError, "XP501")},
			Later:        secondBaseIgnored,
			Size:         5_000,
			Seed:         true,
			Write:        xpkgCase("xpkg-two-base-labels", twoBaseLayers, xpkgHooks{}),
		},
		{
			Name:         "xpkg-manifest-json-empty",
			Description:  "A .xpkg whose manifest.json is '[]': no image.",
			Kind:         KindXpkg,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{class(ClassNotFound)},
			Size:         4_000,
			Seed:         true,
			Write: xpkgCase("xpkg-manifest-json-empty", validLayers, xpkgHooks{entries: func(es []archiveEntry, _ *layout, _ *image) ([]archiveEntry, error) {
				es[len(es)-1].data = []byte("[]")
				return es, nil
			}}),
		},
		{
			Name:         "xpkg-manifest-json-missing",
			Description:  "A .xpkg with config and layer entries but no manifest.json.",
			Kind:         KindXpkg,
			Expect:       class(ClassNotFound),
			Alternatives: []Outcome{class(ClassMalformed)},
			Size:         3_000,
			Seed:         true,
			Write: xpkgCase("xpkg-manifest-json-missing", validLayers, xpkgHooks{entries: func(es []archiveEntry, _ *layout, _ *image) ([]archiveEntry, error) {
				return es[:len(es)-1], nil
			}}),
		},
		{
			Name:         "xpkg-layer-path-traversal",
			Description:  "manifest.json names the layer '../../../../../../etc/passwd'. Names in manifest.json are looked up among the archive's entries, never on the file system.",
			Kind:         KindXpkg,
			Expect:       class(ClassNotFound),
			Alternatives: []Outcome{class(ClassBadPath), class(ClassMalformed)},
			Size:         4_000,
			Seed:         true,
			Write:        xpkgCase("xpkg-layer-path-traversal", validLayers, editDockerManifest(func(m *dockerManifest) { m.Layers[0] = "../../../../../../etc/passwd" })),
		},
		{
			Name:         "xpkg-config-absolute-path",
			Description:  "manifest.json names the config '/etc/passwd'. Not an entry of the archive.",
			Kind:         KindXpkg,
			Expect:       class(ClassNotFound),
			Alternatives: []Outcome{class(ClassBadPath), class(ClassMalformed)},
			Size:         4_000,
			Seed:         true,
			Write:        xpkgCase("xpkg-config-absolute-path", validLayers, editDockerManifest(func(m *dockerManifest) { m.Config = "/etc/passwd" })),
		},
		{
			Name:        "xpkg-manifest-json-huge",
			Description: "A .xpkg whose manifest.json is 8 MiB (about 170,000 RepoTags). The manifest-size limit applies to it.",
			Kind:        KindXpkg,
			Expect:      limit(LimitManifestSize),
			Size:        8_400_000,
			Write: xpkgCase("xpkg-manifest-json-huge", validLayers, xpkgHooks{entries: func(es []archiveEntry, _ *layout, im *image) ([]archiveEntry, error) {
				// Built by hand: marshalling 8 MiB is slow under the race detector.
				var b bytes.Buffer
				b.WriteString(`[{"Config":"` + im.config.Digest + `","RepoTags":[`)
				for i := 0; b.Len() < hugeJSONSize; i++ {
					if i > 0 {
						b.WriteByte(',')
					}
					b.WriteString(`"registry.example.com/hostile/fixture:v0.0.`)
					b.Write(strconv.AppendInt(nil, int64(i), 10))
					b.WriteByte('"')
				}
				b.WriteString(`],"Layers":["` + im.layers[0].Hex + `.tar.gz"]}]`)
				es[len(es)-1].data = b.Bytes()
				return es, nil
			}}),
		},
		{
			Name:         "digest-md5",
			Description:  "index.json's manifest descriptor has digest 'md5:d41d8cd98f00b204e9800998ecf8427e'. Only sha256 (and sha512) are accepted; an unknown algorithm is malformed metadata.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{class(ClassNotFound)},
			Size:         2_000,
			Seed:         true,
			Write: ociImageCase("digest-md5", KindOCILayoutDir, validLayers, ociHooks{
				index: func(x *ocispec.Index, _ blob) { x.Manifests[0].Digest = "md5:d41d8cd98f00b204e9800998ecf8427e" },
			}),
		},
		{
			Name:         "digest-wrong-length",
			Description:  "The manifest's config descriptor has a sha256 digest of 12 hex digits.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{class(ClassNotFound)},
			Size:         2_000,
			Seed:         true,
			Write: ociImageCase("digest-wrong-length", KindOCILayoutDir, validLayers, ociHooks{
				manifest: func(m *ocispec.Manifest, im *image) { m.Config.Digest = digest.Digest("sha256:" + im.config.Hex[:12]) },
			}),
		},
		{
			Name:         "digest-uppercase",
			Description:  "The base layer's descriptor spells its (correct) sha256 in upper-case hex. The digest grammar allows only lower-case: malformed (the blob is stored under the lower-case name).",
			Kind:         KindOCILayoutTar,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{class(ClassNotFound)},
			Size:         8_000,
			Seed:         true,
			Write: ociImageCase("digest-uppercase", KindOCILayoutTar, validLayers, ociHooks{
				manifest: func(m *ocispec.Manifest, im *image) {
					m.Layers[0].Digest = digest.Digest("sha256:" + strings.ToUpper(im.layers[0].Hex))
				},
			}),
		},
		{
			Name:         "digest-path-traversal",
			Description:  "index.json's manifest digest is 'sha256:../../../../../../../../etc/passwd'. A reader that joins the encoded part to a path reads the host's files; the digest must be validated first.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{class(ClassBadPath), class(ClassNotFound)},
			Size:         2_000,
			Seed:         true,
			Write: ociImageCase("digest-path-traversal", KindOCILayoutDir, validLayers, ociHooks{
				index: func(x *ocispec.Index, _ blob) { x.Manifests[0].Digest = "sha256:../../../../../../../../etc/passwd" },
			}),
		},
		{
			Name:         "negative-size-manifest",
			Description:  "index.json's manifest descriptor has size -1.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{class(ClassSizeMismatch)},
			Size:         2_000,
			Seed:         true,
			Write: ociImageCase("negative-size-manifest", KindOCILayoutDir, validLayers, ociHooks{
				index: func(x *ocispec.Index, _ blob) { x.Manifests[0].Size = -1 },
			}),
		},
		{
			Name:         "negative-size-layer",
			Description:  "The base layer's descriptor has size -1.",
			Kind:         KindOCILayoutTar,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{class(ClassSizeMismatch)},
			Size:         8_000,
			Seed:         true,
			Write: ociImageCase("negative-size-layer", KindOCILayoutTar, validLayers, ociHooks{
				manifest: func(m *ocispec.Manifest, _ *image) { m.Layers[0].Size = -1 },
			}),
		},
	}
}

// blobCases attack blob integrity: missing, changed, truncated or
// lengthened blobs.
func blobCases() []Case {
	return []Case{
		{
			Name:        "missing-manifest",
			Description: "The manifest blob index.json points to is absent.",
			Kind:        KindOCILayoutTar,
			Expect:      class(ClassNotFound),
			Size:        6_000,
			Seed:        true,
			Write: ociImageCase("missing-manifest", KindOCILayoutTar, validLayers, ociHooks{
				after: func(l *layout, _ *image, mb blob) error { return removeBlob(l, mb.Hex) },
			}),
		},
		{
			Name:        "missing-layer",
			Description: "The base layer blob is absent.",
			Kind:        KindOCILayoutDir,
			Expect:      class(ClassNotFound),
			Size:        1_000,
			Seed:        true,
			Write: ociImageCase("missing-layer", KindOCILayoutDir, validLayers, ociHooks{
				after: func(l *layout, im *image, _ blob) error { return removeBlob(l, im.layers[0].Hex) },
			}),
		},
		{
			Name:        "missing-config",
			Description: "The config blob the manifest names is absent. An image with a missing blob is broken, even if the layer annotations make the config unnecessary for finding package.yaml.",
			Kind:        KindOCILayoutDir,
			Expect:      class(ClassNotFound),
			Size:        1_000,
			Seed:        true,
			Write: ociImageCase("missing-config", KindOCILayoutDir, validLayers, ociHooks{
				after: func(l *layout, im *image, _ blob) error { return removeBlob(l, im.config.Hex) },
			}),
		},
		{
			Name:        "xpkg-missing-config",
			Description: "A .xpkg whose manifest.json names a config entry the archive does not hold. The config carries the base-layer labels: it is required.",
			Kind:        KindXpkg,
			Expect:      class(ClassNotFound),
			Size:        3_000,
			Seed:        true,
			Write:       xpkgCase("xpkg-missing-config", validLayers, dropEntry(0)),
		},
		{
			Name:        "xpkg-missing-layer",
			Description: "A .xpkg whose manifest.json names a layer entry the archive does not hold.",
			Kind:        KindXpkg,
			Expect:      class(ClassNotFound),
			Size:        3_000,
			Seed:        true,
			Write:       xpkgCase("xpkg-missing-layer", validLayers, dropEntry(1)),
		},
		{
			Name:        "layer-flipped-byte",
			Description: "One byte of the uncompressed base layer's padding (after package.yaml's content) is flipped: the tar and the YAML still read, only the digest catches it.",
			Kind:        KindOCILayoutDir,
			Expect:      class(ClassDigestMismatch),
			Size:        3_000,
			Seed:        true,
			Write: ociImageCase("layer-flipped-byte", KindOCILayoutDir, rawTarLayers, ociHooks{
				after: func(l *layout, im *image, _ blob) error {
					return flipByte(l.path(im.layers[0].Hex), blockSize+int64(len(validPackage)))
				},
			}),
		},
		{
			Name:         "xpkg-layer-flipped-byte",
			Description:  "One byte in the middle of a .xpkg's gzip layer is flipped; the entry name still claims the original digest. The digest must be verified (the gzip stream may break first).",
			Kind:         KindXpkg,
			Expect:       class(ClassDigestMismatch),
			Alternatives: []Outcome{class(ClassMalformed)},
			Size:         4_000,
			Seed:         true,
			Write: xpkgCase("xpkg-layer-flipped-byte", validLayers, xpkgHooks{entries: func(es []archiveEntry, l *layout, im *image) ([]archiveEntry, error) {
				return es, flipByte(l.path(im.layers[0].Hex), im.layers[0].Size/2)
			}}),
		},
		{
			Name:         "xpkg-config-flipped-byte",
			Description:  "One byte inside a JSON string of a .xpkg's config is flipped: the JSON still parses; only the digest in the entry name catches it.",
			Kind:         KindXpkg,
			Expect:       class(ClassDigestMismatch),
			Alternatives: []Outcome{class(ClassMalformed)},
			Size:         4_000,
			Seed:         true,
			Write: xpkgCase("xpkg-config-flipped-byte", validLayers, xpkgHooks{entries: func(es []archiveEntry, l *layout, im *image) ([]archiveEntry, error) {
				return es, flipAt(l.path(im.config.Hex), `"created":"0`, len(`"created":"`))
			}}),
		},
		{
			Name:         "manifest-flipped-byte",
			Description:  "One byte inside a JSON string of the manifest blob is flipped. The manifest must be verified before it is trusted.",
			Kind:         KindOCILayoutTar,
			Expect:       class(ClassDigestMismatch),
			Alternatives: []Outcome{class(ClassMalformed)},
			Size:         8_000,
			Seed:         true,
			Write: ociImageCase("manifest-flipped-byte", KindOCILayoutTar, validLayers, ociHooks{
				after: func(l *layout, _ *image, mb blob) error {
					return flipAt(l.path(mb.Hex), `"mediaType":"application/vnd.oci.image.manifest`, len(`"mediaType":"application/vnd.oci.`))
				},
			}),
		},
		{
			Name:         "layer-truncated",
			Description:  "The uncompressed base layer lost its last 1024 bytes (the end-of-archive marker): tar readers take the clean EOF as the end, so only the size check catches it.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassSizeMismatch),
			Alternatives: []Outcome{class(ClassDigestMismatch)},
			Size:         2_000,
			Seed:         true,
			Write: ociImageCase("layer-truncated", KindOCILayoutDir, rawTarLayers, ociHooks{
				after: func(l *layout, im *image, _ blob) error {
					return os.Truncate(l.path(im.layers[0].Hex), im.layers[0].Size-2*blockSize)
				},
			}),
		},
		{
			Name:         "layer-gzip-truncated",
			Description:  "The gzip base layer is cut in half. The gzip stream ends early, and the blob is short.",
			Kind:         KindOCILayoutTar,
			Expect:       class(ClassSizeMismatch),
			Alternatives: []Outcome{class(ClassDigestMismatch), class(ClassMalformed)},
			Size:         8_000,
			Seed:         true,
			Write: ociImageCase("layer-gzip-truncated", KindOCILayoutTar, validLayers, ociHooks{
				after: func(l *layout, im *image, _ blob) error {
					return truncateFile(l.path(im.layers[0].Hex), 0.5)
				},
			}),
		},
		{
			Name:         "layer-trailing-data",
			Description:  "4 KiB of garbage follow the uncompressed base layer in its blob file; descriptor size and digest are of the original. Reading exactly 'size' bytes is not enough: a blob longer than its descriptor is a size mismatch.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassSizeMismatch),
			Alternatives: []Outcome{class(ClassDigestMismatch)},
			Size:         7_000,
			Seed:         true,
			Write: ociImageCase("layer-trailing-data", KindOCILayoutDir, rawTarLayers, ociHooks{
				after: func(l *layout, im *image, _ blob) error {
					return appendFile(l.path(im.layers[0].Hex), bytes.Repeat([]byte("garbage\n"), 512))
				},
			}),
		},
		{
			Name:         "layer-size-claim-huge",
			Description:  "The base layer's descriptor says 2^62 bytes. Nothing may be allocated by that number: the read stops at the real end with a size mismatch, or a limit refuses the claim.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassSizeMismatch),
			Alternatives: []Outcome{limit(LimitAny)},
			Size:         2_000,
			Seed:         true,
			Write: ociImageCase("layer-size-claim-huge", KindOCILayoutDir, validLayers, ociHooks{
				manifest: func(m *ocispec.Manifest, _ *image) { m.Layers[0].Size = 1 << 62 },
			}),
		},
	}
}

// twoBaseLayers are two layers both annotated as the base layer.
func twoBaseLayers() []layerSpec {
	return []layerSpec{
		baseLayer(tarOf(file("package.yaml", []byte(validPackage)))),
		baseLayer(tarOf(file("package.yaml", []byte(otherPackage)))),
	}
}

// writeSelfReference writes a layout whose index.json points to an index
// blob listing its own (claimed) digest.
func writeSelfReference(ctx context.Context, root string) error {
	l, err := newLayout(ctx, root)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte("xpkgkit hostile corpus: index-self-reference"))
	self := hex.EncodeToString(sum[:])
	d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageIndex, Digest: digest.Digest("sha256:" + self)}
	// The blob's size appears inside the blob: iterate to the fixed point.
	var content []byte
	for range 4 {
		content, err = json.Marshal(indexOf(d))
		if err != nil {
			return err
		}
		d.Size = int64(len(content))
	}
	if int64(len(content)) != d.Size {
		return errors.New("hostile: self-reference size did not settle")
	}
	if err := os.WriteFile(l.path(self), content, 0o644); err != nil {
		return err
	}
	return l.json("index.json", indexOf(d))
}

// writeNestedIndex writes a valid image under nestedIndexDepth indexes.
func writeNestedIndex(ctx context.Context, root string) error {
	l, err := newLayout(ctx, root)
	if err != nil {
		return err
	}
	im, err := writeImage(l, validLayers(), nil)
	if err != nil {
		return err
	}
	mb, err := l.jsonBlob(im.manifest())
	if err != nil {
		return err
	}
	d := descriptor(ocispec.MediaTypeImageManifest, mb)
	for range nestedIndexDepth - 1 {
		b, err := l.jsonBlob(indexOf(d))
		if err != nil {
			return err
		}
		d = descriptor(ocispec.MediaTypeImageIndex, b)
	}
	return l.json("index.json", indexOf(d))
}

// writeHugeManifest writes a valid image whose manifest, streamed to disk,
// repeats the layer descriptor hugeManifestN times.
func writeHugeManifest(ctx context.Context, root string) error {
	l, err := newLayout(ctx, root)
	if err != nil {
		return err
	}
	im, err := writeImage(l, validLayers(), nil)
	if err != nil {
		return err
	}
	m := im.manifest()
	first, err := json.Marshal(m.Layers[0])
	if err != nil {
		return err
	}
	plain := m.Layers[0]
	plain.Annotations = nil
	layer, err := json.Marshal(plain)
	if err != nil {
		return err
	}
	m.Layers = nil
	head, err := json.Marshal(m)
	if err != nil {
		return err
	}
	// head ends in `}`; reopen it to append the layers.
	head = append(head[:len(head)-1], `,"layers":[`...)
	mb, err := l.stream(func(w io.Writer) error {
		unit := append([]byte{','}, layer...)
		return repeatContent(w, append(head, first...), unit, hugeManifestN-1, []byte("]}"))
	})
	if err != nil {
		return err
	}
	return l.json("index.json", indexOf(descriptor(ocispec.MediaTypeImageManifest, mb)))
}

// writeManyLayers writes an image of manyLayersN copies of an empty,
// unannotated tar layer. Its config and manifest are streamed by hand.
func writeManyLayers(ctx context.Context, root string) error {
	l, err := newLayout(ctx, root)
	if err != nil {
		return err
	}
	lb, err := l.bytes(zeroBlocks[:]) // an empty tar: the end marker only
	if err != nil {
		return err
	}
	cb, err := l.stream(func(w io.Writer) error {
		if err := jsonList(w, `{"architecture":"","created":"0001-01-01T00:00:00Z","history":[`,
			[]byte(`{"created":"0001-01-01T00:00:00Z"}`), manyLayersN, `],"os":"",`); err != nil {
			return err
		}
		// The layer is uncompressed: its diff_id is its digest.
		return jsonList(w, `"rootfs":{"type":"layers","diff_ids":[`, []byte(`"`+lb.Digest+`"`), manyLayersN, `]},"config":{}}`)
	})
	if err != nil {
		return err
	}
	cfg, err := json.Marshal(descriptor(ocispec.MediaTypeImageConfig, cb))
	if err != nil {
		return err
	}
	layer, err := json.Marshal(descriptor(ocispec.MediaTypeImageLayer, lb))
	if err != nil {
		return err
	}
	mb, err := l.stream(func(w io.Writer) error {
		return jsonList(w, `{"schemaVersion":2,"mediaType":"`+ocispec.MediaTypeImageManifest+`","config":`+string(cfg)+`,"layers":[`,
			layer, manyLayersN, `]}`)
	})
	if err != nil {
		return err
	}
	return l.json("index.json", indexOf(descriptor(ocispec.MediaTypeImageManifest, mb)))
}

// jsonList writes prefix, n copies of item separated by commas, suffix.
func jsonList(w io.Writer, prefix string, item []byte, n int64, suffix string) error {
	if n == 0 {
		_, err := io.WriteString(w, prefix+suffix)
		return err
	}
	return repeatContent(w, append([]byte(prefix), item...), append([]byte{','}, item...), n-1, []byte(suffix))
}

// editDockerManifest returns hooks that change a .xpkg's manifest.json.
func editDockerManifest(edit func(*dockerManifest)) xpkgHooks {
	return xpkgHooks{entries: func(es []archiveEntry, _ *layout, _ *image) ([]archiveEntry, error) {
		var ms []dockerManifest
		last := &es[len(es)-1]
		if err := json.Unmarshal(last.data, &ms); err != nil {
			return nil, err
		}
		edit(&ms[0])
		b, err := json.Marshal(ms)
		last.data = b
		return es, err
	}}
}

// dropEntry returns hooks that leave entry i out of a .xpkg.
func dropEntry(i int) xpkgHooks {
	return xpkgHooks{entries: func(es []archiveEntry, _ *layout, _ *image) ([]archiveEntry, error) {
		return append(es[:i:i], es[i+1:]...), nil
	}}
}

// truncateFile cuts the file at path to the given fraction of its size.
func truncateFile(path string, fraction float64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.Truncate(path, int64(float64(fi.Size())*fraction))
}

// appendFile appends data to the file at path.
func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// flipAt flips the byte at offset off from the first occurrence of marker in
// the file at path.
func flipAt(path, marker string, off int) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i := bytes.Index(b, []byte(marker))
	if i < 0 {
		return fmt.Errorf("hostile: %q not found in %s", marker, path)
	}
	return flipByte(path, int64(i+off))
}

// secondBaseIgnored is the outcome of an image of several base layers from
// Crossplane v2.2 on, which reads the first and ignores the others: an
// XP501 warning for each other one, exit 0.
var secondBaseIgnored = &LaterOutcome{Since: "v2.2", Outcome: rule(ClassOK, "XP501")}
