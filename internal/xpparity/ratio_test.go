package xpparity

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	pkgmetav1 "github.com/crossplane/crossplane/apis/v2/pkg/meta/v1"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
)

// The ratio benchmark: xpkgkit's time and memory as a ratio to Crossplane's
// own package library (crossplane-runtime v2.4.0's pkg/xpkg parser with its
// schemes, then the validator and linter of the package's kind, as the
// revision reconciler runs them), on every corpus package, in the same run.
//
// Each side is a program of its own, built by the test: upstreamlint (this
// module's upstreamlint directory) and the xpkg-lint CLI
// (examples/xpkg-lint). Each measurement is one process, so that its peak
// RSS is its own: the test reads the process's wall time, CPU time
// (user+system) and maximum resident set size, and keeps the best of
// XPPARITY_RATIO_RUNS runs (3 by default) of each figure.
//
//	XPPARITY_RATIO=1 go test -run '^TestRatio$' -v -timeout 60m ./internal/xpparity
//
// (from the module's root, or `go test ... .` in internal/xpparity).
// XPPARITY_RATIO_PACKAGES (a regular expression) selects corpus packages,
// e.g. XPPARITY_RATIO_PACKAGES=monolith; XPKG_LINT names an xpkg-lint binary
// to measure instead of building one. Every package is measured in two
// forms, its package.yaml and its .xpkg. The columns:
//
//   - upstream: the upstream library's parse, validator and linter;
//   - anchor: the full verdict, the same plus the API server's
//     ValidateCustomResourceDefinition on every CRD across GOMAXPROCS
//     workers (upstreamlint -apiserver);
//   - cold: xpkg-lint with every default rule and an empty verdict cache
//     (a new --cache-dir for each run), as a ratio to the anchor;
//   - warm: the same package again, its verdicts cached by a run before;
//   - next: the package's next release, 1% of its CRDs changed (every
//     hundredth, one description edited), linted with the cache the
//     package filled (a copy of it for each run); package.yaml only;
//   - -api: xpkg-lint with XP420, XP421 and XP422 (the API server's
//     validation, which the upstream library does not do) disabled, as a
//     ratio to upstream.
//
// Each ratio is of CPU time (user+sys: on a shared machine the
// trustworthy figure), and for cold of peak RSS too.

const ratioEnv = "XPPARITY_RATIO"

// buildTool builds the main package at dir (relative to this directory)
// into tmp and returns the binary's path.
func buildTool(t *testing.T, tmp, dir, name string) string {
	t.Helper()
	bin := filepath.Join(tmp, name)
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", dir, err, out)
	}
	return bin
}

// corpusKind is the meta kind of a corpus package, by its name.
func corpusKind(name string) string {
	switch {
	case strings.HasPrefix(name, "provider-"):
		return pkgmetav1.ProviderKind
	case strings.HasPrefix(name, "function-"):
		return pkgmetav1.FunctionKind
	}
	return pkgmetav1.ConfigurationKind
}

// measure is the best (lowest) of each figure over some runs.
type measure struct {
	wall, cpu time.Duration
	rss       int64 // bytes
}

// runOnce runs one measurement: the program args; exit code 1 (a lint
// error) is success. It measures through GNU time (/usr/bin/time, which
// CI installs) when there is one: os/exec starts a program with vfork, so
// the peak RSS the kernel reports for it counts this test process's own
// resident memory from before the exec (about 45 MiB), a floor under every
// small package's figure. GNU time forks from a small process of its own.
func runOnce(t *testing.T, args []string) measure {
	t.Helper()
	if gnuTime, err := exec.LookPath("/usr/bin/time"); err == nil {
		return runTimed(t, gnuTime, args)
	}
	cmd := exec.Command(args[0], args[1:]...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil && cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	ps := cmd.ProcessState
	m := measure{wall: wall, cpu: ps.UserTime() + ps.SystemTime()}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		m.rss = int64(ru.Maxrss) * 1024 // KiB on Linux
	}
	return m
}

