package xpkg

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/parser"
)

// TestJoinMatchesCorpus checks the file listing and joining of Build,
// without parsing, on every corpus package that has sources: the result is
// byte for byte the corpus's package.yaml.
func TestJoinMatchesCorpus(t *testing.T) {
	t.Parallel()
	for _, name := range testcorpus.Names() {
		src := filepath.Join(testcorpus.Path(t, name), "src")
		if _, err := os.Stat(src); err != nil {
			continue // the monolith has no src
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(filepath.Join(testcorpus.Path(t, name), "package.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			fsys := os.DirFS(src)
			files, err := parser.PackageFiles(fsys)
			if err != nil {
				t.Fatal(err)
			}
			got, err := joinFiles(t.Context(), fsys, files)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("joined stream differs from the corpus's package.yaml (%d vs %d bytes)", len(got), len(want))
			}
		})
	}
}
