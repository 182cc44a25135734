package parser

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func obj(kind, name string) string {
	return "apiVersion: example.org/v1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n"
}

func TestParseFS(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"crossplane.yaml":          {Data: []byte(providerMeta)},
		"b.yaml":                   {Data: []byte(obj("T", "b"))},
		"a/z.yml":                  {Data: []byte("# comment\n" + obj("T", "a-z"))},
		"a.yaml":                   {Data: []byte(obj("T", "a") + "---\n" + obj("T", "a2"))},
		"a/crossplane.yaml":        {Data: []byte(obj("T", "nested-crossplane"))},
		"a/examples/x.yaml":        {Data: []byte(obj("T", "nested-example"))},
		"examples/x.yaml":          {Data: []byte(obj("T", "example"))},
		".github/workflows/c.yaml": {Data: []byte("on: push\n")},
		"a/.hidden/h.yaml":         {Data: []byte(obj("T", "hidden"))},
		".dotfile.yaml":            {Data: []byte(obj("T", "dotfile"))},
		"README.md":                {Data: []byte("# not yaml\n")},
		"c.json":                   {Data: []byte("{}")},
	}
	p, err := ParseFS(context.Background(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Errors) != 0 || p.Pkg() == nil || p.Meta[0].Pos.File != "crossplane.yaml" {
		t.Fatalf("errors %v, meta %v", p.Errors, p.Meta)
	}
	type at struct {
		Name, File string
		Doc, Line  int
	}
	var got []at
	for _, o := range p.Objects {
		got = append(got, at{o.ObjectMeta.Name, o.Pos.File, o.Pos.Document, o.Pos.Line})
	}
	// Lexical order of paths: "a.yaml" < "a/..." < "b.yaml".
	want := []at{
		{"dotfile", ".dotfile.yaml", 0, 1},
		{"a", "a.yaml", 0, 1},
		{"a2", "a.yaml", 1, 6},
		{"nested-crossplane", "a/crossplane.yaml", 0, 1},
		{"nested-example", "a/examples/x.yaml", 0, 1},
		{"a-z", "a/z.yml", 0, 2},
		{"b", "b.yaml", 0, 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
}

func TestParseFSNoFollowSymlinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "crossplane.yaml"), providerMeta)
	write(filepath.Join(outside, "secret.yaml"), obj("T", "outside"))
	write(filepath.Join(outside, "sub", "deep.yaml"), obj("T", "outside-dir"))
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Symlink(filepath.Join(outside, "sub"), filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	p, err := ParseFS(context.Background(), os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Objects) != 0 || len(p.Meta) != 1 {
		t.Errorf("followed a symbolic link: %d objects", len(p.Objects))
	}
}

func TestParseFSErrors(t *testing.T) {
	t.Parallel()
	t.Run("total bytes across files", func(t *testing.T) {
		t.Parallel()
		lim := DefaultLimits()
		lim.MaxTotalBytes = int64(len(providerMeta)) + 10
		fsys := fstest.MapFS{"crossplane.yaml": {Data: []byte(providerMeta)}, "x.yaml": {Data: []byte(obj("T", "x"))}}
		_, err := ParseFS(context.Background(), fsys, WithLimits(lim))
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != "MaxTotalBytes" || le.Pos.File != "x.yaml" {
			t.Fatalf("err = %v; want MaxTotalBytes in x.yaml", err)
		}
	})
	t.Run("bad document names its file", func(t *testing.T) {
		t.Parallel()
		fsys := fstest.MapFS{"crossplane.yaml": {Data: []byte(providerMeta)}, "d/x.yaml": {Data: []byte("a: [\n")}}
		p, err := ParseFS(context.Background(), fsys)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Errors) != 1 || p.Errors[0].Pos.File != "d/x.yaml" || !errors.Is(p.Errors[0], ErrSyntax) {
			t.Fatalf("errors = %v", p.Errors)
		}
	})
	t.Run("unreadable tree", func(t *testing.T) {
		t.Parallel()
		_, err := ParseFS(context.Background(), badFS{})
		if err == nil {
			t.Fatal("no error")
		}
	})
}

type badFS struct{}

func (badFS) Open(string) (fs.File, error) { return nil, fs.ErrPermission }
