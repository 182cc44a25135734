package main_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/internal/target"
	"github.com/xpkgkit/xpkgkit/internal/testbudget"
)

// The budget for the CLI on any hostile case, with the default
// limits, as /usr/bin/time -v reports it: peak resident set and CPU time
// (user plus system, all threads).
const (
	hostileRSSBound = 256 << 20
	hostileCPUBound = 10 * time.Second
	// sigintBound is how long xpkg-lint may take to exit once sent SIGINT.
	sigintBound = time.Second
)

var (
	maxRSSRE   = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)
	userTimeRE = regexp.MustCompile(`User time \(seconds\): ([0-9.]+)`)
	sysTimeRE  = regexp.MustCompile(`System time \(seconds\): ([0-9.]+)`)
)

// needTool returns the path of a tool the test needs. When it is missing
// the test is skipped, except in CI (CI set), where it fails: .ci/run
// installs what the tests need, and they must not pass by skipping.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed (CI is set: .ci/run must install it): %v", name, err)
	}
	t.Skipf("%s is not installed: %v", name, err)
	return ""
}

// buildCLI builds xpkg-lint (without the race detector, whatever the test's
// flags: the budget is the program's, not the detector's) and returns its
// path.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "xpkg-lint")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// raceSampleEvery is how many hostile cases there are for each one the CLI
// tests run under the race detector (raceSample).
const raceSampleEvery = 8

// raceSample reports whether the CLI tests run the i-th hostile case: every
// case without the race detector, one in raceSampleEvery under it. The
// CLI they run is built without it whatever the test's flags, so under
// -race the cases only repeat, three times slower beside the race-built
// tests of the other packages, what .ci/run's run without -race measures
// of every case.
func raceSample(i int) bool { return !raceEnabled || i%raceSampleEvery == 0 }

// costSampleEvery is how many worst cases of cost ("*-cost-*": each built
// to cost the CLI seconds of CPU) and heavy cases TestHostileCLI (and
// TestHostileCLIDeps) has for each one it runs when the budgets are off
// (costSample).
const costSampleEvery = 4

// costSample reports whether TestHostileCLI runs the i-th case: every case
// with the budgets on (testbudget: .ci/run's hostile step, which measures
// each), and without them every case but the worst cases of cost and the
// heavy cases, one in costSampleEvery of those. Those cases exist to be
// measured, and took most of the package's ten minutes of an ordinary go
// test ./... on a loaded 2-core machine; their verdicts and typed errors
// are checked on every go test ./... by xpkg's TestHostile, which runs
// every case (and the dependency cases' by internal/hostile's
// TestDepsWorstCasesExercise).
func costSample(i int, c hostile.Case) bool {
	return testbudget.On() || !c.Heavy && !strings.Contains(c.Name, "-cost-") || i%costSampleEvery == 0
}

// cliArgs are the arguments xpkg-lint gets before the source: a target
// Crossplane version, so that every built-in rule runs (XP203 needs one),
// and the newest stable release's, the target users run and xpkg-lint's
// default: its rules and its semver engine are what a user's lint costs
// (at v2.0 the cases missed that v2.3's semver module formats an error per
// failed comparison: deps-cost-version-choice took 35 s of CPU by default,
// 2.4 s at v2.0). xpkg's TestHostile lints at v2.0, so the suite measures
// the older rules and engine too. --no-verdict-cache: each case is
// measured cold however often the tests lint it (TestHostileCLISIGINT
// must find the large cases at work), and nothing is written to the
// user's cache directory; TestHostileCLICache measures the verdict cache.
var cliArgs = []string{"--crossplane-version", target.Default().Patch, "--no-verdict-cache"}

// cliMeasure is what TestHostileCLI measured of one case.
type cliMeasure struct {
	name string
	rss  int64 // bytes
	cpu  time.Duration
}

