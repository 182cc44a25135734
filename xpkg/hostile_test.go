package xpkg_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/testbudget"
	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// The budget of every hostile case (and control), as the issue sets it
// for the CLI: measured on a child process that opens and lints the one
// case (see TestHostile), with the default limits.
const (
	// hostileRSSBound bounds the child's peak resident set (VmHWM: the
	// whole process, runtime and test binary included).
	hostileRSSBound = 256 << 20
	// hostileHeapBound bounds the peak heap in use (HeapInuse, sampled
	// every 2 ms in the child), a part of the resident set that the race
	// detector's shadow memory does not inflate.
	hostileHeapBound = 256 << 20
	// hostileCPUBound bounds the child's CPU time, user plus system, all
	// threads: what the case costs a registry that reads it, however many
	// cores it has.
	hostileCPUBound = 10 * time.Second
	// raceCPUFactor scales hostileCPUBound under the race detector, which
	// makes the work 2 to 20 times slower; the race detector's shadow
	// memory also puts the resident set out of reach of hostileRSSBound,
	// so under -race only the heap is bounded. TestHostileCLI holds the
	// exact bounds on a normal build of xpkg-lint either way.
	raceCPUFactor = 10
)

// hostileOptions are the options of Open in TestHostile: the default
// limits, except under the race detector, which makes the work a limit
// allows 10 to 20 times slower. There the bombs stop at tighter limits (the
// same limits, so the same outcome classes): 128 MiB per layer, 64 MiB per
// file, 10 000 documents.
func hostileOptions() []xpkg.Option {
	if !raceEnabled {
		return nil
	}
	var l xpkg.Limits // zero fields take their defaults
	l.OCI.MaxLayerBytes = 128 << 20
	l.OCI.MaxImageBytes = 256 << 20
	l.OCI.MaxFileBytes = 64 << 20
	l.Parser.MaxDocuments = 10_000
	return []xpkg.Option{xpkg.WithLimits(l)}
}

// raceTightLimit reports whether got is a limit that hostileOptions
// tightens under the race detector (documents, decompressed bytes), which
// a case built to stay within the default limits may hit there.
func raceTightLimit(got hostile.Outcome) bool {
	if !raceEnabled || got.Class != hostile.ClassLimitExceeded {
		return false
	}
	return got.Limit == hostile.LimitDocumentCount || got.Limit == hostile.LimitDecompressedSize
}

// hostileDeadline is how long one case may take before it counts as a hang.
func hostileDeadline() time.Duration {
	if raceEnabled {
		return 90 * time.Second
	}
	return 30 * time.Second
}

// hostileSourceEnv names the environment variable that makes the test
// binary a TestHostile child: it opens and lints the source it names and
// writes a hostileReport to stdout (see TestMain).
const hostileSourceEnv = "XPKGKIT_HOSTILE_SOURCE"

// TestMain runs the test binary as a TestHostile child when
// hostileSourceEnv is set, and the tests otherwise (saying how many corpus
// tests were skipped, testcorpus.Main).
func TestMain(m *testing.M) {
	if src := os.Getenv(hostileSourceEnv); src != "" {
		os.Exit(hostileChild(src))
	}
	os.Exit(testcorpus.Main(m))
}

// hostileReport is what a TestHostile child reports of one case.
type hostileReport struct {
	Outcome hostile.Outcome
	Detail  string
	// Known is false for an error of no known class (untyped).
	Known bool
	// Panic holds the panic value and stack, if Open or Lint panicked.
	Panic string
	// Deadline is true when the context's deadline stopped the work: a hang
	// or super-linear work.
	Deadline bool
	// PeakHeap is the peak HeapInuse, in bytes.
	PeakHeap uint64
	// PeakRSS is the child's peak resident set, in bytes; 0 where it
	// cannot be read (on Linux only).
	PeakRSS uint64
}

