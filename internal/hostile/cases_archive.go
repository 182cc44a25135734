package hostile

import (
	"context"
	"io"
	"os"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// validPackage is the package every container case wraps: a Configuration
// that lints without errors, so any failure comes from the hostility.
const validPackage = `apiVersion: meta.pkg.crossplane.io/v1
kind: Configuration
metadata:
  name: hostile-fixture
  annotations:
    meta.crossplane.io/maintainer: xpkgkit maintainers <maintainers@example.com>
    meta.crossplane.io/source: github.com/xpkgkit/xpkgkit
    meta.crossplane.io/license: Apache-2.0
    meta.crossplane.io/description: A fixture that the hostile corpus wraps.
    meta.crossplane.io/readme: A fixture that the hostile corpus wraps.
spec:
  crossplane:
    version: ">=v1.14.0"
`

// otherPackage is a second, different valid package, for the cases that put
// two package.yaml files where one is expected.
const otherPackage = `apiVersion: meta.pkg.crossplane.io/v1
kind: Provider
metadata:
  name: hostile-second-fixture
`

// Docker archive layer media type, as Crossplane's manifests name gzip
// layers.
const dockerLayerGzip = "application/vnd.docker.image.rootfs.diff.tar.gzip"

const (
	bombSize     = 4 << 30 // bytes a compression bomb inflates to
	yamlBombSize = 1 << 30 // bytes of the package.yaml bomb
	tarBombCount = 2_000_000
	outerBombN   = 250_000
)

// compressionCases are the compression bombs.
func compressionCases() []Case {
	bombLayer := func(mediaType string, gen func(prefix []byte, fill byte, n int64, suffix []byte) func(io.Writer) error) func() []layerSpec {
		return func() []layerSpec {
			prefix, suffix, err := paddedTarBomb("padding", bombSize, file("package.yaml", []byte(validPackage)))
			if err != nil {
				return []layerSpec{{mediaType: mediaType, raw: func(io.Writer) error { return err }}}
			}
			return []layerSpec{{mediaType: mediaType, annotation: baseValue, raw: gen(prefix, 0, bombSize, suffix)}}
		}
	}
	yamlBomb := func() []layerSpec {
		h, err := header("package.yaml", typeReg, "", yamlBombSize, 0, 0)
		if err != nil {
			return []layerSpec{{raw: func(io.Writer) error { return err }}}
		}
		prefix := append(h[:], "# "...)
		return []layerSpec{{
			mediaType:  ocispec.MediaTypeImageLayerGzip,
			annotation: baseValue,
			raw:        gzipFill(prefix, 'A', yamlBombSize-2, zeroBlocks[:]),
		}}
	}
	return []Case{
		{
			Name: "gzip-bomb",
			Description: "The base layer is one gzip member of about 4 MiB that inflates to a 4 GiB tar: a file " +
				"'padding' of 4 GiB of zeros, then a valid package.yaml. Reaching package.yaml means " +
				"decompressing all of it; the decompressed-size limit must stop the read first.",
			Kind:   KindXpkg,
			Expect: limit(LimitDecompressedSize),
			Size:   4_200_000,
			Write:  xpkgCase("gzip-bomb", bombLayer(dockerLayerGzip, gzipFill), xpkgHooks{}),
		},
		{
			Name: "zstd-bomb",
			Description: "The base layer is a zstd stream of about 450 KiB (repeated frames) that inflates to the " +
				"same 4 GiB tar as gzip-bomb. The decompressed-size limit must stop the read.",
			Kind:   KindOCILayoutDir,
			Expect: limit(LimitDecompressedSize),
			Size:   461_000,
			Write:  ociImageCase("zstd-bomb", KindOCILayoutDir, bombLayer(ocispec.MediaTypeImageLayerZstd, zstdBomb), ociHooks{}),
		},
		{
			Name: "package-yaml-bomb",
			Description: "The base layer (about 1 MiB of gzip) holds a package.yaml of 1 GiB: one comment line " +
				"with no newline. Whichever of the stream-size, decompressed-size or document-size limits " +
				"is lowest must stop it; a line-based splitter must not buffer the line.",
			Kind:   KindOCILayoutTar,
			Expect: limit(LimitStreamSize),
			Alternatives: []Outcome{
				limit(LimitDecompressedSize), limit(LimitDocumentSize),
			},
			Size:  1_100_000,
			Write: ociImageCase("package-yaml-bomb", KindOCILayoutTar, yamlBomb, ociHooks{}),
		},
	}
}

// gzipFill is gzipBomb with a single repeated byte.
func gzipFill(prefix []byte, fill byte, n int64, suffix []byte) func(io.Writer) error {
	return gzipBomb(prefix, []byte{fill}, n, suffix)
}

// tarCases attack the tar reading of layers and archives.
func tarCases() []Case {
	pkg := []byte(validPackage)
	one := func(es ...tarEntry) func() []layerSpec {
		return func() []layerSpec { return []layerSpec{baseLayer(tarOf(es...))} }
	}
	entryBombLayer := func(annotation string) func() []layerSpec {
		return func() []layerSpec {
			return []layerSpec{{
				mediaType:  ocispec.MediaTypeImageLayerGzip,
				annotation: annotation,
				raw:        gzipEntryBomb(tarBombCount, file("package.yaml", pkg)),
			}}
		}
	}
	// A long comment pushes the content past one block, so that a reader
	// trusting a short header size meets YAML text where a header should be.
	longPkg := []byte(strings.Repeat("# a comment that pads the content past one block\n", 20) + validPackage)
	rawLayer := func(gen func(io.Writer) error) func() []layerSpec {
		return func() []layerSpec {
			return []layerSpec{{mediaType: ocispec.MediaTypeImageLayer, annotation: baseValue, tar: gen}}
		}
	}
	return []Case{
		{
			Name: "tar-bomb",
			Description: "A gzip layer (about 20 MiB) with no base annotation holds 2,000,000 empty files and " +
				"package.yaml last, so the reader flattens layers and must remember every path. The " +
				"entry-count limit must stop it (1 GiB of headers: a low decompressed-size limit may trip first).",
			Kind:         KindOCILayoutDir,
			Expect:       limit(LimitEntryCount),
			Alternatives: []Outcome{limit(LimitDecompressedSize)},
			Size:         20_600_000,
			Heavy:        true,
			Write:        ociImageCase("tar-bomb", KindOCILayoutDir, entryBombLayer(""), ociHooks{}),
		},
		{
			Name: "tar-bomb-base-layer",
			Description: "The tar-bomb layer labelled as the base layer in a .xpkg: scanning for package.yaml " +
				"walks 2,000,000 entries first. The entry-count limit must stop it.",
			Kind:         KindXpkg,
			Expect:       limit(LimitEntryCount),
			Alternatives: []Outcome{limit(LimitDecompressedSize)},
			Size:         20_600_000,
			Heavy:        true,
			Write:        xpkgCase("tar-bomb-base-layer", entryBombLayer(baseValue), xpkgHooks{}),
		},
		{
			Name: "xpkg-outer-tar-bomb",
			Description: "A .xpkg whose outer archive holds 250,000 empty entries and no manifest.json (122 MiB, " +
				"uncompressed). Indexing the archive must stop at the entry-count limit; a reader with a " +
				"higher limit reports the missing manifest.json.",
			Kind:         KindXpkg,
			Expect:       limit(LimitEntryCount),
			Alternatives: []Outcome{class(ClassNotFound), class(ClassMalformed)},
			Size:         128_000_000,
			Heavy:        true,
			Write: func(ctx context.Context, dir string) (string, error) {
				out, err := caseOutput(dir, "xpkg-outer-tar-bomb", KindXpkg)
				if err != nil {
					return "", err
				}
				return out, writeFile(ctx, out, entryBomb(outerBombN))
			},
		},
		{
			Name: "tar-size-exceeds-data",
			Description: "An uncompressed base layer whose package.yaml header claims 1 MiB while only the real " +
				"content follows and the tar ends (no padding, no end marker). The digest is of these " +
				"bytes, so only the tar is broken: an unexpected EOF, reported as malformed.",
			Kind:   KindOCILayoutDir,
			Expect: class(ClassMalformed),
			Size:   2_000,
			Seed:   true,
			Write: ociImageCase("tar-size-exceeds-data", KindOCILayoutDir, rawLayer(func(w io.Writer) error {
				h, err := header("package.yaml", typeReg, "", 1<<20, 0, 0)
				if err != nil {
					return err
				}
				if _, err := w.Write(h[:]); err != nil {
					return err
				}
				_, err = w.Write(pkg)
				return err
			}), ociHooks{}),
		},
		{
			Name: "tar-size-short",
			Description: "The base layer's package.yaml header says 20 bytes but about 1.4 KiB follow, so the " +
				"reader meets YAML text where the next header should be (bad checksum). A reader must " +
				"read the whole layer (to verify its digest) and report the broken tar, not lint 20 bytes.",
			Kind:   KindXpkg,
			Expect: class(ClassMalformed),
			Size:   4_000,
			Seed:   true,
			Write: xpkgCase("tar-size-short", func() []layerSpec {
				return []layerSpec{{mediaType: dockerLayerGzip, annotation: baseValue, tar: tarOf(tarEntry{name: "package.yaml", data: longPkg, size: 20})}}
			}, xpkgHooks{}),
		},
		{
			Name:         "path-traversal",
			Description:  "The base layer's only entry is '../package.yaml' (valid content). It escapes the root: it must be refused, or at least never taken as package.yaml.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassBadPath),
			Alternatives: []Outcome{class(ClassNotFound)},
			Size:         3_000,
			Seed:         true,
			Write:        ociImageCase("path-traversal", KindOCILayoutDir, one(file("../package.yaml", pkg)), ociHooks{}),
		},
		{
			Name:         "path-traversal-dot",
			Description:  "The base layer's only entry is './a/../../package.yaml', which cleans to '../package.yaml'. Same expectation as path-traversal.",
			Kind:         KindOCILayoutTar,
			Expect:       class(ClassBadPath),
			Alternatives: []Outcome{class(ClassNotFound)},
			Size:         8_000,
			Seed:         true,
			Write:        ociImageCase("path-traversal-dot", KindOCILayoutTar, one(file("./a/../../package.yaml", pkg)), ociHooks{}),
		},
		{
			Name:         "absolute-path",
			Description:  "The base layer's only entry is '/package.yaml'. package.yaml must be at the root as 'package.yaml' or './package.yaml'; an absolute name is refused or not matched.",
			Kind:         KindXpkg,
			Expect:       class(ClassBadPath),
			Alternatives: []Outcome{class(ClassNotFound)},
			Size:         4_000,
			Seed:         true,
			Write:        xpkgCase("absolute-path", one(file("/package.yaml", pkg)), xpkgHooks{}),
		},
		{
			Name:         "symlink-etc-passwd",
			Description:  "package.yaml is a symlink to /etc/passwd. A layer is never resolved against the host: package.yaml is not a regular file, so it is not found (or refused).",
			Kind:         KindXpkg,
			Expect:       class(ClassNotFound),
			Alternatives: notRegular(),
			Size:         4_000,
			Seed:         true,
			Write:        xpkgCase("symlink-etc-passwd", one(special("package.yaml", typeSymlink, "/etc/passwd")), xpkgHooks{}),
		},
		{
			Name:         "symlink-escaping",
			Description:  "package.yaml is a symlink to '../x', and a valid file 'x' sits at the root, so a resolver that clamps '..' at the root would find content. package.yaml must be a regular file.",
			Kind:         KindOCILayoutTar,
			Expect:       class(ClassNotFound),
			Alternatives: notRegular(),
			Size:         8_000,
			Seed:         true,
			Write:        ociImageCase("symlink-escaping", KindOCILayoutTar, one(file("x", pkg), special("package.yaml", typeSymlink, "../x")), ociHooks{}),
		},
		{
			Name:         "hardlink-outside",
			Description:  "package.yaml is a hard link to '../../etc/passwd'. Links are not followed out of a layer.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassNotFound),
			Alternatives: notRegular(),
			Size:         2_000,
			Seed:         true,
			Write:        ociImageCase("hardlink-outside", KindOCILayoutDir, one(special("package.yaml", typeLink, "../../etc/passwd")), ociHooks{}),
		},
		{
			Name:         "hardlink-to-file",
			Description:  "A valid 'real.yaml', then package.yaml as a hard link to it. A hard link carries no content in the tar; package.yaml must be a regular file.",
			Kind:         KindXpkg,
			Expect:       class(ClassNotFound),
			Alternatives: notRegular(),
			Size:         4_000,
			Seed:         true,
			Write:        xpkgCase("hardlink-to-file", one(file("real.yaml", pkg), special("package.yaml", typeLink, "real.yaml")), xpkgHooks{}),
		},
		{
			Name:         "hardlink-self",
			Description:  "package.yaml is a hard link to itself. A reader that resolves links must not loop.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassNotFound),
			Alternatives: notRegular(),
			Size:         2_000,
			Seed:         true,
			Write:        ociImageCase("hardlink-self", KindOCILayoutDir, one(special("package.yaml", typeLink, "package.yaml")), ociHooks{}),
		},
		{
			Name:         "package-yaml-directory",
			Description:  "package.yaml is a directory holding a valid 'package.yaml/crossplane.yaml'. There is no regular package.yaml at the root.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassNotFound),
			Alternatives: notRegular(),
			Size:         2_000,
			Seed:         true,
			Write:        ociImageCase("package-yaml-directory", KindOCILayoutDir, one(special("package.yaml/", typeDir, ""), file("package.yaml/crossplane.yaml", pkg)), ociHooks{}),
		},
		{
			Name:         "package-yaml-fifo",
			Description:  "package.yaml is a FIFO entry. Nothing is created on the host and nothing blocks; it is not a regular file.",
			Kind:         KindOCILayoutTar,
			Expect:       class(ClassNotFound),
			Alternatives: notRegular(),
			Size:         8_000,
			Seed:         true,
			Write:        ociImageCase("package-yaml-fifo", KindOCILayoutTar, one(special("package.yaml", typeFifo, "")), ociHooks{}),
		},
		{
			Name:         "package-yaml-char-device",
			Description:  "package.yaml is a character device 1,5 (/dev/zero on Linux): a reader that opened it on the host would read forever. It is not a regular file.",
			Kind:         KindXpkg,
			Expect:       class(ClassNotFound),
			Alternatives: notRegular(),
			Size:         4_000,
			Seed:         true,
			Write:        xpkgCase("package-yaml-char-device", one(tarEntry{name: "package.yaml", typeflag: typeChar, size: -1, devMajor: 1, devMinor: 5}), xpkgHooks{}),
		},
		{
			Name:         "package-yaml-block-device",
			Description:  "package.yaml is a block device 8,0 (/dev/sda on Linux). It is not a regular file.",
			Kind:         KindOCILayoutDir,
			Expect:       class(ClassNotFound),
			Alternatives: notRegular(),
			Size:         2_000,
			Seed:         true,
			Write:        ociImageCase("package-yaml-block-device", KindOCILayoutDir, one(tarEntry{name: "package.yaml", typeflag: typeBlock, size: -1, devMajor: 8, devMinor: 0}), ociHooks{}),
		},
		{
			Name:        "duplicate-package-yaml",
			Description: "The base layer holds package.yaml twice, a Configuration then a Provider. Duplicate paths in one layer are an error, never a silent pick of either.",
			Kind:        KindXpkg,
			Expect:      class(ClassMalformed),
			Size:        4_000,
			Seed:        true,
			Write:       xpkgCase("duplicate-package-yaml", one(file("package.yaml", pkg), file("package.yaml", []byte(otherPackage))), xpkgHooks{}),
		},
		{
			Name:        "duplicate-package-yaml-dot",
			Description: "The base layer holds 'package.yaml' then './package.yaml' (the same path) with different packages. An error, as for duplicate-package-yaml.",
			Kind:        KindOCILayoutDir,
			Expect:      class(ClassMalformed),
			Size:        3_000,
			Seed:        true,
			Write:       ociImageCase("duplicate-package-yaml-dot", KindOCILayoutDir, one(file("package.yaml", pkg), file("./package.yaml", []byte(otherPackage))), ociHooks{}),
		},
	}
}

// removeBlob deletes the blob hex from l (for the missing-blob cases).
func removeBlob(l *layout, hex string) error { return os.Remove(l.path(hex)) }