// TestHostileCLI builds xpkg-lint and runs it on every hostile case (and
// the controls) under /usr/bin/time -v: the exit status must be one the
// case accepts, the output must hold no stack trace, an unreadable source
// (exit 2) must be one line on stderr, and the peak RSS and the CPU time
// (user plus system) must stay under hostileRSSBound and hostileCPUBound.
// Heavy cases are skipped under -short and -race. The worst case of each measure is
// logged at the end. Every case's output must be safe for a terminal
// (checkTerminalText).
func TestHostileCLI(t *testing.T) {
	timeBin := needTool(t, "/usr/bin/time")
	bin := buildCLI(t)
	var (
		mu       sync.Mutex
		measured []cliMeasure
	)
	t.Run("case", func(t *testing.T) {
		for i, c := range append(hostile.Cases(), hostile.Controls()...) {
			t.Run(c.Name, func(t *testing.T) {
				t.Parallel()
				if c.Heavy && (testing.Short() || raceEnabled) {
					t.Skipf("heavy case (%d bytes on disk) skipped under -short and -race (.ci/run runs this test without -race too)", c.Size)
				}
				if !raceSample(i) {
					t.Skipf("under -race one case in %d runs: the CLI is built without the race detector (.ci/run runs every case without -race)", raceSampleEvery)
				}
				if !costSample(i, c) {
					t.Skipf("a worst case of cost: without the budgets one in %d runs (.ci/run's hostile step, %s=1, runs and measures every one; xpkg's TestHostile checks every case's verdict)", costSampleEvery, testbudget.Env)
				}
				src, err := c.Write(t.Context(), t.TempDir())
				if err != nil {
					t.Fatalf("writing the case: %v", err)
				}
				var stdout, stderr bytes.Buffer
				timeOut := filepath.Join(t.TempDir(), "time.txt")
				args := append([]string{"-v", "-o", timeOut, bin}, cliArgs...)
				cmd := exec.CommandContext(t.Context(), timeBin, append(args, src)...)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err = cmd.Run()
				code := 0
				if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatalf("running xpkg-lint: %v", err)
				}
				t.Logf("exit %d; stderr: %s", code, firstLine(stderr.String()))
				if !slices.Contains(c.ExitCodesAt(target.Default().Line), code) {
					t.Errorf("exit %d, want one of %v (%s)\nstderr: %s", code, c.ExitCodesAt(target.Default().Line), c.Expect, short(stderr.String()))
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
				checkTerminalText(t, src, stdout.String(), stderr.String())
				tv, err := os.ReadFile(timeOut)
				if err != nil {
					t.Fatal(err)
				}
				m := cliMeasure{name: c.Name, rss: timeKiB(t, tv, maxRSSRE) << 10, cpu: timeSeconds(t, tv, userTimeRE) + timeSeconds(t, tv, sysTimeRE)}
				mu.Lock()
				measured = append(measured, m)
				mu.Unlock()
				t.Logf("peak RSS %d MiB, CPU %v user+sys", m.rss>>20, m.cpu)
				checkCLIBudget(t, m.rss, m.cpu)
			})
		}
	})
	if len(measured) > 0 {
		r, c := measured[0], measured[0]
		for _, m := range measured[1:] {
			if m.rss > r.rss {
				r = m
			}
			if m.cpu > c.cpu {
				c = m
			}
		}
		t.Logf("worst of %d cases through xpkg-lint: peak RSS %d MiB (%s); CPU %v user+sys (%s)", len(measured), r.rss>>20, r.name, c.cpu, c.name)
	}
}

// checkCLIBudget checks one run's peak RSS and CPU time (user plus
// system) against hostileRSSBound and hostileCPUBound: asserted only with
// the budgets on (testbudget), logged otherwise.
func checkCLIBudget(t *testing.T, rss int64, cpu time.Duration) {
	t.Helper()
	if rss > hostileRSSBound {
		testbudget.Errorf(t, "peak RSS %d MiB, want at most %d MiB", rss>>20, hostileRSSBound>>20)
	}
	if cpu > hostileCPUBound {
		testbudget.Errorf(t, "CPU time %v (user+sys), want at most %v", cpu, hostileCPUBound)
	}
}

// diagnosticLineRE matches a line of the text format that reports a
// finding: "WHERE: SEVERITY ID NAME: message".
var diagnosticLineRE = regexp.MustCompile(`^\S.*?: (error|warning|info) [A-Z]+[0-9]+ [a-z0-9-]+: `)

// summaryLineRE matches the text format's summary line.
var summaryLineRE = regexp.MustCompile(`^[0-9]+ sources?: [0-9]+ errors?, [0-9]+ warnings?, [0-9]+ info`)

