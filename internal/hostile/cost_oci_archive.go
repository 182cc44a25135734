package hostile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	digest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// The writers of the bounded-cost OCI cases generate their archives in one
// stream, gzip-compressed piece by piece (see pieceGzip): the blobs are
// runs of zeros behind a tar header, so an archive that decompresses to a
// GiB is written in seconds and takes a MB on disk.

// fillWriter is a writer that can also write n copies of one byte cheaply.
type fillWriter interface {
	io.Writer
	fill(b byte, n int64) error
}

// plainFill is a fillWriter over any writer.
type plainFill struct{ io.Writer }

func (p plainFill) fill(b byte, n int64) error {
	return repeatContent(p, nil, []byte{b}, n, nil)
}

// genEntry is one entry of a generated archive: small data, or a blob
// written by gen, of size bytes.
type genEntry struct {
	name string
	data []byte
	size int64
	gen  func(w fillWriter) error
}

// bytesEntry is a genEntry holding data.
func bytesEntry(name string, data []byte) genEntry {
	return genEntry{name: name, data: data, size: int64(len(data))}
}

// fillLayer is a layer blob: an uncompressed tar holding one file named
// name of size zeros (size a multiple of the block size).
type fillLayer struct {
	name string
	size int64
}

// blobSize is the size of the layer's tar.
func (l fillLayer) blobSize() int64 { return blockSize + l.size + 2*blockSize }

// write writes the layer's tar.
func (l fillLayer) write(w fillWriter) error {
	h, err := header(l.name, typeReg, "", l.size, 0, 0)
	if err != nil {
		return err
	}
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	if err := w.fill(0, l.size); err != nil {
		return err
	}
	return writeEnd(w)
}

// digest hashes the layer's tar.
func (l fillLayer) digest() (string, error) {
	h := sha256.New()
	if err := l.write(plainFill{h}); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// entry is the archive entry of the layer under name.
func (l fillLayer) entry(name string) genEntry {
	return genEntry{name: name, size: l.blobSize(), gen: l.write}
}

// writeGzipArchive writes entries as a gzip-compressed tar at dst.
func writeGzipArchive(ctx context.Context, dst string, entries []genEntry) error {
	return writeFile(ctx, dst, func(w io.Writer) error {
		g, err := newPieceGzip(w)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.gen == nil {
				if err := writeEntry(g, file(e.name, e.data)); err != nil {
					return err
				}
				continue
			}
			h, err := header(e.name, typeReg, "", e.size, 0, 0)
			if err != nil {
				return err
			}
			if _, err := g.Write(h[:]); err != nil {
				return err
			}
			cw := &countFill{w: g}
			if err := e.gen(cw); err != nil {
				return err
			}
			if cw.n != e.size {
				return fmt.Errorf("hostile: entry %s wrote %d bytes, not %d", e.name, cw.n, e.size)
			}
			if err := pad(g, e.size); err != nil {
				return err
			}
		}
		if err := writeEnd(g); err != nil {
			return err
		}
		return g.Close()
	})
}

// countFill counts what goes through a pieceGzip.
type countFill struct {
	w *pieceGzip
	n int64
}

func (c *countFill) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countFill) fill(b byte, n int64) error {
	c.n += n
	return c.w.fill(b, n)
}

// sha256Hex returns the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// brokenPackage is the valid package followed by a document that does not
// parse: the package of the cost cases whose hostility is the work it takes
// to reach package.yaml, so that they end in a parse error (exit 1) once
// the reader has paid for reading it.
const brokenPackage = validPackage + "---\napiVersion: v1\nkind: [unclosed\n"

// packageTar is an uncompressed layer holding content as package.yaml.
func packageTar(content string) ([]byte, error) {
	var b bytesWriter
	err := tarOf(file("package.yaml", []byte(content)))(&b)
	return b.b, err
}

// bytesWriter collects what is written.
type bytesWriter struct{ b []byte }

