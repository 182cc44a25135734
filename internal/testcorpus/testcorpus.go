// Package testcorpus locates the corpus of real Crossplane packages that the
// project's tests and benchmarks read (shared/corpus beside the repository).
package testcorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// EnvVar names the environment variable that overrides the corpus location.
const EnvVar = "XPKGKIT_CORPUS"

// Names lists the packages of the corpus, smallest first.
func Names() []string {
	return []string{
		"e2e-configuration-dependency",
		"function-go-templating",
		"configuration-aws-network",
		"platform-ref-aws",
		"configuration-aws-eks",
		"function-patch-and-transform",
		"provider-helm",
		"provider-kubernetes",
		"provider-azure",
		"provider-gcp",
		"provider-aws",
		"provider-upjet-aws-monolith",
	}
}

// Dir returns the corpus directory. When it cannot be found the test is
// skipped, unless the CI environment variable is set, where it fails: CI
// always has the corpus and must not pass by skipping.
func Dir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv(EnvVar); d != "" {
		return d
	}
	if d, ok := find(); ok {
		return d
	}
	if os.Getenv("CI") != "" {
		tb.Fatalf("corpus not found: set %s or place shared/corpus beside the repository", EnvVar)
	}
	skipped.Add(1)
	tb.Skipf("corpus not found: set %s to run this test", EnvVar)
	return ""
}

// skipped counts the tests of this test binary that Dir skipped.
var skipped atomic.Int64

// Main runs the tests of a package that reads the corpus (its TestMain
// calls it: os.Exit(testcorpus.Main(m))) and, when Dir skipped any for
// want of the corpus, says once, at the end, how many and why. go test
// ./... shows a passing package's output only with -v: go test -v ./... |
// grep testcorpus: lists them.
func Main(m *testing.M) int {
	code := m.Run()
	if n := skipped.Load(); n > 0 {
		fmt.Printf("testcorpus: %d tests skipped: the corpus of real packages was not found (../shared/corpus beside the repository, or $%s)\n", n, EnvVar)
	}
	return code
}

// Path returns the path of name inside the corpus (see Dir).
func Path(tb testing.TB, name string) string {
	tb.Helper()
	return filepath.Join(Dir(tb), name)
}

func find() (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			c := filepath.Join(d, "..", "shared", "corpus")
			if fi, err := os.Stat(c); err == nil && fi.IsDir() {
				return filepath.Clean(c), true
			}
			return "", false
		}
		p := filepath.Dir(d)
		if p == d {
			return "", false
		}
		d = p
	}
}
