package main_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
)

// hostileRSSBound is the bound on the CLI's peak resident set on any
// hostile case, as /usr/bin/time -v reports it.
const hostileRSSBound = 256 << 20

var maxRSSRE = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)

// TestHostileCLI builds xpkg-lint and runs it on every hostile case (and
// the controls) under /usr/bin/time -v: the exit status must be one the
// case accepts, the output must hold no stack trace, an unreadable source
// (exit 2) must be one line on stderr, and the peak RSS must stay under
// hostileRSSBound. Heavy cases are skipped under -short.
func TestHostileCLI(t *testing.T) {
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		t.Skip("/usr/bin/time is not installed")
	}
	bin := filepath.Join(t.TempDir(), "xpkg-lint")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range append(hostile.Cases(), hostile.Controls()...) {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			if c.Heavy && testing.Short() {
				t.Skipf("heavy case (%d bytes on disk) skipped under -short", c.Size)
			}
			src, err := c.Write(t.Context(), t.TempDir())
			if err != nil {
				t.Fatalf("writing the case: %v", err)
			}
			var stdout, stderr bytes.Buffer
			timeOut := filepath.Join(t.TempDir(), "time.txt")
			cmd := exec.CommandContext(t.Context(), timeBin, "-v", "-o", timeOut, bin, src)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err = cmd.Run()
			code := 0
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("running xpkg-lint: %v", err)
			}
			t.Logf("exit %d; stderr: %s", code, firstLine(stderr.String()))
			if !slices.Contains(c.ExitCodes(), code) {
				t.Errorf("exit %d, want one of %v (%s)\nstderr: %s", code, c.ExitCodes(), c.Expect, short(stderr.String()))
			}
			for _, out := range []string{stdout.String(), stderr.String()} {
				if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
					t.Errorf("stack trace in the output:\n%s", short(out))
				}
			}
			if code == 2 {
				if lines := strings.Count(strings.TrimRight(stderr.String(), "\n"), "\n") + 1; lines != 1 || stderr.Len() == 0 {
					t.Errorf("unreadable source: %d lines on stderr, want exactly one:\n%s", lines, short(stderr.String()))
				}
			}
			tv, err := os.ReadFile(timeOut)
			if err != nil {
				t.Fatal(err)
			}
			m := maxRSSRE.FindSubmatch(tv)
			if m == nil {
				t.Fatalf("no maximum RSS in /usr/bin/time's report:\n%s", tv)
			}
			kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
			t.Logf("peak RSS %d MiB", kb>>10)
			if kb<<10 > hostileRSSBound {
				t.Errorf("peak RSS %d MiB, want under %d MiB", kb>>10, hostileRSSBound>>20)
			}
		})
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return short(s)
}

func short(s string) string {
	if len(s) > 400 {
		return s[:200] + " … " + s[len(s)-200:]
	}
	return s
}