// checkTerminalText fails t unless xpkg-lint's text output on src is safe
// for a terminal and a CI log: no control character but the newline that
// ends a line, nor any other rune a terminal or a viewer acts on
// (safetext.CheckTerminal); every line on stdout a source's header, a
// finding, a blank line or the summary, and none that starts with the
// file the hostile text cases forge lines for (hostile.ForgedFile); every
// line on stderr one of xpkg-lint's own ("xpkg-lint: ...").
func checkTerminalText(t *testing.T, src, stdout, stderr string) {
	t.Helper()
	for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if err := safetext.CheckTerminal(out); err != nil {
			t.Errorf("%s unsafe for a terminal: %v\n%q", name, err, short(out))
		}
	}
	for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, hostile.ForgedFile):
			t.Errorf("a forged line on stdout: %q", short(l))
		case l == "", strings.HasPrefix(l, src), summaryLineRE.MatchString(l), diagnosticLineRE.MatchString(l):
		default:
			t.Errorf("stdout: a line that is no header, finding or summary: %q", short(l))
		}
	}
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "xpkg-lint: ") {
			t.Errorf("stderr: a line that is not xpkg-lint's: %q", short(l))
		}
	}
}

// TestHostileCLIText runs xpkg-lint on the hostile text cases
// (hostile.ForgedFile's, "text-*") in the text and GitHub formats, colour
// forced off and on (a terminal is what they attack): each finding is one
// line, no line is forged and no control character reaches the output, and
// each value the case plants is printed, escaped.
func TestHostileCLIText(t *testing.T) {
	bin := buildCLI(t)
	n := 0
	for _, c := range hostile.Cases() {
		if !strings.HasPrefix(c.Name, "text-") {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			src, err := c.Write(t.Context(), t.TempDir())
			if errors.Is(err, errors.ErrUnsupported) {
				t.Skipf("not here: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"text", "github"} {
				var stdout, stderr bytes.Buffer
				cmd := exec.CommandContext(t.Context(), bin, append(append([]string{"-o", format}, cliArgs...), src)...)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 1 {
					t.Fatalf("-o %s: %v, want exit 1\n%s", format, err, short(stderr.String()))
				}
				out := stdout.String()
				if !strings.Contains(out, hostile.ForgedFile) || !strings.Contains(out, `\x1b`) {
					t.Errorf("-o %s: the planted value is not in the output, escaped:\n%s", format, short(out))
				}
				if format == "text" {
					checkTerminalText(t, src, out, stderr.String())
					continue
				}
				if err := safetext.CheckTerminal(out + stderr.String()); err != nil {
					t.Errorf("-o github: %v\n%q", err, short(out))
				}
				for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
					if strings.HasPrefix(l, "::error file="+hostile.ForgedFile) || !strings.HasPrefix(l, "::") && !strings.HasPrefix(l, "xpkg-lint: ") {
						t.Errorf("-o github: a forged line: %q", short(l))
					}
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no text-* case in hostile.Cases()")
	}
}

// timeKiB returns the integer /usr/bin/time -v reports on the line re
// matches.
func timeKiB(t *testing.T, report []byte, re *regexp.Regexp) int64 {
	t.Helper()
	m := re.FindSubmatch(report)
	if m == nil {
		t.Fatalf("no %s in /usr/bin/time's report:\n%s", re, report)
	}
	n, err := strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// timeSeconds returns the seconds /usr/bin/time -v reports on the line re
// matches.
func timeSeconds(t *testing.T, report []byte, re *regexp.Regexp) time.Duration {
	t.Helper()
	m := re.FindSubmatch(report)
	if m == nil {
		t.Fatalf("no %s in /usr/bin/time's report:\n%s", re, report)
	}
	d, err := time.ParseDuration(string(m[1]) + "s")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sigintWork is the CPU time xpkg-lint must have spent on a case before
// TestHostileCLISIGINT interrupts it: well past its start-up (a few
// milliseconds), so the signal lands in the middle of the work.
const sigintWork = 100 * time.Millisecond

// TestHostileCLISIGINT runs xpkg-lint on every hostile case, sends it
// SIGINT once it has spent sigintWork of CPU time on the case, and asserts
// that it exits within sigintBound of the signal, with no stack trace. A
// case that xpkg-lint finishes before spending sigintWork is too small to
// interrupt (logged, not counted); the test fails unless most of the large
// cases (lintable in more than a second, such as the lint worst cases and
// the bombs) were interrupted. Every large case runs, and one small case
// in four: the others would be interrupted in the same opening steps;
// without the budgets (testbudget), one in sigintSampleEvery of those. The
// cases run one at a time, so that each one's exit is timed on an idle
// machine as far as the test can tell.
// Linux only: the CPU time is read from /proc.
func TestHostileCLISIGINT(t *testing.T) {
	if runtime.GOOS != "linux" {
		if os.Getenv("CI") != "" {
			t.Fatalf("the SIGINT test reads /proc: CI runs on Linux")
		}
		t.Skip("reads the CPU time of a running process from /proc (Linux)")
	}
	bin := buildCLI(t)
	interrupted, large := 0, 0
	nLarge := 0
	for i, c := range hostile.Cases() {
		if c.Heavy && (testing.Short() || raceEnabled) || !raceSample(i) {
			continue // as TestHostileCLI: heavy cases are skipped under -short and -race, and most others under -race
		}
		isLarge := c.Heavy || c.Size >= 256<<10 || strings.HasPrefix(c.Name, "lint-cost-")
		if isLarge {
			nLarge++
			if !sigintSample(nLarge - 1) {
				continue
			}
			large++
		} else if i%4 != 0 || !sigintSample(i/4) {
			continue // one small case in four: each is interrupted while it opens or starts to lint, as the others are
		}
		if sigintCase(t, bin, c, nil, sigintWork) {
			interrupted++
		} else if isLarge {
			t.Logf("%s: finished before spending %v of CPU: not interrupted", c.Name, sigintWork)
		}
	}
	t.Logf("%d cases interrupted mid-work (%d large cases)", interrupted, large)
	if interrupted < large/2 || interrupted == 0 {
		t.Errorf("only %d cases interrupted mid-work, of %d large ones: the test does not test", interrupted, large)
	}
}

// sigintSampleEvery is how many cases the SIGINT tests have for each one
// they interrupt when the budgets are off (sigintSample).
const sigintSampleEvery = 4

// sigintSample reports whether a SIGINT test interrupts its i-th case:
// every case with the budgets on (testbudget: .ci/run's hostile step, where
// the latency is asserted), one in sigintSampleEvery otherwise. Without the
// budgets the test asserts only that xpkg-lint exits on SIGINT, with no
// stack trace: the cases run one at a time, and all of them took minutes of
// an ordinary go test ./... on a loaded machine to measure nothing.
func sigintSample(i int) bool { return testbudget.On() || i%sigintSampleEvery == 0 }

// sigintCase writes c, runs xpkg-lint on it and interrupts it once it has
// spent work of CPU time; it reports whether it did. extra, when not
// nil, gives the arguments put before the source besides cliArgs, from the
// directory the case was written in.
func sigintCase(t *testing.T, bin string, c hostile.Case, extra func(dir string) []string, work time.Duration) bool {
	t.Helper()
	dir := t.TempDir()
	src, err := c.Write(t.Context(), dir)
	if err != nil {
		t.Fatalf("%s: writing the case: %v", c.Name, err)
	}
	defer os.RemoveAll(dir)
	var stdout, stderr bytes.Buffer
	args := append([]string(nil), cliArgs...)
	if extra != nil {
		args = append(args, extra(dir)...)
	}
	cmd := exec.Command(bin, append(args, src)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return false // finished before it could be interrupted
		case <-tick.C:
		}
		cpu, ok := procCPU(cmd.Process.Pid)
		if !ok || cpu < work {
			continue
		}
		sent := time.Now()
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			if errors.Is(err, os.ErrProcessDone) {
				<-done
				return false // it finished between the CPU reading and the signal
			}
			t.Errorf("%s: sending SIGINT: %v", c.Name, err)
		}
		select {
		case err := <-done:
			took := time.Since(sent)
			code := 0
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			t.Logf("%s: interrupted after %v of CPU: exit %d %v later: %s", c.Name, cpu, code, took.Round(time.Millisecond), firstLine(stderr.String()))
			if took > sigintBound {
				testbudget.Errorf(t, "%s: exited %v after SIGINT, want within %v", c.Name, took.Round(time.Millisecond), sigintBound)
			}
			for _, out := range []string{stdout.String(), stderr.String()} {
				if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
					t.Errorf("%s: stack trace in the output:\n%s", c.Name, short(out))
				}
			}
		case <-time.After(sigintBound + 30*time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("%s: still running %v after SIGINT", c.Name, sigintBound+30*time.Second)
		}
		return true
	}
}

// procCPU returns the CPU time (user plus system) a running process has
// spent, from /proc/PID/stat.
func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields counted from 3 follow the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const ticks = 100 // USER_HZ: 100 on every Linux architecture Go supports
	return time.Duration(utime+stime) * time.Second / ticks, true
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
