package parser

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/limit"
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
	// YAML under hidden directories is not read, but not lost either:
	// crossplane xpkg build would read it.
	wantSkipped := []SkippedFile{
		{Path: ".github/workflows/c.yaml", Reason: "in a hidden directory"},
		{Path: "a/.hidden/h.yaml", Reason: "in a hidden directory"},
	}
	if diff := cmp.Diff(wantSkipped, p.Skipped); diff != "" {
		t.Errorf("Skipped (-want +got):\n%s", diff)
	}
	wantFiles := []string{"crossplane.yaml", ".dotfile.yaml", "a.yaml", "a/crossplane.yaml", "a/examples/x.yaml", "a/z.yml", "b.yaml"}
	if diff := cmp.Diff(wantFiles, p.Files); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
}

// TestParseFSAllDirectories: with WithAllDirectories, ParseFS walks hidden
// directories and the root's examples directory as Crossplane's examples
// reader does (only .git stays out), and skips nothing but links.
func TestParseFSAllDirectories(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"a.yaml":              {Data: []byte(obj("T", "a"))},
		".drafts/b.yaml":      {Data: []byte(obj("T", "b"))},
		".drafts/.deep/c.yml": {Data: []byte(obj("T", "c"))},
		"examples/d.yaml":     {Data: []byte(obj("T", "d"))},
		".git/config.yaml":    {Data: []byte(obj("T", "git"))},
		".drafts/e.txt":       {Data: []byte("not yaml\n")},
	}
	p, err := ParseFS(context.Background(), fsys, WithAllDirectories())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".drafts/.deep/c.yml", ".drafts/b.yaml", "a.yaml", "examples/d.yaml"}
	if diff := cmp.Diff(want, p.Files); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
	if len(p.Objects) != 4 || len(p.Skipped) != 0 {
		t.Errorf("%d objects, skipped %v; want 4 and none", len(p.Objects), p.Skipped)
	}
}

// TestParseFSMetaInAnyFile checks that a package directory needs no
// crossplane.yaml: the meta object is found by its group and kind, as
// crossplane xpkg build finds it.
func TestParseFSMetaInAnyFile(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"meta.yaml":   {Data: []byte(providerMeta)},
		"crds/a.yaml": {Data: []byte(obj("T", "a"))},
	}
	p, err := ParseFS(context.Background(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	if p.Pkg() == nil || p.Meta[0].Pos.File != "meta.yaml" || len(p.Objects) != 1 {
		t.Fatalf("meta %v, objects %d, errors %v", p.Meta, len(p.Objects), p.Errors)
	}
}

// TestParseFSMaxFiles checks MaxFiles at its boundary: the listing counts
// every entry (directories and hidden ones included), and one entry too
// many is a *limit.Error naming it, before anything is parsed.
func TestParseFSMaxFiles(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"crossplane.yaml":        {Data: []byte(providerMeta)},
		"crds/a.yaml":            {Data: []byte(obj("T", "a"))},
		"crds/b.yaml":            {Data: []byte(obj("T", "b"))},
		".github/ci.yaml":        {Data: []byte("on: push\n")},
		".git/objects/ab/cdef01": {Data: []byte("x")}, // not walked
	}
	// Entries: crossplane.yaml, crds, .github, .git (listed, not walked),
	// crds/a.yaml, crds/b.yaml, .github/ci.yaml.
	if _, err := ParseFS(context.Background(), fsys, WithLimits(Limits{MaxFiles: 7})); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := ParseFS(context.Background(), fsys, WithLimits(Limits{MaxFiles: 6}))
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != "MaxFiles" || le.Max != 6 || le.Pos.File == "" {
		t.Fatalf("over the limit: %v", err)
	}
	if want := "crds/b.yaml"; le.Pos.File != want {
		t.Errorf("limit passed at %q, want %q", le.Pos.File, want)
	}
}

// outsidePrefix marks a symlink target of TestParseFSSkipped that lies in
// a directory outside the package.
const outsidePrefix = "OUTSIDE/"