// hostileChild opens and lints src with the default limits (and a target
// Crossplane version, so that every built-in rule runs) under the soft
// memory limit an embedding program should set, writes its
// hostileReport to stdout as JSON and returns the exit code.
func hostileChild(src string) int {
	// The soft memory limit the README tells a program embedding the
	// library to set, and xpkg-lint sets (192 MiB): without one the
	// collector lets the heap reach twice what is live, and
	// parser-cost-flow-lists-near-node-limit-xpkg peaked at 262 MiB RSS
	// (235 MiB of heap) in CI on a loaded machine, over the 256 MiB bound.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(192 << 20)
	}
	stop := sampleHeap()
	ctx, cancel := context.WithTimeout(context.Background(), hostileDeadline())
	defer cancel()
	var rep hostileReport
	func() {
		defer func() {
			if p := recover(); p != nil {
				rep.Panic = fmt.Sprintf("%v\n%s", p, debug.Stack())
			}
		}()
		pkg, err := xpkg.Open(ctx, src, hostileOptions()...)
		var res *linter.Result
		if err == nil {
			// v2.0: the oldest v2 rules and semver engine; the CLI's
			// hostile tests run the newest stable release's.
			res, err = rules.LintPackage(ctx, pkg, linter.WithCrossplaneVersion("v2.0.0"))
		}
		rep.Deadline = errors.Is(err, context.DeadlineExceeded)
		rep.Outcome, rep.Detail, rep.Known = hostileOutcome(pkg, res, err)
	}()
	rep.PeakHeap = stop()
	rep.PeakRSS, _ = peakRSS()
	if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	return 0
}

// hostileMeasure is what TestHostile measured of one case.
type hostileMeasure struct {
	name      string
	rss, heap uint64
	cpu       time.Duration
}

// TestHostile runs every case of the hostile corpus (and the controls)
// through Open and Lint with the default limits, each in a child process
// (the test binary itself, see TestMain), and asserts that nothing panics
// or hangs, that the outcome is one the case accepts, and that the child's
// peak resident set, peak heap and CPU time (user plus system) stay under
// the budget (hostileRSSBound, hostileHeapBound, hostileCPUBound). A child
// process per case makes each measure the case's own, whatever ran before
// it or beside it. Heavy cases are skipped under -short and -race. The worst case of
// each measure is logged at the end.
func TestHostile(t *testing.T) {
	cases := append(hostile.Cases(), hostile.Controls()...)
	var (
		mu       sync.Mutex
		measured []hostileMeasure
	)
	raceSampled := make([]bool, len(cases))
	kinds := map[string]bool{}
	for i, c := range cases {
		kind, _, _ := strings.Cut(c.Name, "-")
		raceSampled[i] = !kinds[kind] || i%3 == 0
		kinds[kind] = true
	}
	t.Run("case", func(t *testing.T) {
		for i, c := range cases {
			t.Run(c.Name, func(t *testing.T) {
				t.Parallel()
				if raceEnabled && !raceSampled[i] {
					// Each case's child is the race-built test binary: the
					// first case of each kind and one in three of the rest
					// keep the detector on every kind of input, at less
					// than half the two minutes all of them take under it;
					// .ci/run runs every case without -race.
					t.Skip("under -race the first case of each kind and one in 3 of the rest run (.ci/run runs every case without -race)")
				}
				if c.Heavy && (testing.Short() || raceEnabled) {
					t.Skipf("heavy case (%d bytes on disk) skipped under -short and -race (.ci/run runs this test without -race too)", c.Size)
				}
				if raceEnabled && (strings.HasPrefix(c.Name, "lint-cost-") || strings.HasPrefix(c.Name, "schema-cost-")) {
					// A rule's (or a schema keyword's) worst case costs
					// seconds of lint, ten times more under the race
					// detector, and holds nothing concurrent that the other
					// cases do not.
					t.Skip("a lint worst case: measured without -race (.ci/run)")
				}
				dir := t.TempDir()
				src, err := c.Write(t.Context(), dir)
				if err != nil {
					t.Fatalf("writing the case: %v", err)
				}
				rep, m := runHostile(t, src)
				m.name = c.Name
				mu.Lock()
				measured = append(measured, m)
				mu.Unlock()
				detail := shorten(rep.Detail)
				t.Logf("%s: got %s; peak RSS %d MiB, peak heap %d MiB, CPU %v: %s",
					c.Kind, rep.Outcome, m.rss>>20, m.heap>>20, m.cpu.Round(time.Millisecond), detail)
				switch {
				case c.Accepts(rep.Outcome):
				case raceTightLimit(rep.Outcome):
					// The race detector's tighter limits (hostileOptions)
					// stopped a case built to pass the default ones; its
					// outcome is checked by the run without -race.
					t.Logf("outcome %s under the race detector's tighter limits (want %s without -race)", rep.Outcome, c.Expect)
				default:
					t.Errorf("outcome %s, want %s (or one of %v)\n%s", rep.Outcome, c.Expect, c.Alternatives, detail)
				}
				checkBudget(t, m)
			})
		}
	})
	logWorst(t, measured)
}

