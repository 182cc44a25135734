//go:build unix

package xpkg_test

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// TestOpenRefusesFIFOs checks that named pipes, which would block a reader
// forever, are refused as sources and as crossplane.yaml.
func TestOpenRefusesFIFOs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "package.yaml")
	pkgDir := filepath.Join(dir, "pkg")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := syscall.Mkdir(pkgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(pkgDir, parser.MetaFile), 0o600); err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]string{fifo: "not a regular file", pkgDir: "crossplane.yaml is not a regular file"} {
		_, err := xpkg.Open(t.Context(), src)
		if !errors.Is(err, xpkg.ErrUnknownSource) || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) = %v, want ErrUnknownSource saying %q", filepath.Base(src), err, want)
		}
	}
}
