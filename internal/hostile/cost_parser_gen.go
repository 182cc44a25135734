package hostile

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf16"
)

// Sizes of the parser's cost cases, those of the issue that found them.
const (
	// flowDocBytes is the size of one `data: [a,a,…]` document: just under
	// the parser's default MaxDocumentBytes (8 MiB), so that the node
	// count, not the size, is what stops it.
	flowDocBytes = 8<<20 - 1<<10
	// flowDocs is how many such documents the .xpkg case holds (128 MiB
	// of YAML in about 135 KB).
	flowDocs = 16
	// nearLimitUnits is how many "a," a document of the near-limit case
	// holds: it counts about 398 000 nodes, under the default MaxNodes
	// (400 000), so it parses.
	nearLimitUnits = 198_900
	// nearLimitDocs is how many such documents the near-limit case holds.
	nearLimitDocs = 4
	// endlessLineBytes is the length of the line without an end: past the
	// image reader's MaxFileBytes (512 MiB).
	endlessLineBytes = 600 << 20
	// manyFiles is the number of one-document files of the package
	// directory case.
	manyFiles = 200_000
)

// flowHead starts a ConfigMap whose data is a flow list.
const flowHead = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flow\ndata: ["

// flowDoc returns prefix, unit and suffix of a document `data: [a,a,…,a]`
// of about size bytes.
func flowDoc(size int) (prefix, unit, suffix []byte, count int64) {
	const tail = "a]\n"
	return []byte(flowHead), []byte("a,"), []byte(tail), int64((size - len(flowHead) - len(tail)) / 2)
}

// flowDocsEntry is a package.yaml tar entry holding validPackage, then
// docs documents of units "a," each.
func flowDocsEntry(docs int, units int64) func(io.Writer) error {
	const sep = "---\n"
	const tail = "a]\n"
	doc := int64(len(sep)+len(flowHead)+len(tail)) + 2*units
	size := int64(len(validPackage)) + int64(docs)*doc
	return func(w io.Writer) error {
		h, err := header("package.yaml", typeReg, "", size, 0, 0)
		if err != nil {
			return err
		}
		if _, err := w.Write(h[:]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, validPackage); err != nil {
			return err
		}
		for range docs {
			if err := repeatContent(w, []byte(sep+flowHead), []byte("a,"), units, []byte(tail)); err != nil {
				return err
			}
		}
		return pad(w, size)
	}
}

// flowDocsXpkg is the Write function of a .xpkg whose package.yaml holds
// docs flow-list documents of units elements each.
func flowDocsXpkg(name string, docs int, units int64) func(context.Context, string) (string, error) {
	return xpkgCase(name, func() []layerSpec {
		return []layerSpec{baseLayer(flowDocsEntry(docs, units))}
	}, xpkgHooks{})
}

// endlessLineXpkg is the Write function of a .xpkg whose package.yaml is
// validPackage, then one line of n bytes 'y' that never ends, as
// `yes | tr -d '\n'` writes.
func endlessLineXpkg(name string, n int64) func(context.Context, string) (string, error) {
	return xpkgCase(name, func() []layerSpec {
		return []layerSpec{baseLayer(repeatEntry("package.yaml", []byte(validPackage+"---\n"), []byte("y"), n, nil))}
	}, xpkgHooks{})
}

// utf16LE encodes s as UTF-16 little-endian after its byte order mark.
func utf16LE(s string) []byte {
	b := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// manyFilesDir is the Write function of a package directory whose
// crossplane.yaml is validPackage and which holds n one-document files in
// one directory. The files are hard links, linksPerFile to a ConfigMap
// file each (the reader stops listing at MaxFiles before it reads one):
// creating 200,000 files took 7-20 s here, linking them 2 s. Where the
// file system has no hard links, each is written.
func manyFilesDir(name string, n int) func(context.Context, string) (string, error) {
	return func(ctx context.Context, dir string) (string, error) {
		out, err := caseOutput(dir, name, KindPackageDir)
		if err != nil {
			return "", err
		}
		sub, sources := filepath.Join(out, "objects"), filepath.Join(out, "sources")
		for _, d := range []string{sub, sources} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return "", err
			}
		}
		if err := os.WriteFile(filepath.Join(out, "crossplane.yaml"), []byte(validPackage), 0o644); err != nil {
			return "", err
		}
		// ext4 allows 65,000 links to a file.
		const linksPerFile = 50_000
		for i := range n {
			if i%512 == 0 {
				if err := ctx.Err(); err != nil {
					return "", err
				}
			}
			src := filepath.Join(sources, fmt.Sprintf("c%d.yaml", i/linksPerFile))
			if i%linksPerFile == 0 {
				doc := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n", i/linksPerFile)
				if err := os.WriteFile(src, []byte(doc), 0o644); err != nil {
					return "", err
				}
			}
			dst := filepath.Join(sub, fmt.Sprintf("o%06d.yaml", i))
			if err := os.Link(src, dst); err != nil {
				data, rerr := os.ReadFile(src)
				if rerr != nil {
					return "", rerr
				}
				if err := os.WriteFile(dst, data, 0o644); err != nil {
					return "", err
				}
			}
		}
		return out, nil
	}
}

// configMapDir writes meta into out/file, and n one-document ConfigMap
// files into out/objects, named by nameFormat from their index.
func configMapDir(ctx context.Context, out, file string, meta []byte, n int, nameFormat string) error {
	sub := filepath.Join(out, "objects")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, file), meta, 0o644); err != nil {
		return err
	}
	for i := range n {
		if i%512 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		doc := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n", i)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf(nameFormat, i)), []byte(doc), 0o644); err != nil {
			return err
		}
	}
	return nil
}
