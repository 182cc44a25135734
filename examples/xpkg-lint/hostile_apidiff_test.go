package main_test

import (
	"bytes"
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

// TestHostileAPIDiffCLI runs xpkg-lint --against OLD NEW on each worst
// case of the API diff (hostile.APIDiffCases) under /usr/bin/time -v: both
// packages are open at once, and the peak RSS and the CPU time must stay
// under hostileRSSBound and hostileCPUBound, the exit status be 0 or 1
// with no stack trace, and each API change rule keep at most the default
// cap of diagnostics (linter.DefaultMaxDiagnostics) plus the one that says
// how many were left out. Skipped under -short and -race (heavy cases).
func TestHostileAPIDiffCLI(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("4 MiB package pairs: skipped under -short and -race (.ci/run runs this test without -race too)")
	}
	timeBin := needTool(t, "/usr/bin/time")
	bin := buildCLI(t)
	for _, c := range hostile.APIDiffCases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			oldSrc, err := c.Old.Write(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			newSrc, err := c.New.Write(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			timeOut := filepath.Join(t.TempDir(), "time.txt")
			cmd := exec.CommandContext(t.Context(), timeBin, "-v", "-o", timeOut, bin, "-o", "github", "--against", oldSrc, "--package-version", "v1.0.1", newSrc)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err = cmd.Run()
			code := 0
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("running xpkg-lint: %v", err)
			}
			if code != 0 && code != 1 {
				t.Errorf("exit %d, want 0 or 1\nstderr: %s", code, short(stderr.String()))
			}
			if out := stdout.String() + stderr.String(); strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
				t.Errorf("stack trace in the output:\n%s", short(out))
			}
			per := map[string]int{}
			for _, line := range strings.Split(stdout.String(), "\n") {
				if i := strings.Index(line, "title=XP7"); i >= 0 {
					per[line[i+6:i+11]]++
				}
			}
			if len(per) == 0 {
				t.Errorf("no API change reported:\n%s", short(stdout.String()))
			}
			for id, n := range per {
				if n > 1001 {
					t.Errorf("%s: %d diagnostics, want at most 1001", id, n)
				}
			}
			tv, err := os.ReadFile(timeOut)
			if err != nil {
				t.Fatal(err)
			}
			rss, cpu := timeKiB(t, tv, maxRSSRE)<<10, timeSeconds(t, tv, userTimeRE)+timeSeconds(t, tv, sysTimeRE)
			t.Logf("exit %d; %v diagnostics by rule; peak RSS %d MiB, CPU %v user+sys", code, per, rss>>20, cpu)
			checkCLIBudget(t, rss, cpu)
		})
	}
}

// TestHostileAPIDiffCLISIGINT interrupts xpkg-lint --against on the
// longest API diff worst case (apidiff-cost-renamed-definitions, about 3 s
// of CPU, of which the last half is the diff) once it has spent 2 s of CPU
// time, and asserts that it exits within sigintBound, with no stack trace.
func TestHostileAPIDiffCLISIGINT(t *testing.T) {
	if testing.Short() || raceEnabled || runtime.GOOS != "linux" {
		t.Skip("4 MiB package pairs, CPU time read from /proc: Linux, without -short and -race")
	}
	bin := buildCLI(t)
	for _, c := range hostile.APIDiffCases() {
		if c.Name != "apidiff-cost-renamed-definitions" {
			continue
		}
		dir := t.TempDir()
		oldSrc, err := c.Old.Write(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		newSrc, err := c.New.Write(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, "--against", oldSrc, newSrc)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case err := <-done:
				t.Skipf("finished before spending 2s of CPU (%v): not interrupted", err)
			case <-tick.C:
			}
			if cpu, ok := procCPU(cmd.Process.Pid); !ok || cpu < 2*time.Second {
				continue
			}
			sent := time.Now()
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatalf("sending SIGINT: %v", err)
			}
			select {
			case err := <-done:
				took := time.Since(sent)
				t.Logf("exit %v %v after SIGINT: %s", err, took.Round(time.Millisecond), firstLine(stderr.String()))
				if took > sigintBound {
					testbudget.Errorf(t, "exited %v after SIGINT, want within %v", took.Round(time.Millisecond), sigintBound)
				}
				if out := stdout.String() + stderr.String(); strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
					t.Errorf("stack trace in the output:\n%s", short(out))
				}
			case <-time.After(sigintBound + 30*time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Errorf("still running %v after SIGINT", sigintBound+30*time.Second)
			}
			return
		}
	}
	t.Fatal("no apidiff-cost-renamed-definitions case")
}
