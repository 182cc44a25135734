package lintcmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// TestLintFS lints a package directory through an overlay of one file:
// the overlay's content is what is linted, positions are joined to the
// root, and flags that write something are refused.
func TestLintFS(t *testing.T) {
	t.Parallel()
	root := "../xpkg/testdata/build/provider-example"
	meta, err := os.ReadFile(filepath.Join(root, "crossplane.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	disk := os.DirFS(root)
	tests := []struct {
		name     string
		meta     string
		flags    []string
		wantRule string // a rule among the diagnostics; "" for none of severity error
		wantErr  error
	}{
		{name: "as on disk", meta: string(meta)},
		{name: "unsaved edit", meta: string(meta) + "  bogus: [\n", wantRule: "XP001"},
		{name: "disabled by flag", meta: string(meta) + "  bogus: [\n", flags: []string{"--disable", "XP001"}},
		{name: "output flag refused", meta: string(meta), flags: []string{"-o", "json"}, wantErr: ErrEditorFlag},
		{name: "source refused", meta: string(meta), flags: []string{"--", "x"}, wantErr: ErrEditorFlag},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := copyFS(t, disk)
			fsys["crossplane.yaml"] = &fstest.MapFile{Data: []byte(tt.meta)}
			res, err := builtinChecker.LintFS(context.Background(), root, fsys, tt.flags...)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, d := range res.Diagnostics {
				if d.RuleID == tt.wantRule {
					found = true
					if want := filepath.Join(root, "crossplane.yaml"); d.Pos.File != want {
						t.Errorf("file %q, want %q", d.Pos.File, want)
					}
				}
				if tt.wantRule == "" && d.Severity.String() == "error" {
					t.Errorf("unexpected error %v", d)
				}
			}
			if tt.wantRule != "" && !found {
				t.Errorf("no %s in %v", tt.wantRule, res.Diagnostics)
			}
		})
	}
}

// copyFS copies the regular files of fsys into a MapFS.
func copyFS(t *testing.T, fsys fs.FS) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