func (w *bytesWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// manyLayersXpkg returns the Write function of a gzip-compressed docker
// archive whose base layer holds brokenPackage and is followed by
// fillers layers of layerSize bytes each, named so that their digests are
// computed by the reader, not claimed.
func manyLayersXpkg(name string, fillers int, layerSize int64) func(context.Context, string) (string, error) {
	return func(ctx context.Context, dir string) (string, error) {
		out, err := caseOutput(dir, name, KindXpkg)
		if err != nil {
			return "", err
		}
		base, err := packageTar(brokenPackage)
		if err != nil {
			return "", err
		}
		baseDigest := "sha256:" + sha256Hex(base)
		cfg := imageConfig{
			Created: "0001-01-01T00:00:00Z",
			RootFS:  rootFS{Type: "layers", DiffIDs: []string{baseDigest}},
			Config:  containerConfig{Labels: map[string]string{labelPrefix + baseDigest: baseValue}},
		}
		dm := dockerManifest{Config: "config.json", RepoTags: []string{"hostile/" + name + ":v1"}, Layers: []string{"base/layer.tar"}}
		entries := []genEntry{{}, bytesEntry("base/layer.tar", base)}
		for i := range fillers {
			l := fillLayer{name: fmt.Sprintf("fill-%04d", i), size: layerSize - 3*blockSize}
			p := fmt.Sprintf("l%04d/layer.tar", i)
			dm.Layers = append(dm.Layers, p)
			cfg.RootFS.DiffIDs = append(cfg.RootFS.DiffIDs, emptyDiffID)
			entries = append(entries, l.entry(p))
		}
		cb, err := json.Marshal(cfg)
		if err != nil {
			return "", err
		}
		entries[0] = bytesEntry("config.json", cb)
		mj, err := json.Marshal([]dockerManifest{dm})
		if err != nil {
			return "", err
		}
		entries = append(entries, bytesEntry("manifest.json", mj))
		return out, writeGzipArchive(ctx, out, entries)
	}
}

// flattenedLayoutTarGz returns the Write function of a gzip-compressed OCI
// layout tar of one image without a base annotation: brokenPackage in its
// bottom layer, under fillers layers of layerSize bytes each, so that
// reading package.yaml reads every layer, top down.
func flattenedLayoutTarGz(name string, fillers int, layerSize int64) func(context.Context, string) (string, error) {
	return func(ctx context.Context, dir string) (string, error) {
		out, err := caseOutput(dir, name, KindOCILayoutTar)
		if err != nil {
			return "", err
		}
		base, err := packageTar(brokenPackage)
		if err != nil {
			return "", err
		}
		baseDigest := "sha256:" + sha256Hex(base)
		m := ocispec.Manifest{
			Versioned: specs.Versioned{SchemaVersion: 2},
			MediaType: ocispec.MediaTypeImageManifest,
			Layers:    []ocispec.Descriptor{{MediaType: ocispec.MediaTypeImageLayer, Digest: digestOf(baseDigest), Size: int64(len(base))}},
		}
		cfg := imageConfig{Created: "0001-01-01T00:00:00Z", RootFS: rootFS{Type: "layers", DiffIDs: []string{baseDigest}}}
		blobs := []genEntry{bytesEntry("blobs/sha256/"+baseDigest[len("sha256:"):], base)}
		for i := range fillers {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			l := fillLayer{name: fmt.Sprintf("fill-%04d", i), size: layerSize - 3*blockSize}
			d, err := l.digest()
			if err != nil {
				return "", err
			}
			m.Layers = append(m.Layers, ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayer, Digest: digestOf(d), Size: l.blobSize()})
			cfg.RootFS.DiffIDs = append(cfg.RootFS.DiffIDs, d)
			blobs = append(blobs, l.entry("blobs/sha256/"+d[len("sha256:"):]))
		}
		cb, err := json.Marshal(cfg)
		if err != nil {
			return "", err
		}
		cd := "sha256:" + sha256Hex(cb)
		m.Config = ocispec.Descriptor{MediaType: ocispec.MediaTypeImageConfig, Digest: digestOf(cd), Size: int64(len(cb))}
		mb, err := json.Marshal(m)
		if err != nil {
			return "", err
		}
		md := "sha256:" + sha256Hex(mb)
		ib, err := json.Marshal(indexOf(ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digestOf(md), Size: int64(len(mb))}))
		if err != nil {
			return "", err
		}
		entries := []genEntry{
			bytesEntry("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)),
			bytesEntry("index.json", ib),
			bytesEntry("blobs/sha256/"+md[len("sha256:"):], mb),
			bytesEntry("blobs/sha256/"+cd[len("sha256:"):], cb),
		}
		return out, writeGzipArchive(ctx, out, append(entries, blobs...))
	}
}

// digestOf is s as a digest.
func digestOf(s string) digest.Digest { return digest.Digest(s) }