// TestParseFSSkipped checks that ParseFS does not follow symbolic links and
// lists in Package.Skipped those that would have mattered, while
// PackageFiles lists the same files as before.
func TestParseFSSkipped(t *testing.T) {
	t.Parallel()
	symlinked := func(path string) SkippedFile { return SkippedFile{Path: path, Reason: "symlink not followed"} }
	cases := []struct {
		name  string
		files map[string]string // regular files of the package
		links map[string]string // link path -> target (relative, or outsidePrefix + path)
		// wantObjects are the names of the objects read; wantFiles what
		// PackageFiles lists.
		wantObjects []string
		wantFiles   []string
		wantSkipped []SkippedFile
		wantNoMeta  bool
	}{
		{
			name:        "regular package",
			files:       map[string]string{"crossplane.yaml": providerMeta, "crds/a.yaml": obj("T", "a"), "README.md": "# hi\n"},
			wantObjects: []string{"a"},
			wantFiles:   []string{"crossplane.yaml", "crds/a.yaml"},
		},
		{
			name:        "symlinked yaml file",
			files:       map[string]string{"crossplane.yaml": providerMeta, "crds/a.yaml": obj("T", "a")},
			links:       map[string]string{"link.yaml": "crds/a.yaml", "crds/deep/b.yml": "../a.yaml"},
			wantObjects: []string{"a"},
			wantFiles:   []string{"crossplane.yaml", "crds/a.yaml"},
			wantSkipped: []SkippedFile{symlinked("crds/deep/b.yml"), symlinked("link.yaml")},
		},
		{
			name:        "symlinked directory",
			files:       map[string]string{"crossplane.yaml": providerMeta, "crds/a.yaml": obj("T", "a")},
			links:       map[string]string{"more": "crds", "apis/nested": "../crds"},
			wantObjects: []string{"a"},
			wantFiles:   []string{"crossplane.yaml", "crds/a.yaml"},
			wantSkipped: []SkippedFile{symlinked("apis/nested"), symlinked("more")},
		},
		{
			name:  "symlink pointing outside",
			files: map[string]string{"crossplane.yaml": providerMeta},
			links: map[string]string{
				"crds/evil.yaml": outsidePrefix + "secret.yaml",
				"outdir":         outsidePrefix + "sub",
			},
			wantFiles:   []string{"crossplane.yaml"},
			wantSkipped: []SkippedFile{symlinked("crds/evil.yaml"), symlinked("outdir")},
		},
		{
			name:  "links that cannot hold package files",
			files: map[string]string{"crossplane.yaml": providerMeta, "crds/a.yaml": obj("T", "a")},
			links: map[string]string{
				"LICENSE":       outsidePrefix + "secret.yaml",
				"dangling":      "nowhere",
				".hidden":       outsidePrefix + "sub",
				"examples":      outsidePrefix + "sub",
				"crds/.git":     outsidePrefix + "sub",
				"crds/loop":     "loop",
				"crds/notes.md": "a.yaml",
			},
			wantObjects: []string{"a"},
			wantFiles:   []string{"crossplane.yaml", "crds/a.yaml"},
		},
		{
			name:        "dangling and hidden yaml links",
			files:       map[string]string{"crossplane.yaml": providerMeta},
			links:       map[string]string{"gone.yaml": "nowhere.yaml", ".hidden.yml": "crossplane.yaml"},
			wantFiles:   []string{"crossplane.yaml"},
			wantSkipped: []SkippedFile{symlinked(".hidden.yml"), symlinked("gone.yaml")},
		},
		{
			name:        "symlinked meta file",
			files:       map[string]string{"real/crossplane.yaml": providerMeta},
			links:       map[string]string{"crossplane.yaml": "real/crossplane.yaml"},
			wantObjects: []string{"provider-test"}, // real/crossplane.yaml is an ordinary file
			wantFiles:   []string{"real/crossplane.yaml"},
			wantSkipped: []SkippedFile{symlinked("crossplane.yaml")},
			wantNoMeta:  true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, outside := t.TempDir(), t.TempDir()
			write := func(path, data string) {
				t.Helper()
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(outside, "secret.yaml"), "secret: [not yaml\n")
			write(filepath.Join(outside, "sub", "deep.yaml"), obj("T", "outside-dir"))
			for name, data := range tc.files {
				write(filepath.Join(dir, filepath.FromSlash(name)), data)
			}
			for name, target := range tc.links {
				link := filepath.Join(dir, filepath.FromSlash(name))
				if rest, ok := strings.CutPrefix(target, outsidePrefix); ok {
					target = filepath.Join(outside, filepath.FromSlash(rest))
				} else {
					target = filepath.FromSlash(target)
				}
				if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, link); err != nil {
					t.Skipf("no symbolic links here: %v", err)
				}
			}
			fsys := os.DirFS(dir)
			p, err := ParseFS(context.Background(), fsys)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Errors) != 0 {
				t.Errorf("errors %v (a link was followed?)", p.Errors)
			}
			var names []string
			for _, o := range append(append([]*Object(nil), p.Meta...), p.Objects...) {
				if o.Pos.File != MetaFile {
					names = append(names, o.ObjectMeta.Name)
				}
			}
			if diff := cmp.Diff(tc.wantObjects, names); diff != "" {
				t.Errorf("objects read (-want +got):\n%s", diff)
			}
			if hasMeta := len(p.Meta) == 1 && p.Meta[0].Pos.File == MetaFile; hasMeta == tc.wantNoMeta {
				t.Errorf("meta object read from %s: %v, want %v", MetaFile, hasMeta, !tc.wantNoMeta)
			}
			if diff := cmp.Diff(tc.wantSkipped, p.Skipped); diff != "" {
				t.Errorf("Skipped (-want +got):\n%s", diff)
			}
			files, err := PackageFiles(fsys)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantFiles, files); diff != "" {
				t.Errorf("PackageFiles (-want +got):\n%s", diff)
			}
		})
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
		var le *limit.Error
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
