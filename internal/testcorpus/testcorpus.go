// Package testcorpus locates the corpus of real Crossplane packages that the
// project's tests and benchmarks read (shared/corpus beside the repository).
package testcorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
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
		announce()
	}
	return code
}

// announce says on the terminal of the go test run (/dev/tty), once for
// the whole run, that corpus tests were skipped: go test ./... shows a
// passing package's output (Main's line) only with -v, so without this a
// newcomer never learns that the tests of real packages did not run. Once:
// the first test binary of the run to skip creates a marker named for its
// parent, the go command, and the others find it; markers older than a
// day are removed. Without a terminal (CI, a pipe), nothing is written.
func announce() {
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer tty.Close()
	dir := filepath.Join(os.TempDir(), "xpkgkit-testcorpus")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	if old, err := os.ReadDir(dir); err == nil {
		for _, e := range old {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(os.Getppid())), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return // another package of this run said it
	}
	f.Close()
	fmt.Fprintf(tty, "testcorpus: the tests of real packages were skipped in this run (corpus not found: place shared/corpus beside the repository, or set $%s; go test -v counts them per package)\n", EnvVar)
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