// runTimed runs args under GNU time and reads its figures: wall, user and
// system seconds, and the peak RSS in KiB.
func runTimed(t *testing.T, gnuTime string, args []string) measure {
	t.Helper()
	report := filepath.Join(t.TempDir(), "time")
	cmd := exec.Command(gnuTime, append([]string{"-q", "-f", "%e %U %S %M", "-o", report}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil && cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var wall, user, sys float64
	var kib int64
	if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%f %f %f %d", &wall, &user, &sys, &kib); err != nil {
		t.Fatalf("%s: reading GNU time's report %q: %v", strings.Join(args, " "), b, err)
	}
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	return measure{wall: sec(wall), cpu: sec(user + sys), rss: kib * 1024}
}

func best(t *testing.T, runs int, args ...string) measure {
	t.Helper()
	var b measure
	for i := range runs {
		m := runOnce(t, args)
		if i == 0 || m.wall < b.wall {
			b.wall = m.wall
		}
		if i == 0 || m.cpu < b.cpu {
			b.cpu = m.cpu
		}
		if i == 0 || m.rss < b.rss {
			b.rss = m.rss
		}
	}
	return b
}

// TestRatio prints the ratio table (see the comment at the top of this
// file). It runs only when XPPARITY_RATIO is set: on the monolith the
// upstream library takes about 20 s and 500 MB per run.
func TestRatio(t *testing.T) {
	if os.Getenv(ratioEnv) == "" {
		t.Skipf("set %s=1 to run the ratio benchmark", ratioEnv)
	}
	runs := 3
	if s := os.Getenv("XPPARITY_RATIO_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("XPPARITY_RATIO_RUNS=%q: want a positive integer", s)
		}
		runs = n
	}
	sel := regexp.MustCompile(os.Getenv("XPPARITY_RATIO_PACKAGES"))
	dir := os.Getenv(testcorpus.EnvVar)
	if dir == "" {
		// ../shared/corpus beside the repository: this module is two
		// levels below its root.
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	if dir, err := filepath.Abs(dir); err == nil {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Skipf("corpus not found at %s: set %s", dir, testcorpus.EnvVar)
		}
	}
	tmp := t.TempDir()
	upBin := buildTool(t, tmp, "upstreamlint", "upstreamlint")
	xlBin := os.Getenv("XPKG_LINT")
	if xlBin == "" {
		xlBin = buildTool(t, tmp, filepath.Join("..", "..", "examples", "xpkg-lint"), "xpkg-lint")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "best of %d runs; time = wall (CPU user+sys); cold, warm and next: CPU (and RSS) as a ratio to the anchor; -api: CPU as a ratio to upstream\n", runs)
	fmt.Fprintf(&b, "%-42s %-20s %8s | %-20s %8s | %-20s %8s %6s %6s | %-20s %6s | %-20s %6s | %-20s %8s %6s\n",
		"package", "upstream", "RSS", "anchor (+apiserver)", "RSS", "cold", "RSS", "cpu", "rss", "warm", "cpu", "next (1% changed)", "cpu", "-XP420-422", "RSS", "cpu")
	for _, name := range testcorpus.Names() {
		if !sel.MatchString(name) {
			continue
		}
		kind := corpusKind(name)
		for _, form := range []string{filepath.Join(name, "package.yaml"), name + ".xpkg"} {
			src := filepath.Join(dir, form)
			up := best(t, runs, upBin, kind, src)
			anchor := best(t, runs, upBin, "-apiserver", kind, src)
			cold := bestOf(t, runs, func() []string { return []string{xlBin, "--cache-dir", t.TempDir(), src} })
			warmDir := t.TempDir()
			runOnce(t, []string{xlBin, "--cache-dir", warmDir, src})
			warm := best(t, runs, xlBin, "--cache-dir", warmDir, src)
			nextCol := fmt.Sprintf("%-20s %6s", "-", "-")
			if strings.HasSuffix(form, ".yaml") {
				next := nextRelease(t, src)
				prev := t.TempDir()
				runOnce(t, []string{xlBin, "--cache-dir", prev, src})
				m := bestOf(t, runs, func() []string {
					d := t.TempDir()
					copyDir(t, prev, d)
					return []string{xlBin, "--cache-dir", d, next}
				})
				nextCol = fmt.Sprintf("%-20s %6.3f", times(m), ratio(m.cpu, anchor.cpu))
			}
			noapi := best(t, runs, xlBin, "--no-verdict-cache", "--disable", "XP420,XP421,XP422", src)
			fmt.Fprintf(&b, "%-42s %-20s %8s | %-20s %8s | %-20s %8s %6.3f %6.3f | %-20s %6.3f | %s | %-20s %8s %6.3f\n",
				form, times(up), mib(up.rss), times(anchor), mib(anchor.rss),
				times(cold), mib(cold.rss), ratio(cold.cpu, anchor.cpu), ratio(cold.rss, anchor.rss),
				times(warm), ratio(warm.cpu, anchor.cpu), nextCol,
				times(noapi), mib(noapi.rss), ratio(noapi.cpu, up.cpu))
		}
	}
	t.Log("\n" + b.String())
}

// bestOf is best with the arguments of each run from args (called
// before each run, untimed).
func bestOf(t *testing.T, runs int, args func() []string) measure {
	t.Helper()
	var b measure
	for i := range runs {
		m := runOnce(t, args())
		if i == 0 || m.wall < b.wall {
			b.wall = m.wall
		}
		if i == 0 || m.cpu < b.cpu {
			b.cpu = m.cpu
		}
		if i == 0 || m.rss < b.rss {
			b.rss = m.rss
		}
	}
	return b
}

// descriptionRe finds the first plain one-line description of a
// document.
var descriptionRe = regexp.MustCompile(`(?m)^(\s+description: )([A-Za-z][^:#\n]*)$`)

// nextRelease writes the next release of the package.yaml src: every
// hundredth CustomResourceDefinition with its first plain description
// edited (its bytes differ, its verdict does not), and returns its path.
func nextRelease(t *testing.T, src string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	docs := bytes.Split(data, []byte("\n---\n"))
	n := 0
	for i, d := range docs {
		if !bytes.Contains(d, []byte("kind: CustomResourceDefinition")) {
			continue
		}
		n++
		if n%100 != 1 {
			continue
		}
		if loc := descriptionRe.FindSubmatchIndex(d); loc != nil {
			docs[i] = append(append(append([]byte(nil), d[:loc[3]]...), "Changed in the next release. "...), d[loc[4]:]...)
		}
	}
	p := filepath.Join(t.TempDir(), "package.yaml")
	if err := os.WriteFile(p, bytes.Join(docs, []byte("\n---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// copyDir copies the regular files and directories of from into to.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		switch {
		case e.IsDir():
			return os.MkdirAll(dst, 0o755)
		case e.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, b, 0o644)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func times(m measure) string {
	return fmt.Sprintf("%.3fs (%.3fs)", m.wall.Seconds(), m.cpu.Seconds())
}

func mib(n int64) string { return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20)) }

func ratio[T ~int64](a, b T) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
