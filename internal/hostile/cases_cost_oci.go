package hostile

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// ociCostCases returns the cases that try to buy memory or CPU from
// the OCI readers: docker archives, gzip'd archives, layout directories, metadata beyond what the limits allow.
func ociCostCases() []Case {
	pkg := []byte(validPackage)
	base := packageYAMLLayer(pkg)
	// layoutDir is a layout directory of the valid package, changed by
	// after.
	layoutDir := func(name string, after func(l *layout, im *image) error) func(context.Context, string) (string, error) {
		return ociImageCase(name, KindOCILayoutDir, base, ociHooks{after: func(l *layout, im *image, _ blob) error {
			return after(l, im)
		}})
	}
	fifoAt := func(rel func(l *layout, im *image) string) func(l *layout, im *image) error {
		return func(l *layout, im *image) error {
			p := rel(l, im)
			if err := os.Remove(p); err != nil {
				return err
			}
			return mkfifo(p)
		}
	}
	return []Case{
		{
			Name: "xpkg-manifest-41000-entries",
			Description: "A gzip-compressed docker archive (about 15 KB) whose manifest.json lists 41,000 entries, " +
				"all naming one 8 MiB config. A reader that reads and parses the config once per entry spends " +
				"about 39 minutes; the entries must be bounded (MaxArchiveImages) before any config is read.",
			Kind:   KindXpkg,
			Expect: limit(LimitAny),
			Size:   15_000,
			Write:  bigConfigXpkg("xpkg-manifest-41000-entries", 41_000, 8<<20),
		},
		{
			Name: "xpkg-manifest-100-entries-8mib-config",
			Description: "A gzip-compressed docker archive whose manifest.json lists 100 entries (the default " +
				"MaxArchiveImages) all naming one 8 MiB config and one layer, and a valid package. The config " +
				"must be read and parsed once, not once per entry; the entries synthesise one manifest. The " +
				"package.yaml ends with a document that does not parse, so the case ends in a parse error " +
				"once the archive was read.",
			Kind:   KindXpkg,
			Expect: rule(ClassParseError, ""),
			Size:   9_000,
			Write:  bigConfigXpkg("xpkg-manifest-100-entries-8mib-config", 100, 8<<20),
		},
		{
			Name: "xpkg-gzip-1000-layers",
			Description: "A gzip-compressed docker archive (about 1 MB) of 1,000 layers: a base layer with a valid " +
				"package, and 999 uncompressed layers of 1 MiB (zeros) named so that their digests must be " +
				"computed. A reader that decompresses the archive from its start for each blob takes minutes " +
				"(102 s measured); read once, it is linear. The package.yaml of the base layer ends with a " +
				"document that does not parse, so the case ends in a parse error once the archive was read.",
			Kind:   KindXpkg,
			Expect: rule(ClassParseError, ""),
			Size:   1_100_000,
			Heavy:  true,
			Write:  manyLayersXpkg("xpkg-gzip-1000-layers", 999, 1<<20),
		},
		{
			Name: "oci-tar-gz-600-flattened-layers",
			Description: "A gzip-compressed OCI layout tar of one image of 600 layers without a base annotation: " +
				"package.yaml is in the bottom layer, under 599 uncompressed layers of 300 KiB (over the old " +
				"256 KiB cache), so the flattened read reads every layer top down. Decompressing the archive " +
				"from its start per layer took 10 s; read once, it is linear. The bottom package.yaml ends " +
				"with a document that does not parse, so the case ends in a parse error.",
			Kind:   KindOCILayoutTar,
			Expect: rule(ClassParseError, ""),
			Size:   600_000,
			Heavy:  true,
			Write:  flattenedLayoutTarGz("oci-tar-gz-600-flattened-layers", 599, 300<<10),
		},
		{
			Name: "oci-dir-blob-symlink-outside",
			Description: "An OCI layout directory whose base layer blob is a symbolic link to a file outside the " +
				"layout holding exactly the blob's bytes. A reader that follows it reads a host file, a size and " +
				"hash oracle for any file it can open; links out of the layout must be refused.",
			Kind:   KindOCILayoutDir,
			Expect: class(ClassBadPath),
			Size:   4_000,
			Write: layoutDir("oci-dir-blob-symlink-outside", func(l *layout, im *image) error {
				outside := filepath.Join(filepath.Dir(l.root), "oci-dir-blob-symlink-outside-outside")
				if err := os.MkdirAll(outside, 0o755); err != nil {
					return err
				}
				if err := os.Rename(l.path(im.layers[0].Hex), filepath.Join(outside, "blob")); err != nil {
					return err
				}
				// Relative, so that the case is the same wherever it is written.
				return os.Symlink(filepath.Join("..", "..", "..", filepath.Base(outside), "blob"), l.path(im.layers[0].Hex))
			}),
		},
		{
			Name: "oci-dir-fifo-index",
			Description: "An OCI layout directory whose index.json is a FIFO with no writer. Opening it for " +
				"reading blocks forever, past any deadline; it must be refused as not a regular file.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{class(ClassNotFound), class(ClassBadPath)},
			Write:        layoutDir("oci-dir-fifo-index", fifoAt(func(l *layout, _ *image) string { return filepath.Join(l.root, "index.json") })),
		},
		{
			Name: "oci-dir-fifo-oci-layout",
			Description: "An OCI layout directory whose oci-layout file is a FIFO with no writer: it must not be " +
				"opened (it would block), and the directory is then no layout.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{class(ClassNotFound), class(ClassBadPath)},
			Write:        layoutDir("oci-dir-fifo-oci-layout", fifoAt(func(l *layout, _ *image) string { return filepath.Join(l.root, "oci-layout") })),
		},
		{
			Name: "oci-dir-fifo-blob",
			Description: "An OCI layout directory whose base layer blob is a FIFO with no writer. Reading the " +
				"layer must not block: the blob is refused as not a regular file.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{class(ClassNotFound), class(ClassBadPath)},
			Write:        layoutDir("oci-dir-fifo-blob", fifoAt(func(l *layout, im *image) string { return l.path(im.layers[0].Hex) })),
		},
		{
			Name: "oci-manifest-layers-twice",
			Description: "An OCI manifest with \"layers\" naming the valid package, then \"LAYERS\" naming another " +
				"package. Go's encoding/json matches keys ignoring case and keeps the last: a silent swap of the " +
				"package. Duplicate and case-variant keys in OCI metadata are refused as malformed.",
			Kind:   KindOCILayoutDir,
			Expect: class(ClassMalformed),
			Size:   6_000,
			Write:  ociCase("oci-manifest-layers-twice", KindOCILayoutDir, layersTwiceLayout),
		},
		{
			Name: "xpkg-manifest-json-layers-twice",
			Description: "A docker archive whose manifest.json entry has \"Layers\" naming the valid package's " +
				"layer, then \"layers\": [] which encoding/json would read as the same field, leaving the image " +
				"without layers. Refused as malformed.",
			Kind:   KindXpkg,
			Expect: class(ClassMalformed),
			Size:   6_000,
			Write: xpkgCase("xpkg-manifest-json-layers-twice", base, xpkgHooks{entries: func(es []archiveEntry, _ *layout, _ *image) ([]archiveEntry, error) {
				last := &es[len(es)-1]
				var ms []map[string]any
				if err := json.Unmarshal(last.data, &ms); err != nil {
					return nil, err
				}
				b, err := json.Marshal(ms)
				if err != nil {
					return nil, err
				}
				last.data = []byte(strings.Replace(string(b), `}]`, `,"layers":[]}]`, 1))
				return es, nil
			}}),
		},
		{
			Name: "oci-gzip-header-corrupt",
			Description: "An OCI layout directory whose base layer blob has its gzip header corrupted (the " +
				"compression method byte). The reader must report the blob's class (its digest does not match), " +
				"not the error of a blob closed before it was verified (\"file already closed\").",
			Kind:   KindOCILayoutDir,
			Expect: class(ClassDigestMismatch),
			Size:   4_000,
			Write: layoutDir("oci-gzip-header-corrupt", func(l *layout, im *image) error {
				return flipByte(l.path(im.layers[0].Hex), 2)
			}),
		},
		{
			Name: "layer-sparse-package-yaml",
			Description: "A 2 KB gzip layer holding package.yaml as a PAX sparse file of 500 MiB: the valid " +
				"package, then a hole. The hole costs nothing in the layer, so MaxLayerBytes never sees it; " +
				"a sparse package file is refused (or its expanded size counted against a limit).",
			Kind:         KindXpkg,
			Expect:       class(ClassMalformed),
			Alternatives: []Outcome{limit(LimitAny), class(ClassNotFound)},
			Size:         6_000,
			Write: xpkgCase("layer-sparse-package-yaml", func() []layerSpec {
				return []layerSpec{baseLayer(sparseTar("package.yaml", pkg, 500<<20))}
			}, xpkgHooks{}),
		},
		{
			Name: "layer-500-long-unsafe-names",
			Description: "A gzip base layer (about 1 MB) of 500 entries whose PAX names are '../<i>/' and 1 MiB " +
				"of 'a', then package.yaml. Unsafe names never match and are reported as warnings: a reader " +
				"that keeps each name keeps 500 MiB. Warnings are capped in number and length. The package.yaml " +
				"ends with a document that does not parse, so the case ends in a parse error.",
			Kind:   KindXpkg,
			Expect: rule(ClassParseError, ""),
			Size:   1_000_000,
			Heavy:  true,
			Write: xpkgCase("layer-500-long-unsafe-names", func() []layerSpec {
				return []layerSpec{{mediaType: ocispec.MediaTypeImageLayerGzip, annotation: baseValue, raw: longUnsafeNamesLayer(500)}}
			}, xpkgHooks{}),
		},
		{
			Name: "xpkg-90000-stale-layer-labels",
			Description: "A docker archive whose config holds 90,000 layer labels " +
				"(io.crossplane.xpkg:sha256:…) naming no layer. The archive is refused as tampered; the error " +
				"once listed every label (a 6 MB line): it names a few and counts the rest.",
			Kind:   KindXpkg,
			Expect: class(ClassDigestMismatch),
			Size:   8_400_000,
			Write:  manyLabelsXpkg("xpkg-90000-stale-layer-labels", 90_000),
		},
	}
}

// layersTwiceLayout writes an OCI layout whose manifest has "layers" (the
// valid package) and then "LAYERS" (another package).
func layersTwiceLayout(ctx context.Context, root string) error {
	l, err := newLayout(ctx, root)
	if err != nil {
		return err
	}
	im, err := writeImage(l, packageYAMLLayer([]byte(validPackage))(), nil)
	if err != nil {
		return err
	}
	other, _, err := writeLayer(l, baseLayer(tarOf(file("package.yaml", []byte(otherPackage)))))
	if err != nil {
		return err
	}
	mb, err := json.Marshal(im.manifest())
	if err != nil {
		return err
	}
	od, err := json.Marshal(descriptor(ocispec.MediaTypeImageLayerGzip, other))
	if err != nil {
		return err
	}
	mb = append(mb[:len(mb)-1], `,"LAYERS":[`+string(od)+`]}`...)
	m, err := l.bytes(mb)
	if err != nil {
		return err
	}
	return l.json("index.json", indexOf(descriptor(ocispec.MediaTypeImageManifest, m)))
}
