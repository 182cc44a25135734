package main_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
	"github.com/xpkgkit/xpkgkit/internal/testbudget"
)

// hangGuard is how long TestHostileFilesCLI lets one run go before it
// kills it and fails: a run that never ends (a FIFO opened blocking) is a
// defect whatever the machine's load; it is no time budget.
const hangGuard = 2 * time.Minute

// budgetsOn reports whether the hostile budgets (RSS, CPU) are asserted:
// only where the measurement is controlled, CI's hostile step, which sets
// XPKGKIT_HOSTILE_BUDGETS=1. Elsewhere they are measured and logged.
func budgetsOn() bool { return testbudget.On() }

// TestHostileFilesCLI runs xpkg-lint on each of the files cases
// (hostile.FileCases: links, FIFOs, counts far over a cap planted where the
// program reads or writes beside the package): the exit status must be
// the case's, the files outside the package hold what they held and no file
// is created through a link, no stack trace is printed, an exit 2 is one
// line on stderr, and no run hangs. Peak RSS and CPU are measured under
// /usr/bin/time when it is installed, and held to the hostile budget when
// XPKGKIT_HOSTILE_BUDGETS is set.
func TestHostileFilesCLI(t *testing.T) {
	bin := buildCLI(t)
	timeBin, _ := exec.LookPath("/usr/bin/time")
	for _, c := range hostile.FileCases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			if c.Heavy && (testing.Short() || raceEnabled) {
				t.Skipf("heavy case (%d bytes on disk) skipped under -short and -race", c.Size)
			}
			if c.NeedsFIFO && runtime.GOOS == "windows" {
				t.Skip("no FIFOs")
			}
			dir := t.TempDir()
			args, err := c.Write(t.Context(), dir)
			if err != nil {
				t.Fatalf("writing the case: %v", err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
			defer cancel()
			timeOut := filepath.Join(t.TempDir(), "time.txt")
			var cmd *exec.Cmd
			if timeBin != "" {
				cmd = exec.CommandContext(ctx, timeBin, append([]string{"-v", "-o", timeOut, bin}, args...)...)
			} else {
				cmd = exec.CommandContext(ctx, bin, args...)
			}
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err = cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("still running after %v: killed (a FIFO or a lock blocks it)\nstderr: %s", hangGuard, short(stderr.String()))
			}
			code := 0
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("running xpkg-lint: %v", err)
			}
			errText := stderr.String()
			if timeBin != "" {
				// /usr/bin/time adds "Command exited with non-zero status N".
				errText = strings.Join(slicesDeleteTime(strings.Split(errText, "\n")), "\n")
			}
			t.Logf("exit %d; stderr: %s", code, firstLine(errText))
			if code != c.Exit {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.Exit, short(stdout.String()), short(errText))
			}
			for _, out := range []string{stdout.String(), errText} {
				if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
					t.Errorf("stack trace in the output:\n%s", short(out))
				}
			}
			if code == 2 {
				if lines := strings.Count(strings.TrimRight(errText, "\n"), "\n") + 1; lines != 1 {
					t.Errorf("exit 2: %d lines on stderr, want one:\n%s", lines, short(errText))
				}
			}
			for rel, want := range c.Untouched {
				got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
				switch {
				case want == "" && err == nil:
					t.Errorf("%s was created", rel)
				case want != "" && string(got) != want:
					t.Errorf("%s holds %q, want %q (written through a link?)", rel, got, want)
				}
			}
			if timeBin == "" {
				return
			}
			tv, err := os.ReadFile(timeOut)
			if err != nil {
				t.Fatal(err)
			}
			rss, cpu := timeKiB(t, tv, maxRSSRE)<<10, timeSeconds(t, tv, userTimeRE)+timeSeconds(t, tv, sysTimeRE)
			t.Logf("peak RSS %d MiB, CPU %v user+sys", rss>>20, cpu)
			if budgetsOn() {
				if rss > hostileRSSBound {
					t.Errorf("peak RSS %d MiB, want at most %d MiB", rss>>20, hostileRSSBound>>20)
				}
				if cpu > hostileCPUBound {
					t.Errorf("CPU time %v (user+sys), want at most %v", cpu, hostileCPUBound)
				}
			}
		})
	}
}

// slicesDeleteTime drops the line /usr/bin/time adds to the program's
// stderr when it exits non-zero.
func slicesDeleteTime(lines []string) []string {
	out := lines[:0:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, "Command exited with non-zero status") {
			out = append(out, l)
		}
	}
	return out
}
