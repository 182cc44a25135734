package main_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
	"github.com/xpkgkit/xpkgkit/internal/testbudget"
)

// depsArgs are the arguments that make xpkg-lint resolve a dependency
// case's graph from its directory only.
func depsArgs(c hostile.DepsCase) func(dir string) []string {
	return func(dir string) []string {
		return []string{"--deps", "--offline", "--deps-from", c.DepsDir(dir)}
	}
}

// TestHostileCLIDeps runs xpkg-lint --deps on every dependency graph case
// (hostile.DepsCases: a worst case for each graph rule) under
// /usr/bin/time -v, as TestHostileCLI runs the package cases: the exit
// status the case expects, no stack trace, one line on stderr for exit 2,
// and the peak RSS and CPU time under the same bounds. With the budgets on
// (testbudget) the cases run one at a time (each resolves a graph of up to
// 2,000 packages), two at a time otherwise. Skipped under -short and -race.
func TestHostileCLIDeps(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("graphs of thousands of packages: skipped under -short and -race (.ci/run runs this test without -race too)")
	}
	timeBin := needTool(t, "/usr/bin/time")
	bin := buildCLI(t)
	var worst cliMeasure
	var worstCPU cliMeasure
	var mu sync.Mutex
	t.Run("case", func(t *testing.T) {
		for i, c := range hostile.DepsCases() {
			t.Run(c.Name, func(t *testing.T) {
				if !costSample(i, c.Case) {
					t.Skipf("a worst case of cost: without the budgets one in %d runs (.ci/run's hostile step, %s=1, runs and measures every one; internal/hostile's TestDepsWorstCasesExercise checks every one's verdict)", costSampleEvery, testbudget.Env)
				}
				if !testbudget.On() {
					// One at a time only where the CPU time is asserted:
					// elsewhere it is logged, and the cases' verdicts do
					// not depend on what runs beside them.
					t.Parallel()
				}
				dir := t.TempDir()
				src, err := c.Write(t.Context(), dir)
				if err != nil {
					t.Fatalf("writing the case: %v", err)
				}
				var stdout, stderr bytes.Buffer
				timeOut := filepath.Join(t.TempDir(), "time.txt")
				args := append([]string{"-v", "-o", timeOut, bin}, cliArgs...)
				args = append(append(args, depsArgs(c)(dir)...), src)
				cmd := exec.CommandContext(t.Context(), timeBin, args...)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err = cmd.Run()
				code := 0
				if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatalf("running xpkg-lint: %v", err)
				}
				t.Logf("exit %d, %d bytes of output; stderr: %s", code, stdout.Len(), firstLine(stderr.String()))
				if !slices.Contains(c.ExitCodes(), code) {
					t.Errorf("exit %d, want one of %v (%s)\nstderr: %s", code, c.ExitCodes(), c.Expect, short(stderr.String()))
				}
				for _, out := range []string{stdout.String(), stderr.String()} {
					if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
						t.Errorf("stack trace in the output:\n%s", short(out))
					}
				}
				if code == 2 {
					if lines := strings.Count(strings.TrimRight(stderr.String(), "\n"), "\n") + 1; lines != 1 {
						t.Errorf("exit 2: %d lines on stderr, want one:\n%s", lines, short(stderr.String()))
					}
				}
				if c.Expect.Rule != "" && code == 1 && !strings.Contains(stdout.String(), c.Expect.Rule) {
					t.Errorf("no %s in the output", c.Expect.Rule)
				}
				tv, err := os.ReadFile(timeOut)
				if err != nil {
					t.Fatal(err)
				}
				m := cliMeasure{name: c.Name, rss: timeKiB(t, tv, maxRSSRE) << 10, cpu: timeSeconds(t, tv, userTimeRE) + timeSeconds(t, tv, sysTimeRE)}
				t.Logf("peak RSS %d MiB, CPU %v user+sys", m.rss>>20, m.cpu)
				mu.Lock()
				if m.rss > worst.rss {
					worst = m
				}
				if m.cpu > worstCPU.cpu {
					worstCPU = m
				}
				mu.Unlock()
				checkCLIBudget(t, m.rss, m.cpu)
			})
		}
	})
	t.Logf("worst of the dependency graph cases through xpkg-lint --deps: peak RSS %d MiB (%s); CPU %v user+sys (%s)", worst.rss>>20, worst.name, worstCPU.cpu, worstCPU.name)
}

// sigintDepsWork is the CPU time xpkg-lint must have spent on a
// dependency case before it is interrupted: past reading the root (a few
// hundred milliseconds for the widest), so that the signal lands while the
// graph is resolved or linted.
const sigintDepsWork = 400 * time.Millisecond

// TestHostileCLIDepsSIGINT interrupts xpkg-lint --deps on each dependency
// graph case once it has spent sigintDepsWork of CPU time, and asserts that
// it exits within sigintBound (see TestHostileCLISIGINT); without the
// budgets (testbudget), one case in sigintSampleEvery, and the latency
// logged.
func TestHostileCLIDepsSIGINT(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the CPU time of a running process from /proc (Linux)")
	}
	if testing.Short() || raceEnabled {
		t.Skip("graphs of thousands of packages: skipped under -short and -race")
	}
	bin := buildCLI(t)
	interrupted, tried := 0, 0
	for i, c := range hostile.DepsCases() {
		if !sigintSample(i) {
			continue
		}
		tried++
		if sigintCase(t, bin, c.Case, depsArgs(c), sigintDepsWork) {
			interrupted++
		}
	}
	t.Logf("%d of %d dependency cases interrupted mid-work", interrupted, tried)
	if interrupted < tried/2 || interrupted == 0 {
		t.Errorf("only %d cases interrupted mid-work: the test does not test", interrupted)
	}
}
