package lintcmd

import (
	"path/filepath"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

func TestDisplayFile(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		pkg  xpkg.Package
		pos  parser.Position
		want string
	}{
		"directory, a line": {
			pkg:  xpkg.Package{Source: "pkg", SourceKind: xpkg.SourceDirectory, Root: "pkg"},
			pos:  parser.Position{File: "crds/a.yaml", Line: 3, Column: 1},
			want: filepath.Join("pkg", "crds", "a.yaml"),
		},
		"directory, a skipped symlink at line 0": {
			pkg:  xpkg.Package{Source: "pkg", SourceKind: xpkg.SourceDirectory, Root: "pkg"},
			pos:  parser.Position{File: "crds"},
			want: filepath.Join("pkg", "crds"),
		},
		"package.yaml": {
			pkg:  xpkg.Package{Source: "dir/package.yaml", SourceKind: xpkg.SourcePackageYAML, Root: "dir"},
			pos:  parser.Position{File: "package.yaml", Line: 1, Column: 1},
			want: filepath.Join("dir", "package.yaml"),
		},
		"image, a layer at line 0": {
			pkg:  xpkg.Package{Source: "p.xpkg", SourceKind: xpkg.SourceXpkg},
			pos:  parser.Position{File: "sha256:abc"},
			want: "sha256:abc",
		},
		"image, package.yaml inside it": {
			pkg:  xpkg.Package{Source: "p.xpkg", SourceKind: xpkg.SourceXpkg},
			pos:  parser.Position{File: "package.yaml", Line: 4, Column: 1},
			want: "package.yaml",
		},
		"no file": {
			pkg:  xpkg.Package{Source: "-", SourceKind: xpkg.SourceReader},
			pos:  parser.Position{},
			want: "-",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := displayFile(&tc.pkg, linter.Diagnostic{Pos: tc.pos}); got != tc.want {
				t.Errorf("displayFile = %q, want %q", got, tc.want)
			}
		})
	}
}
