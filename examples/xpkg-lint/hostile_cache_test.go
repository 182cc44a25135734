package main_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
	"github.com/xpkgkit/xpkgkit/internal/target"
	"github.com/xpkgkit/xpkgkit/internal/testbudget"
)

// cacheRunTimeout stops a run of xpkg-lint that blocks (on a FIFO of the
// cache): far past any case's CPU bound.
const cacheRunTimeout = 2 * time.Minute

// TestHostileCLICache runs xpkg-lint twice on every verdict cache case
// (hostile.CacheCases), with its cache directory, under /usr/bin/time -v:
// the first run against the cache the case wrote, the second after the
// case's Poison rewrote what the first stored. Both must give the status
// the case expects, the same output byte for byte (a bad entry is a
// miss, never a verdict), no stack trace, and stay under the hostile
// bounds of peak RSS and CPU time. Skipped under -short and -race.
func TestHostileCLICache(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("skipped under -short and -race (.ci/run runs this test without -race)")
	}
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs")
	}
	timeBin := needTool(t, "/usr/bin/time")
	bin := buildCLI(t)
	var worst, worstCPU cliMeasure
	for _, c := range hostile.CacheCases() {
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			src, err := c.Write(t.Context(), dir)
			if err != nil {
				t.Fatalf("writing the case: %v", err)
			}
			var outs []string
			for run := range 2 {
				if run == 1 && c.Poison != nil {
					if err := c.Poison(c.VerdictsDir(dir)); err != nil {
						t.Fatalf("poisoning the cache: %v", err)
					}
				}
				ctx, cancel := context.WithTimeout(t.Context(), cacheRunTimeout)
				var stdout, stderr bytes.Buffer
				timeOut := filepath.Join(t.TempDir(), "time.txt")
				args := []string{"-v", "-o", timeOut, bin, "--crossplane-version", target.Default().Patch, "-o", "json", "--cache-dir", c.CacheDir(dir), src}
				cmd := exec.CommandContext(ctx, timeBin, args...)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				blocked := errors.Is(ctx.Err(), context.DeadlineExceeded)
				cancel()
				if blocked {
					t.Fatalf("run %d: no answer in %v: blocked on the cache", run+1, cacheRunTimeout)
				}
				code := 0
				if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatalf("running xpkg-lint: %v", err)
				}
				if !slices.Contains(c.ExitCodesAt(target.Default().Line), code) {
					t.Errorf("run %d: exit %d, want one of %v (%s)\nstderr: %s", run+1, code, c.ExitCodesAt(target.Default().Line), c.Expect, short(stderr.String()))
				}
				if stderr.Len() > 0 {
					t.Errorf("run %d: stderr: %s", run+1, short(stderr.String()))
				}
				outs = append(outs, stdout.String())
				tv, err := os.ReadFile(timeOut)
				if err != nil {
					t.Fatal(err)
				}
				m := cliMeasure{name: c.Name, rss: timeKiB(t, tv, maxRSSRE) << 10, cpu: timeSeconds(t, tv, userTimeRE) + timeSeconds(t, tv, sysTimeRE)}
				t.Logf("run %d: exit %d, peak RSS %d MiB, CPU %v user+sys", run+1, code, m.rss>>20, m.cpu)
				if m.rss > hostileRSSBound {
					testbudget.Errorf(t, "run %d: peak RSS %d MiB, want at most %d MiB", run+1, m.rss>>20, hostileRSSBound>>20)
				}
				if m.cpu > hostileCPUBound {
					testbudget.Errorf(t, "run %d: CPU time %v (user+sys), want at most %v", run+1, m.cpu, hostileCPUBound)
				}
				if m.rss > worst.rss {
					worst = m
				}
				if m.cpu > worstCPU.cpu {
					worstCPU = m
				}
			}
			if outs[0] != outs[1] {
				t.Errorf("the second run reports otherwise than the first:\nfirst:\n%s\nsecond:\n%s", short(outs[0]), short(outs[1]))
			}
		})
	}
	t.Logf("worst of the cache cases: peak RSS %d MiB (%s); CPU %v user+sys (%s)", worst.rss>>20, worst.name, worstCPU.cpu, worstCPU.name)
}
