//go:build unix

package oci_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/xpkgkit/xpkgkit/oci"
)

// TestLayoutDirSpecialFiles checks that a layout directory is read only
// through regular files inside it: a blob linked to a file outside is
// refused as an unsafe path (no hash oracle), and FIFOs and devices are
// refused without blocking.
func TestLayoutDirSpecialFiles(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	layer := b.gzLayer(file("package.yaml", "kind: Configuration\n"))
	b.tag(b.image(nil, layer), "")
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	gz, err := b.s.Fetch(context.Background(), layer)
	wantErr(t, err, nil)
	content, _ := io.ReadAll(gz)
	if err := os.WriteFile(secret, content, 0o644); err != nil {
		t.Fatal(err)
	}
	blob := filepath.Join("blobs", "sha256", layer.Digest.Encoded())
	cases := []struct {
		name   string
		tamper func(root string) error
		want   error
	}{
		{name: "blob linked outside", want: oci.ErrUnsafePath, tamper: func(root string) error {
			p := filepath.Join(root, blob)
			os.Remove(p)
			return os.Symlink(secret, p)
		}},
		{name: "blobs directory linked outside", want: oci.ErrUnsafePath, tamper: func(root string) error {
			p := filepath.Join(root, "blobs", "sha256")
			if err := os.Rename(p, filepath.Join(outside, "moved-"+filepath.Base(root))); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(outside, "moved-"+filepath.Base(root)), p)
		}},
		{name: "blob linked inside", tamper: func(root string) error {
			p := filepath.Join(root, blob)
			if err := os.Rename(p, filepath.Join(root, "copy")); err != nil {
				return err
			}
			return os.Symlink(filepath.Join("..", "..", "copy"), p)
		}},
		{name: "blob FIFO", want: oci.ErrNotRegularFile, tamper: func(root string) error {
			p := filepath.Join(root, blob)
			os.Remove(p)
			return syscall.Mkfifo(p, 0o644)
		}},
		{name: "index.json FIFO", want: oci.ErrNotRegularFile, tamper: func(root string) error {
			p := filepath.Join(root, "index.json")
			os.Remove(p)
			return syscall.Mkfifo(p, 0o644)
		}},
		{name: "oci-layout FIFO", want: oci.ErrNotRegularFile, tamper: func(root string) error {
			p := filepath.Join(root, "oci-layout")
			os.Remove(p)
			return syscall.Mkfifo(p, 0o644)
		}},
		{name: "oci-layout linked to a FIFO", want: oci.ErrNotRegularFile, tamper: func(root string) error {
			p := filepath.Join(root, "oci-layout")
			os.Remove(p)
			if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
				return err
			}
			return os.Symlink("fifo", p)
		}},
		{name: "blob is /dev/zero", want: oci.ErrUnsafePath, tamper: func(root string) error {
			p := filepath.Join(root, blob)
			os.Remove(p)
			return os.Symlink("/dev/zero", p)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "layout")
			writeLayout(t, b.s, root)
			if err := tc.tamper(root); err != nil {
				t.Fatal(err)
			}
			err := readPackageYAMLAt(root)
			if tc.want == nil {
				wantErr(t, err, nil)
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
}
