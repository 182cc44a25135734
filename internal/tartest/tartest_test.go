package tartest_test

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/tartest"
)

func TestExtract(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entries := []struct {
		hdr  tar.Header
		body string
	}{
		{tar.Header{Name: "blobs/", Typeflag: tar.TypeDir, Mode: 0o755}, ""},
		{tar.Header{Name: "blobs/sha256/abc", Typeflag: tar.TypeReg, Mode: 0o644}, "blob"}, // parent made on the way
		{tar.Header{Name: "index.json", Typeflag: tar.TypeReg, Mode: 0o644}, "{}"},
		{tar.Header{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, ""}, // skipped
	}
	for _, e := range entries {
		e.hdr.Size = int64(len(e.body))
		if err := tw.WriteHeader(&e.hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	tartest.Extract(t, &buf, dir)
	for name, want := range map[string]string{"blobs/sha256/abc": "blob", "index.json": "{}"} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "link")); !os.IsNotExist(err) {
		t.Errorf("symlink entry was extracted (Lstat error %v)", err)
	}
}

// fakeTB records a fatal failure instead of stopping the test.
type fakeTB struct {
	testing.TB
	failed bool
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(string, ...any) {
	f.failed = true
	panic(f)
}

func TestExtractRefusesEscapingNames(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"../x", "/abs"} {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644}); err != nil {
			t.Fatal(err)
		}
		tw.Close()
		tb := &fakeTB{TB: t}
		func() {
			defer func() {
				if r := recover(); r != nil && r != tb {
					panic(r)
				}
			}()
			tartest.Extract(tb, &buf, t.TempDir())
		}()
		if !tb.failed {
			t.Errorf("%q: Extract did not fail the test", name)
		}
	}
}