// checkBudget fails t when m is over the budget and the budgets are on
// (testbudget); it logs the excess otherwise.
func checkBudget(t *testing.T, m hostileMeasure) {
	t.Helper()
	if m.heap > hostileHeapBound {
		testbudget.Errorf(t, "peak heap %d MiB, want at most %d MiB", m.heap>>20, hostileHeapBound>>20)
	}
	if !raceEnabled && m.rss > hostileRSSBound {
		testbudget.Errorf(t, "peak RSS %d MiB, want at most %d MiB", m.rss>>20, hostileRSSBound>>20)
	}
	cpuBound := hostileCPUBound
	if raceEnabled {
		cpuBound *= raceCPUFactor
	}
	if m.cpu > cpuBound {
		testbudget.Errorf(t, "CPU time %v (user+sys), want at most %v", m.cpu.Round(time.Millisecond), cpuBound)
	}
}

// logWorst logs the case with the highest peak RSS, peak heap and CPU
// time: the figures the README's Security section quotes.
func logWorst(t *testing.T, ms []hostileMeasure) {
	t.Helper()
	if len(ms) == 0 {
		return
	}
	worst := func(less func(a, b hostileMeasure) bool) hostileMeasure {
		w := ms[0]
		for _, m := range ms[1:] {
			if less(w, m) {
				w = m
			}
		}
		return w
	}
	r := worst(func(a, b hostileMeasure) bool { return a.rss < b.rss })
	h := worst(func(a, b hostileMeasure) bool { return a.heap < b.heap })
	c := worst(func(a, b hostileMeasure) bool { return a.cpu < b.cpu })
	t.Logf("worst of %d cases (race detector: %v): peak RSS %d MiB (%s); peak heap %d MiB (%s); CPU %v user+sys (%s)",
		len(ms), raceEnabled, r.rss>>20, r.name, h.heap>>20, h.name, c.cpu.Round(10*time.Millisecond), c.name)
}

// runHostile opens and lints src in a child process and returns its report
// and measures. A panic, a hang, a child that fails (a race report, say) or
// an error of no known class fails t.
func runHostile(t *testing.T, src string) (hostileReport, hostileMeasure) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), hostileDeadline()+20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), hostileSourceEnv+"="+src)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the child did not return within %v of its context's deadline: hang", 20*time.Second)
	}
	if err != nil {
		t.Fatalf("the child failed: %v\nstderr: %s", err, shorten(stderr.String()))
	}
	var rep hostileReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("the child's report: %v\nstdout: %s\nstderr: %s", err, shorten(stdout.String()), shorten(stderr.String()))
	}
	m := hostileMeasure{rss: rep.PeakRSS, heap: rep.PeakHeap, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if m.rss == 0 && runtime.GOOS == "linux" {
		t.Error("the child could not read its peak resident set")
	}
	if rep.Panic != "" {
		t.Fatalf("panic: %s", rep.Panic)
	}
	if rep.Deadline {
		t.Fatalf("Open+Lint ran past %v (a hang or super-linear work): %s", hostileDeadline(), shorten(rep.Detail))
	}
	if !rep.Known {
		t.Errorf("error of no known class (untyped): %s", shorten(rep.Detail))
	}
	return rep, m
}

// sampleHeap samples HeapInuse every 2 ms until the returned function is
// called, which returns the peak.
func sampleHeap() func() uint64 {
	var peak atomic.Uint64
	read := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > peak.Load() {
			peak.Store(ms.HeapInuse)
		}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				read()
			}
		}
	})
	return func() uint64 {
		close(quit)
		wg.Wait()
		read()
		return peak.Load()
	}
}