// bigConfigXpkg returns the Write function of a gzip-compressed docker
// archive whose manifest.json lists entries entries, all naming one config
// of configSize bytes (a padding label fills it) and one base layer
// holding brokenPackage. The names are short ("c", "l") so that the
// entries fit many to the MiB.
func bigConfigXpkg(name string, entries int, configSize int64) func(context.Context, string) (string, error) {
	return func(ctx context.Context, dir string) (string, error) {
		out, err := caseOutput(dir, name, KindXpkg)
		if err != nil {
			return "", err
		}
		base, err := packageTar(brokenPackage)
		if err != nil {
			return "", err
		}
		baseDigest := "sha256:" + sha256Hex(base)
		cfg := imageConfig{
			Created: "0001-01-01T00:00:00Z",
			RootFS:  rootFS{Type: "layers", DiffIDs: []string{baseDigest}},
			Config:  containerConfig{Labels: map[string]string{labelPrefix + baseDigest: baseValue, "padding": "@"}},
		}
		cb, err := json.Marshal(cfg)
		if err != nil {
			return "", err
		}
		at := strings.Index(string(cb), `"@"`) + 1
		prefix, suffix := cb[:at], cb[at+1:]
		fill := configSize - int64(len(prefix)+len(suffix))
		config := genEntry{name: "c", size: configSize, gen: func(w fillWriter) error {
			if _, err := w.Write(prefix); err != nil {
				return err
			}
			if err := w.fill('a', fill); err != nil {
				return err
			}
			_, err := w.Write(suffix)
			return err
		}}
		ms := make([]dockerManifest, entries)
		for i := range ms {
			ms[i] = dockerManifest{Config: "c", Layers: []string{"l"}}
		}
		mj, err := json.Marshal(ms)
		if err != nil {
			return "", err
		}
		return out, writeGzipArchive(ctx, out, []genEntry{config, bytesEntry("l", base), bytesEntry("manifest.json", mj)})
	}
}

// manyLabelsXpkg returns the Write function of a docker archive whose
// config holds n layer labels "io.crossplane.xpkg:sha256:<56 hex digits>"
// naming no layer of the archive (besides the base layer's own label).
func manyLabelsXpkg(name string, n int) func(context.Context, string) (string, error) {
	return xpkgCase(name, packageYAMLLayer([]byte(validPackage)), xpkgHooks{config: func(c *imageConfig) {
		for i := range n {
			c.Config.Labels[labelPrefix+"sha256:"+sha256Hex([]byte(fmt.Sprint(i)))[:56]] = baseValue
		}
	}})
}

// paxRecord formats one PAX extended header record: its length (counting
// itself), a space, key=value and a newline.
func paxRecord(key, value string) string {
	body := " " + key + "=" + value + "\n"
	n := len(body) + 1
	for len(fmt.Sprint(n))+len(body) != n {
		n++
	}
	return fmt.Sprint(n) + body
}

// sparseTar returns a generator of a tar holding name as a PAX (GNU 1.0
// format) sparse file of realSize bytes: data at offset 0, then a hole up
// to realSize. The archive holds only data and the sparse map.
func sparseTar(name string, data []byte, realSize int64) func(io.Writer) error {
	return func(w io.Writer) error {
		recs := paxRecord("GNU.sparse.major", "1") + paxRecord("GNU.sparse.minor", "0") +
			paxRecord("GNU.sparse.name", name) + paxRecord("GNU.sparse.realsize", fmt.Sprint(realSize))
		if err := writeEntry(w, tarEntry{name: "PaxHeaders.0/" + name, typeflag: 'x', data: []byte(recs), size: -1}); err != nil {
			return err
		}
		// The data section: the sparse map (entries, then offset and
		// length of each), padded to a block, then the data.
		sparseMap := []byte(fmt.Sprintf("1\n0\n%d\n", len(data)))
		section := append(sparseMap, make([]byte, blockSize-len(sparseMap))...)
		section = append(section, data...)
		if err := writeEntry(w, tarEntry{name: "GNUSparseFile.0/" + name, typeflag: typeReg, data: section, size: -1}); err != nil {
			return err
		}
		return writeEnd(w)
	}
}

// longUnsafeNamesLayer returns a generator of a gzip layer of n entries
// whose PAX path is "../<i>/" and then about 1 MiB of 'a' (names that must
// never match, which a reader reports as warnings), then brokenPackage as
// package.yaml.
func longUnsafeNamesLayer(n int) func(io.Writer) error {
	return func(w io.Writer) error {
		g, err := newPieceGzip(w)
		if err != nil {
			return err
		}
		const fill = 1<<20 - 4096 // under archive/tar's 1 MiB bound on PAX headers
		for i := range n {
			head := fmt.Sprintf(" path=../%d/", i)
			size := len(head) + fill + 1
			size += len(fmt.Sprint(size))
			if len(fmt.Sprint(size))+len(head)+fill+1 != size {
				size++
			}
			prefix := fmt.Sprint(size) + head
			h, err := header(fmt.Sprintf("PaxHeaders/%d", i), 'x', "", int64(size), 0, 0)
			if err != nil {
				return err
			}
			if _, err := g.Write(append(h[:], prefix...)); err != nil {
				return err
			}
			if err := g.fill('a', fill); err != nil {
				return err
			}
			if _, err := g.Write([]byte("\n")); err != nil {
				return err
			}
			if err := pad(g, int64(size)); err != nil {
				return err
			}
			if err := writeEntry(g, file(fmt.Sprintf("x%d", i), nil)); err != nil {
				return err
			}
		}
		if err := writeEntry(g, file("package.yaml", []byte(brokenPackage))); err != nil {
			return err
		}
		if err := writeEnd(g); err != nil {
			return err
		}
		return g.Close()
	}
}
