// Package tartest extracts tar streams into directories for the project's
// tests: layout tars written by the image writers, read back as layout
// directories.
package tartest

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Extract writes the directories and regular files of the tar stream r below
// dir, creating parent directories as needed. Other entry types (links,
// devices) are skipped. A name that escapes dir, or any read or write error,
// fails the test.
func Extract(tb testing.TB, r io.Reader, dir string) {
	tb.Helper()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			tb.Fatal(err)
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			tb.Fatalf("tar entry %q escapes the directory", h.Name)
		}
		dst := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(dst, 0o755)
		case tar.TypeReg:
			err = writeFile(dst, tr)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
}

func writeFile(dst string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
