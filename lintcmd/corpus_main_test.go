package lintcmd

import (
	"os"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
)

// TestMain points the user cache directory (where xpkg-lint keeps its
// blob and verdict caches) at a temporary directory, so that the tests
// never read or write the user's, then runs the tests and says once how
// many corpus tests were skipped (testcorpus.Main).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "xpkgkit-checker-test-cache")
	if err != nil {
		os.Exit(2)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := testcorpus.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}