// hostileOutcome reduces what Open and Lint returned to a hostile.Outcome.
// An error of Open maps to the class its sentinel says (limits first, since
// a limit error may also carry a descriptor); a package whose documents did
// not all parse is a parse error (the rule that reports the first one);
// otherwise error diagnostics make a lint error. ok is false for an error
// that matches no class.
func hostileOutcome(pkg *xpkg.Package, res *linter.Result, err error) (out hostile.Outcome, detail string, ok bool) {
	if err != nil {
		c, l, ok := errorClass(err)
		return hostile.Outcome{Class: c, Limit: l}, err.Error(), ok
	}
	var first *linter.Diagnostic
	for i, d := range res.Diagnostics {
		if d.Severity == linter.SeverityError {
			first = &res.Diagnostics[i]
			break
		}
	}
	if len(pkg.Errors) > 0 {
		// The rule reporting a document error is the first error
		// diagnostic of XP001/XP002/XP005 kind.
		rule := ""
		for _, d := range res.Diagnostics {
			if d.RuleID == "XP001" || d.RuleID == "XP002" || d.RuleID == "XP005" {
				rule = d.RuleID
				break
			}
		}
		return hostile.Outcome{Class: hostile.ClassParseError, Rule: rule}, pkg.Errors[0].Error(), true
	}
	if first != nil {
		return hostile.Outcome{Class: hostile.ClassLintError, Rule: first.RuleID}, fmt.Sprintf("%d diagnostics, first error: %s", len(res.Diagnostics), first), true
	}
	return hostile.Outcome{Class: hostile.ClassOK}, fmt.Sprintf("%d diagnostics, none an error", len(res.Diagnostics)), true
}

// errorClass maps an error of Open to its hostile class and, for limits,
// which limit.
func errorClass(err error) (hostile.Class, hostile.Limit, bool) {
	var le *limit.Error
	switch {
	case errors.As(err, &le):
		return hostile.ClassLimitExceeded, hostileLimit(le.Limit), true
	case errors.Is(err, limit.ErrExceeded):
		return hostile.ClassLimitExceeded, hostile.LimitAny, true
	case errors.Is(err, oci.ErrDigestMismatch):
		return hostile.ClassDigestMismatch, hostile.LimitAny, true
	case errors.Is(err, oci.ErrSizeMismatch):
		return hostile.ClassSizeMismatch, hostile.LimitAny, true
	case errors.Is(err, oci.ErrUnsafePath):
		return hostile.ClassBadPath, hostile.LimitAny, true
	case errors.Is(err, oci.ErrNotFound), errors.Is(err, xpkg.ErrNoPackageYAML), errors.Is(err, fs.ErrNotExist),
		errors.Is(err, oci.ErrNoMatchingPlatform):
		return hostile.ClassNotFound, hostile.LimitAny, true
	case errors.Is(err, oci.ErrMalformed), errors.Is(err, oci.ErrInvalidDescriptor), errors.Is(err, oci.ErrEmptyIndex),
		errors.Is(err, oci.ErrDuplicateEntry), errors.Is(err, oci.ErrNotRegularFile), errors.Is(err, oci.ErrInvalidWhiteout),
		errors.Is(err, oci.ErrUnsupportedMediaType), errors.Is(err, oci.ErrUnknownFormat),
		errors.Is(err, xpkg.ErrMultipleBaseLayers), errors.Is(err, xpkg.ErrUnknownSource),
		errors.Is(err, parser.ErrSyntax):
		return hostile.ClassMalformed, hostile.LimitAny, true
	}
	return hostile.ClassMalformed, hostile.LimitAny, false
}

// hostileLimit maps a field of oci.Limits, parser.Limits or xpkg.Limits to
// the hostile limit it implements.
func hostileLimit(name limit.Name) hostile.Limit {
	switch name {
	case limitval.MaxManifestBytes, limitval.MaxConfigBytes:
		return hostile.LimitManifestSize
	case limitval.MaxIndexDepth:
		return hostile.LimitIndexDepth
	case limitval.MaxLayers:
		return hostile.LimitLayerCount
	case limitval.MaxLayerBytes, limitval.MaxImageBytes, limitval.MaxZstdWindow:
		return hostile.LimitDecompressedSize
	case limitval.MaxTarEntries:
		return hostile.LimitEntryCount
	case limitval.MaxFileBytes, limitval.MaxTotalBytes, limitval.MaxReaderBytes:
		return hostile.LimitStreamSize
	case limitval.MaxDocumentBytes:
		return hostile.LimitDocumentSize
	case limitval.MaxDocuments:
		return hostile.LimitDocumentCount
	case limitval.MaxDepth:
		return hostile.LimitDepth
	case limitval.MaxAliasExpansion:
		return hostile.LimitAliases
	}
	// MaxBlobBytes (a compressed blob's claimed size) has no hostile
	// counterpart.
	return hostile.LimitAny
}

// shorten cuts s to a readable length for the test log.
func shorten(s string) string {
	const max = 400
	if len(s) <= max {
		return s
	}
	return s[:max/2] + " … " + s[len(s)-max/2:]
}
