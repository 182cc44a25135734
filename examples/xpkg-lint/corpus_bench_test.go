package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
)

// BenchmarkCLICorpus runs the xpkg-lint binary on each corpus .xpkg, as a
// user does: process start, open, parse and lint. It reports the process's
// CPU time besides wall time; compare two builds with benchstat, e.g.
//
//	XPKG_LINT=/tmp/old/xpkg-lint go test -run '^$' -bench CLICorpus -count 10 ./examples/xpkg-lint > old.txt
//	go test -run '^$' -bench CLICorpus -count 10 ./examples/xpkg-lint > new.txt
//	benchstat old.txt new.txt
//
// XPKG_LINT names a binary to run instead of building this one.
func BenchmarkCLICorpus(b *testing.B) {
	bin := benchCLI(b)
	for _, name := range testcorpus.Names() {
		src := filepath.Join(testcorpus.Dir(b), name+".xpkg")
		b.Run(name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(bin, src)
				if err := cmd.Run(); err != nil {
					if _, ok := err.(*exec.ExitError); !ok {
						b.Fatal(err)
					}
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

// benchCLI returns $XPKG_LINT, or a binary built from this directory.
func benchCLI(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("XPKG_LINT"); p != "" {
		return p
	}
	bin := filepath.Join(b.TempDir(), "xpkg-lint")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
