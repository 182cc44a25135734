package hostile

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// layout writes an OCI image layout directory: oci-layout, index.json and
// blobs/sha256/<hex>. It checks nothing: cases tamper with what it writes.
type layout struct {
	ctx  context.Context
	root string
}

// blob is a written blob: its digest ("sha256:<hex>"), hex and size.
type blob struct {
	Digest string
	Hex    string
	Size   int64
}

// newLayout creates root with an oci-layout file and an empty blob store.
func newLayout(ctx context.Context, root string) (*layout, error) {
	if err := os.MkdirAll(filepath.Join(root, "blobs", "sha256"), 0o755); err != nil {
		return nil, err
	}
	l := &layout{ctx: ctx, root: root}
	if err := l.file("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return nil, err
	}
	return l, nil
}

// path returns the blob path of hex under the layout.
func (l *layout) path(hex string) string {
	return filepath.Join(l.root, "blobs", "sha256", hex)
}

// file writes a file at rel under the layout root.
func (l *layout) file(rel string, data []byte) error {
	return os.WriteFile(filepath.Join(l.root, filepath.FromSlash(rel)), data, 0o644)
}

// json writes v as compact JSON at rel under the layout root.
func (l *layout) json(rel string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return l.file(rel, b)
}

// bytes stores data as a blob.
func (l *layout) bytes(data []byte) (blob, error) {
	return l.stream(func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// jsonBlob stores v, marshalled compactly, as a blob.
func (l *layout) jsonBlob(v any) (blob, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return blob{}, err
	}
	return l.bytes(b)
}

// stream stores what gen writes as a blob, hashing while writing, through a
// temporary file renamed to its digest: memory stays constant whatever the
// size.
func (l *layout) stream(gen func(io.Writer) error) (blob, error) {
	f, err := os.CreateTemp(filepath.Join(l.root, "blobs", "sha256"), ".tmp-")
	if err != nil {
		return blob{}, err
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	h := sha256.New()
	n, err := writeTo(l.ctx, f, h, gen)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return blob{}, err
	}
	hx := hex.EncodeToString(h.Sum(nil))
	if err := os.Rename(f.Name(), l.path(hx)); err != nil {
		return blob{}, err
	}
	return blob{Digest: "sha256:" + hx, Hex: hx, Size: n}, nil
}

// writeTo runs gen into f (buffered, checking ctx on every write), also
// feeding h when it is not nil; it returns the bytes written.
func writeTo(ctx context.Context, f io.Writer, h hash.Hash, gen func(io.Writer) error) (int64, error) {
	bw := bufio.NewWriterSize(f, 256<<10)
	var w io.Writer = bw
	if h != nil {
		w = io.MultiWriter(bw, h)
	}
	cw := &countWriter{ctx: ctx, w: w}
	if err := gen(cw); err != nil {
		return cw.n, err
	}
	return cw.n, bw.Flush()
}

// countWriter counts bytes and stops with the context's error once it is
// cancelled.
type countWriter struct {
	ctx context.Context
	w   io.Writer
	n   int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeFile creates path and streams gen into it.
func writeFile(ctx context.Context, path string, gen func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = writeTo(ctx, f, nil, gen)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// packDir writes a tar of every file and directory under src, named
// relative to src, into dst: "oci-layout" and "index.json" first, then the
// rest in lexical order, so the output is deterministic. Symlinks are
// stored as symlinks.
func packDir(ctx context.Context, src, dst string) error {
	var names []string
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == src {
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	rank := func(n string) int {
		switch n {
		case "oci-layout":
			return 0
		case "index.json":
			return 1
		}
		return 2
	}
	sort.SliceStable(names, func(i, j int) bool {
		if ri, rj := rank(names[i]), rank(names[j]); ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return writeFile(ctx, dst, func(w io.Writer) error {
		for _, n := range names {
			if err := packOne(w, filepath.Join(src, filepath.FromSlash(n)), n); err != nil {
				return err
			}
		}
		return writeEnd(w)
	})
}

// packOne writes the entry for the file at p, named name, into w.
func packOne(w io.Writer, p, name string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	switch {
	case fi.IsDir():
		return writeEntry(w, special(name+"/", typeDir, ""))
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		return writeEntry(w, special(name, typeSymlink, target))
	case fi.Mode().IsRegular():
		return copyFileEntry(w, name, p)
	}
	return fmt.Errorf("hostile: cannot pack %s: mode %v", p, fi.Mode())
}

// copyFileEntry streams the regular file at p into w as entry name.
func copyFileEntry(w io.Writer, name, p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	h, err := header(name, typeReg, "", fi.Size(), 0, 0)
	if err != nil {
		return err
	}
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	n, err := io.Copy(w, f)
	if err != nil {
		return err
	}
	if n != fi.Size() {
		return fmt.Errorf("hostile: %s changed size while packing", p)
	}
	return pad(w, n)
}

// archiveEntry is one entry of a docker archive: a name and either a file
// to stream or bytes.
type archiveEntry struct {
	name string
	path string // a file to copy, when not empty
	data []byte
}

// writeArchive writes entries, in order, as a tar at dst.
func writeArchive(ctx context.Context, dst string, entries []archiveEntry) error {
	return writeFile(ctx, dst, func(w io.Writer) error {
		for _, e := range entries {
			var err error
			if e.path != "" {
				err = copyFileEntry(w, e.name, e.path)
			} else {
				err = writeEntry(w, file(e.name, e.data))
			}
			if err != nil {
				return err
			}
		}
		return writeEnd(w)
	})
}

// buildDir returns a scratch directory for building name inside dir; the
// caller removes it.
func buildDir(dir, name string) (string, error) {
	p := filepath.Join(dir, ".build-"+name)
	if err := os.RemoveAll(p); err != nil {
		return "", err
	}
	return p, os.MkdirAll(p, 0o755)
}

// caseOutput returns the path a case named name of kind k writes in dir,
// after removing whatever a previous run left there.
func caseOutput(dir, name string, k SourceKind) (string, error) {
	p := filepath.Join(dir, name+k.ext())
	if strings.ContainsAny(name, `/\`) {
		return "", errors.New("hostile: case name contains a path separator")
	}
	return p, os.RemoveAll(p)
}
