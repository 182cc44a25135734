package lintcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/lintcmd/internal/report"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Fixtures shipped in the repository.
const (
	badPackage   = "testdata/bad-provider/package.yaml"      // 5 errors, 1 warning, 1 info
	warnPackage  = "testdata/warnings-only/package.yaml"     // 1 warning, 1 info
	cleanPackage = "../xpkg/testdata/build/provider-example" // a valid package directory
)

// result is what one run of the program gave.
type result struct {
	stdout, stderr string
	code           int
}

// runCLI runs the program with args and stdin.
func runCLI(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	return runLoader(t, xpkgLoader{}, stdin, args...)
}

func runLoader(t *testing.T, l loader, stdin []byte, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runWith(context.Background(), l, args, bytes.NewReader(stdin), &stdout, &stderr)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// twoBaseLayersXpkg returns a .xpkg with two base layers: an image whose
// diagnostic (XP501) has no line.
func twoBaseLayersXpkg(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(xpkgtest.TwoBaseLayers.MustImage(t).XpkgFile(t))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("output differs from %s (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	// Four sources: a package.yaml with problems, a clean package
	// directory, a package.yaml with only a warning and an info, and on
	// stdin a .xpkg with two base layers (an image-level diagnostic).
	sources := []string{badPackage, cleanPackage, warnPackage, "-"}
	stdin := twoBaseLayersXpkg(t)
	for _, format := range report.Formats() {
		t.Run(string(format), func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, stdin, append([]string{"-o", string(format)}, sources...)...)
			if r.code != ExitFindings {
				t.Errorf("exit code %d, want %d; stderr:\n%s", r.code, ExitFindings, r.stderr)
			}
			if r.stderr != "" {
				t.Errorf("stderr: %q, want none", r.stderr)
			}
			checkGolden(t, string(format)+".golden", r.stdout)
		})
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want int
		// stderr matches every stderr line; empty means no stderr.
		stderr string
		// lines is how many lines stderr must have.
		lines int
	}{
		{name: "clean package", args: []string{cleanPackage}, want: ExitOK},
		{name: "package with errors", args: []string{badPackage}, want: ExitFindings},
		{name: "warnings pass by default", args: []string{warnPackage}, want: ExitOK},
		{name: "fail on warning", args: []string{"--fail-on", "warning", warnPackage}, want: ExitFindings},
		{name: "fail on info", args: []string{"--fail-on=info", warnPackage}, want: ExitFindings},
		{name: "fail on warning clean", args: []string{"--fail-on", "warning", cleanPackage}, want: ExitOK},
		{name: "errors regraded", args: []string{"--severity", "XP201=warning", "--severity", "crossplane-constraint=info", "--disable", "XP303,crd-name", "--disable", "XP102", "--disable", "kind-apiserver", badPackage}, want: ExitOK},
		{name: "warning regraded to error", args: []string{"--severity", "XP103=error", warnPackage}, want: ExitFindings},
		{name: "flags after sources", args: []string{warnPackage, "--fail-on", "warning"}, want: ExitFindings},
		{name: "double dash", args: []string{"--", badPackage}, want: ExitFindings},
		{name: "crossplane version", args: []string{"--crossplane-version", "v2.0.0", cleanPackage}, want: ExitOK},
		{name: "crossplane version outside the constraint", args: []string{"--crossplane-version", "v1.2.0", cleanPackage}, want: ExitFindings,
			stderr: `^xpkg-lint: note: Crossplane 1.2.0 is older than every release line xpkgkit knows: judged as v1.20$`, lines: 1},
		{name: "crossplane version of a future line", args: []string{"--crossplane-version", "v2.9.1", cleanPackage}, want: ExitOK,
			stderr: `^xpkg-lint: note: Crossplane 2.9.1 is newer than every release line xpkgkit knows: judged as v2.4, the newest$`, lines: 1},
		{name: "crossplane version of a known line", args: []string{"--crossplane-version", "v2.2.3", cleanPackage}, want: ExitOK},
		{name: "platform", args: []string{"--platform", "linux/arm64/v8", cleanPackage}, want: ExitOK},
		{name: "limits that fit", args: []string{"--max-layer-size", "64MiB", "--max-document-size", "1MiB", "--max-documents", "100", cleanPackage}, want: ExitOK},

		{name: "unreadable source", args: []string{"testdata/no-such-package"}, want: ExitError,
			stderr: `^xpkg-lint: testdata/no-such-package: no such file or directory$`, lines: 1},
		{name: "unreadable and bad", args: []string{badPackage, "testdata/no-such-package"}, want: ExitError,
			stderr: `^xpkg-lint: testdata/no-such-package: `, lines: 1},
		{name: "two unreadable", args: []string{"testdata/nope1", "internal", "testdata/nope2"}, want: ExitError,
			stderr: `^xpkg-lint: (testdata/nope\d|internal): `, lines: 3},
		{name: "document limit", args: []string{"--max-documents", "2", badPackage}, want: ExitError,
			stderr: `^xpkg-lint: testdata/bad-provider/package.yaml: .*MaxDocuments 2 exceeded$`, lines: 1},

		{name: "unknown flag", args: []string{"--nope", cleanPackage}, want: ExitError, stderr: `^xpkg-lint: flag provided but not defined: -nope \(see xpkg-lint --help\)$`, lines: 1},
		{name: "unknown format", args: []string{"-o", "xml", cleanPackage}, want: ExitError, stderr: `^xpkg-lint: -o: unknown output format "xml"`, lines: 1},
		{name: "unknown fail-on", args: []string{"--fail-on", "fatal", cleanPackage}, want: ExitError, stderr: `--fail-on: unknown level "fatal"`, lines: 1},
		{name: "unknown disabled rule", args: []string{"--disable", "XP999", cleanPackage}, want: ExitError, stderr: `--disable: unknown rule "XP999"`, lines: 1},
		{name: "severity without level", args: []string{"--severity", "XP201", cleanPackage}, want: ExitError, stderr: `--severity: "XP201" is not RULE=LEVEL`, lines: 1},
		{name: "severity unknown rule", args: []string{"--severity", "XP999=error", cleanPackage}, want: ExitError, stderr: `--severity: unknown rule "XP999"`, lines: 1},
		{name: "severity unknown level", args: []string{"--severity", "XP201=fatal", cleanPackage}, want: ExitError, stderr: `--severity: XP201: unknown level "fatal"`, lines: 1},
		{name: "bad crossplane version", args: []string{"--crossplane-version", "two", cleanPackage}, want: ExitError, stderr: `--crossplane-version: "two" is not a semantic version`, lines: 1},
		{name: "bad platform", args: []string{"--platform", "linux", cleanPackage}, want: ExitError, stderr: `--platform: "linux" is not os/arch`, lines: 1},
		{name: "bad size", args: []string{"--max-layer-size", "lots", cleanPackage}, want: ExitError, stderr: `"lots" is not a size`, lines: 1},
		{name: "zero documents", args: []string{"--max-documents", "0", cleanPackage}, want: ExitError, stderr: `"0" is not a positive count`, lines: 1},
		{name: "bad jobs", args: []string{"-j", "-1", cleanPackage}, want: ExitError, stderr: `-j: -1 is not a number of jobs`, lines: 1},
		{name: "no source", args: nil, want: ExitError, stderr: `^xpkg-lint: no SOURCE given`, lines: 1},
		{name: "stdin twice", args: []string{"-", "-"}, want: ExitError, stderr: `standard input \(-\) given more than once`, lines: 1},
		{name: "explain with source", args: []string{"--explain", "XP201", cleanPackage}, want: ExitError, stderr: `take no SOURCE`, lines: 1},
		{name: "explain unknown rule", args: []string{"--explain", "XP999"}, want: ExitError, stderr: `--explain: unknown rule "XP999"`, lines: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, nil, tt.args...)
			if r.code != tt.want {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.want, r.stdout, r.stderr)
			}
			checkStderr(t, r.stderr, tt.stderr, tt.lines)
			if tt.want == ExitError && strings.Contains(tt.stderr, "(see xpkg-lint --help)") && r.stdout != "" {
				t.Errorf("stdout %q, want none for a flag error", r.stdout)
			}
		})
	}
}

// checkStderr checks that stderr has lines lines, each matching pattern,
// and no stack trace.
func checkStderr(t *testing.T, stderr, pattern string, lines int) {
	t.Helper()
	if pattern == "" {
		if stderr != "" {
			t.Errorf("stderr: %q, want none", stderr)
		}
		return
	}
	got := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(got) != lines || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("stderr has %d lines, want %d:\n%s", len(got), lines, stderr)
	}
	re := regexp.MustCompile(pattern)
	for _, l := range got {
		if !re.MatchString(l) {
			t.Errorf("stderr line %q does not match %q", l, pattern)
		}
	}
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, ".go:") {
		t.Errorf("stderr holds a stack trace:\n%s", stderr)
	}
}

// jsonReport is the JSON format's report object.
type jsonReport struct {
	Diagnostics, Suppressed, Baselined []jsonFinding
	Summary                            report.Summary
}

// decodeReport decodes the JSON format: the findings that count, then the
// suppressed and the baselined ones.
func decodeReport(t *testing.T, r result) ([]jsonFinding, jsonReport) {
	t.Helper()
	var rep jsonReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("output is not a JSON report: %v\n%s\nstderr: %s", err, r.stdout, r.stderr)
	}
	return append(append(slices.Clip(rep.Diagnostics), rep.Suppressed...), rep.Baselined...), rep
}

// jsonOutput runs the program with -o json and decodes its output: the
// findings that count, then the suppressed and the baselined ones.
func jsonOutput(t *testing.T, stdin []byte, args ...string) ([]jsonFinding, result) {
	t.Helper()
	r := runCLI(t, stdin, append([]string{"-o", "json"}, args...)...)
	ds, _ := decodeReport(t, r)
	return ds, r
}

// finding is what must be the same whatever form a package is read in.
type finding struct {
	Rule         string
	Line, Column int
	Object       string
}

func findings(ds []jsonFinding) []finding {
	var fs []finding
	for _, d := range ds {
		f := finding{Rule: d.Rule, Line: d.Line, Column: d.Column}
		if d.Object != nil {
			f.Object = d.Object.Kind + "/" + d.Object.Name
		}
		fs = append(fs, f)
	}
	return fs
}

func TestSourceKinds(t *testing.T) {
	t.Parallel()
	// A package with one problem (XP202) and a CRD, in every form.
	pkg := xpkgtest.NewProvider("provider-kinds").
		WithCRD("example.org", "Widget", "v1alpha1").
		WithCrossplaneConstraint("not-a-version")
	img := pkg.MustImage(t)
	xpkgBytes, err := os.ReadFile(img.XpkgFile(t))
	if err != nil {
		t.Fatal(err)
	}
	yamlBytes := bytes.NewBuffer(pkg.YAML())

	tests := []struct {
		name   string
		source string
		stdin  []byte
		kind   xpkg.SourceKind
	}{
		{"xpkg", img.XpkgFile(t), nil, xpkg.SourceXpkg},
		{"oci layout", img.LayoutDir(t), nil, xpkg.SourceOCILayout},
		{"oci layout tar", img.LayoutTarFile(t), nil, xpkg.SourceOCILayoutTar},
		{"directory", pkg.Dir(t), nil, xpkg.SourceDirectory},
		{"package.yaml", pkg.PackageYAMLFile(t), nil, xpkg.SourcePackageYAML},
		{"stdin xpkg", "-", xpkgBytes, xpkg.SourceReader},
		{"stdin yaml", "-", yamlBytes.Bytes(), xpkg.SourceReader},
	}
	var want []finding
	for i, tt := range tests {
		ds, r := jsonOutput(t, tt.stdin, tt.source)
		if r.code != ExitFindings || r.stderr != "" {
			t.Errorf("%s: exit code %d, stderr %q; want %d and none", tt.name, r.code, r.stderr, ExitFindings)
		}
		got := findings(ds)
		if i == 0 {
			want = got
			if len(want) != 1 || want[0].Rule != "XP202" {
				t.Fatalf("%s: findings %+v, want one XP202", tt.name, want)
			}
		} else if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: findings differ from the .xpkg's (-xpkg +%s):\n%s", tt.name, tt.name, diff)
		}
		name := displayName(tt.source) // stdin is named report.StdinName
		for _, d := range ds {
			if d.Source != name {
				t.Errorf("%s: source %q, want %q", tt.name, d.Source, name)
			}
		}
		text := runCLI(t, tt.stdin, tt.source)
		if head := name + " (" + tt.kind.String() + ")"; !strings.HasPrefix(text.stdout, head) {
			t.Errorf("%s: text output starts %q, want %q", tt.name, firstLine(text.stdout), head)
		}
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func TestDisplayedFilesExist(t *testing.T) {
	t.Parallel()
	// For a directory and a package.yaml, the file shown is a path the
	// user can open.
	dir := xpkgtest.NewProvider("provider-files").WithCrossplaneConstraint("bad").WithCRD("example.org", "Gadget", "v1").Dir(t)
	for _, source := range []string{dir, filepath.Join(dir, "crossplane.yaml"), badPackage} {
		ds, _ := jsonOutput(t, nil, source)
		if len(ds) == 0 {
			t.Fatalf("%s: no diagnostics", source)
		}
		for _, d := range ds {
			if _, err := os.Stat(d.File); err != nil {
				t.Errorf("%s: %s %s: file %q: %v", source, d.Rule, d.Message, d.File, err)
			}
		}
	}
}

// slowLoader delays the sources listed, so that they finish after the
// sources given after them, and panics on a source named "panic".
type slowLoader struct {
	slow map[string]bool
}

func (l slowLoader) open(ctx context.Context, source string, opts ...xpkg.Option) (*xpkg.Package, error) {
	if source == "panic" {
		panic("boom")
	}
	if l.slow[source] {
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return xpkg.Open(ctx, source, opts...)
}

func (l slowLoader) openReader(ctx context.Context, r io.Reader, opts ...xpkg.Option) (*xpkg.Package, error) {
	return xpkg.OpenReader(ctx, r, opts...)
}

func TestParallelOrder(t *testing.T) {
	t.Parallel()
	// The first source finishes last: the report must still follow the
	// arguments.
	sources := []string{badPackage, warnPackage, cleanPackage, badPackage, warnPackage, cleanPackage}
	l := slowLoader{slow: map[string]bool{badPackage: true}}
	for _, jobs := range []string{"1", "2", "8"} {
		r := runLoader(t, l, nil, append([]string{"-o", "json", "-j", jobs}, sources...)...)
		if r.code != ExitFindings {
			t.Fatalf("-j %s: exit code %d, want %d; stderr %s", jobs, r.code, ExitFindings, r.stderr)
		}
		ds, _ := decodeReport(t, r)
		var order []string
		for _, d := range ds {
			if len(order) == 0 || order[len(order)-1] != d.Source {
				order = append(order, d.Source)
			}
		}
		want := []string{badPackage, warnPackage, badPackage, warnPackage} // the clean ones have no diagnostics
		if diff := cmp.Diff(want, order); diff != "" {
			t.Errorf("-j %s: sources out of order (-want +got):\n%s", jobs, diff)
		}

		text := runLoader(t, l, nil, append([]string{"-j", jobs}, sources...)...)
		var heads []string
		for _, line := range strings.Split(text.stdout, "\n") {
			if i := strings.Index(line, " ("); i > 0 && !strings.Contains(line[:i], ":") {
				heads = append(heads, line[:i])
			}
		}
		if diff := cmp.Diff(sources, heads); diff != "" {
			t.Errorf("-j %s: text groups out of order (-want +got):\n%s", jobs, diff)
		}
	}
}

func TestPanicIsExit2(t *testing.T) {
	t.Parallel()
	r := runLoader(t, slowLoader{}, nil, cleanPackage, "panic", warnPackage)
	if r.code != ExitError {
		t.Errorf("exit code %d, want %d", r.code, ExitError)
	}
	checkStderr(t, r.stderr, `^xpkg-lint: panic: internal error: boom$`, 1)
	for _, s := range []string{cleanPackage, warnPackage} {
		if !strings.Contains(r.stdout, s+" (") {
			t.Errorf("the report lacks %s:\n%s", s, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "3 sources: 1 error, 1 warning, 1 info, 1 unreadable source") {
		t.Errorf("summary line missing or wrong:\n%s", r.stdout)
	}
}

func TestStdin(t *testing.T) {
	t.Parallel()
	bad, err := os.ReadFile(badPackage)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		stdin []byte
		want  int
		rules []string
	}{
		{"package.yaml", bad, ExitFindings, []string{"XP201", "XP206", "XP205", "XP202", "XP303", "XP401", "XP102", "XP422"}},
		{"xpkg", twoBaseLayersXpkg(t), ExitFindings, []string{"XP501"}},
		{"empty", nil, ExitError, []string{"XP000"}}, // xpkg.ErrEmpty: an unreadable source
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds, r := jsonOutput(t, tt.stdin, "--crossplane-version", "v2.1.0", "-")
			if r.code != tt.want {
				t.Errorf("exit code %d, want %d; stderr %s", r.code, tt.want, r.stderr)
			}
			var rules []string
			for _, d := range ds {
				rules = append(rules, d.Rule)
				if d.Source != report.StdinName {
					t.Errorf("source %q, want %s", d.Source, report.StdinName)
				}
			}
			if diff := cmp.Diff(tt.rules, rules); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("binary", func(t *testing.T) {
		t.Parallel()
		r := runCLI(t, []byte{0, 1, 2, 3, 0xff, 0xfe, 0}, "-")
		if r.code != ExitError {
			t.Errorf("exit code %d, want %d", r.code, ExitError)
		}
		checkStderr(t, r.stderr, `^xpkg-lint: <stdin>: `, 1)
	})
}

func TestExplain(t *testing.T) {
	t.Parallel()
	for _, r := range rules.Builtin() {
		for _, arg := range []string{r.ID, strings.ToLower(r.ID), r.Name} {
			out := runCLI(t, nil, "--explain", arg)
			if out.code != ExitOK || out.stderr != "" {
				t.Fatalf("--explain %s: exit code %d, stderr %q", arg, out.code, out.stderr)
			}
			for _, want := range []string{r.ID + " " + r.Name + ": " + r.Title(), "Severity: " + r.Severity.String(), "--disable " + r.ID} {
				if !strings.Contains(out.stdout, want) {
					t.Errorf("--explain %s lacks %q:\n%s", arg, want, out.stdout)
				}
			}
			if r.Bad != "" && !strings.Contains(out.stdout, "Reported:\n\n    ") {
				t.Errorf("--explain %s lacks the reported example:\n%s", arg, out.stdout)
			}
			if r.Good != "" && !strings.Contains(out.stdout, "Not reported:\n\n    ") {
				t.Errorf("--explain %s lacks the example that is not reported:\n%s", arg, out.stdout)
			}
		}
	}
	checkGolden(t, "explain-XP201.golden", runCLI(t, nil, "--explain", "XP201").stdout)
}

func TestListRules(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "--list-rules")
	if r.code != ExitOK || r.stderr != "" {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	rules := allRules()
	if len(lines) != len(rules)+1 || !strings.HasPrefix(lines[0], "ID") {
		t.Fatalf("%d lines, want a header and %d rules:\n%s", len(lines), len(rules), r.stdout)
	}
	for i, rule := range rules {
		f := strings.Fields(lines[i+1])
		if len(f) < 4 || f[0] != rule.ID || f[1] != rule.Name || f[2] != rule.Severity.String() {
			t.Errorf("line %q, want %s %s %s ...", lines[i+1], rule.ID, rule.Name, rule.Severity)
		}
	}

	j := runCLI(t, nil, "--list-rules", "-o", "json")
	var entries []ruleEntry
	if err := json.Unmarshal([]byte(j.stdout), &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(rules) {
		t.Fatalf("%d JSON entries, want %d", len(entries), len(rules))
	}
	for i, e := range entries {
		if e.ID != rules[i].ID || e.Title != rules[i].Title() {
			t.Errorf("entry %d: %+v, want %s %q", i, e, rules[i].ID, rules[i].Title())
		}
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"-h", "--help", "-help"} {
		r := runCLI(t, nil, arg)
		if r.code != ExitOK || r.stderr != "" || r.stdout != usageText {
			t.Errorf("%s: exit code %d, stderr %q, stdout %d bytes; want 0, none, the usage", arg, r.code, r.stderr, len(r.stdout))
		}
	}
	// An example for each kind of source.
	for kind, example := range map[string]string{
		"xpkg":           "xpkg-lint provider-example.xpkg ",
		"oci layout":     "xpkg-lint ./provider-example.oci ",
		"oci layout tar": "xpkg-lint provider-example.tar ",
		"directory":      "xpkg-lint ./provider-example ",
		"package.yaml":   "xpkg-lint provider-example/package.yaml ",
		"stdin":          "cat package.yaml | xpkg-lint - ",
	} {
		if !strings.Contains(usageText, "\n  "+example) {
			t.Errorf("usage has no example for a %s source (%q)", kind, example)
		}
	}
	// Every flag is documented, and every documented flag exists.
	fs := newFlagSet()
	var f flagValues
	f.register(fs)
	fs.VisitAll(func(fl *flag.Flag) {
		long := "--" + fl.Name
		if len(fl.Name) == 1 {
			long = "-" + fl.Name + ","
		}
		if !strings.Contains(usageText, "  "+long) && !strings.Contains(usageText, ", "+long) {
			t.Errorf("flag %s is not in the usage", long)
		}
	})
	for _, m := range regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z-]+)`).FindAllStringSubmatch(usageText, -1) {
		if m[1] != "help" && fs.Lookup(m[1]) == nil {
			t.Errorf("usage documents --%s, which is not defined", m[1])
		}
	}
}

func TestNoColorWhenNotATerminal(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, badPackage)
	if strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("colour written to a buffer:\n%q", r.stdout)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if useColor(f) {
		t.Error("useColor: true for a regular file")
	}
	if useColor(&bytes.Buffer{}) {
		t.Error("useColor: true for a buffer")
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"1024", 1024, false},
		{"512KiB", 512 << 10, false},
		{"64MiB", 64 << 20, false},
		{"2GiB", 2 << 30, false},
		{"3G", 3 << 30, false},
		{"10 M", 10 << 20, false},
		{"100B", 100, false},
		{"0", 0, true},
		{"-5", 0, true},
		{"1.5GiB", 0, true},
		{"GiB", 0, true},
		{"99999999999GiB", 0, true},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestLimitsReachOpen(t *testing.T) {
	t.Parallel()
	xpkgFile := xpkgtest.NewProvider("provider-limits").WithCRD("example.org", "Widget", "v1").MustImage(t).XpkgFile(t)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"defaults", nil, ExitOK},
		{"tiny layer", []string{"--max-layer-size", "100"}, ExitError},
		{"one document", []string{"--max-documents", "1"}, ExitError},
	}
	for _, tt := range tests {
		r := runCLI(t, nil, append(tt.args, xpkgFile)...)
		if r.code != tt.want {
			t.Errorf("%s: exit code %d, want %d; stderr %s", tt.name, r.code, tt.want, r.stderr)
		}
		if tt.want == ExitError {
			checkStderr(t, r.stderr, `^xpkg-lint: .*provider-limits\.xpkg: .*exceeded`, 1)
		}
	}
	// A document over the size limit is a diagnostic (XP001), not an
	// unreadable source.
	ds, r := jsonOutput(t, nil, "--max-document-size", "64", badPackage)
	if r.code != ExitFindings || !slices.ContainsFunc(ds, func(d jsonFinding) bool { return d.Rule == "XP001" }) {
		t.Errorf("--max-document-size 64: exit code %d, diagnostics %+v; want 1 and XP001", r.code, ds)
	}
}

func TestErrorLine(t *testing.T) {
	t.Parallel()
	// internal/ holds no YAML file, so it is no package source (testdata/,
	// whose tree holds YAML files, reads as a package directory).
	_, err := xpkg.Open(context.Background(), "internal")
	if err == nil {
		t.Fatal("Open(internal): no error")
	}
	got := errorLine("internal", err)
	if strings.HasPrefix(got, "xpkg:") || strings.HasPrefix(got, "internal:") || strings.Contains(got, "\n") {
		t.Errorf("errorLine = %q: it repeats the prefixes or spans lines", got)
	}
	if got := errorLine("x", errors.New("a\nb")); got != "a; b" {
		t.Errorf("errorLine joins lines as %q, want %q", got, "a; b")
	}
}

func Example() {
	code := run(context.Background(), []string{warnPackage}, nil, os.Stdout, os.Stderr)
	fmt.Println("exit code", code)
	// Output:
	// testdata/warnings-only/package.yaml (package.yaml): 0 errors, 1 warning, 1 info
	// testdata/warnings-only/package.yaml:3:1: warning XP103 deprecated-meta-version: meta.pkg.crossplane.io/v1alpha1 is deprecated for Provider: use meta.pkg.crossplane.io/v1
	// testdata/warnings-only/package.yaml:7:3: info XP206 description: the meta.crossplane.io/description annotation is missing: describe the package in one sentence
	//
	// 1 source: 0 errors, 1 warning, 1 info
	// exit code 0
}

// jsonFinding is one element of -o json's array, decoded independently of
// linter.Diagnostic's own decoder (linter/diagnostic.schema.json).
type jsonFinding struct {
	Rule     string `json:"rule"`
	Name     string `json:"name"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Source   string `json:"source"`
	File     string `json:"file"`
	Document int    `json:"document"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Field    string `json:"field"`
	Object   *struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Name       string `json:"name"`
	} `json:"object"`
	Suppressed *struct {
		Reason string `json:"reason"`
	} `json:"suppressed"`
	Fixes []linter.SuggestedFix `json:"fixes"`
}

func TestVersion(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "--version")
	if r.code != ExitOK || r.stderr != "" || !strings.HasPrefix(r.stdout, "xpkg-lint ") {
		t.Errorf("--version: exit code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, nil, "--version", cleanPackage); r.code != ExitOK {
		t.Errorf("--version with a source: exit code %d", r.code)
	}
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Path: "example.org/acme", Version: "(devel)"}, Deps: []*debug.Module{{Path: modulePath, Version: "v0.9.0"}}}, "devel (xpkgkit v0.9.0)"},
		{&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}}}, "devel+0123456789ab"},
	} {
		if got := buildVersion(tc.bi, tc.bi != nil); got != tc.want {
			t.Errorf("buildVersion(%+v) = %q, want %q", tc.bi, got, tc.want)
		}
	}
	v := New(WithVersion("v9.9.9"))
	var out bytes.Buffer
	if code := v.Run(t.Context(), []string{"--version"}, nil, &out, io.Discard); code != ExitOK || !strings.HasSuffix(out.String(), " v9.9.9\n") {
		t.Errorf("WithVersion: exit %d, %q", code, out.String())
	}
}

// TestSuppressedCounted: the text and github formats leave suppressed
// findings out but say how many there were; JSON lists them apart and
// counts them in its summary.
func TestSuppressedCounted(t *testing.T) {
	t.Parallel()
	pkg := xpkgtest.NewProvider("provider-suppressed").
		WithoutAnnotation(meta.AnnotationDescription).
		WithAnnotation(meta.AnnotationSuppress, "XP206: described in the README").PackageYAMLFile(t)
	for _, f := range []string{"text", "github"} {
		r := runCLI(t, nil, "-o", f, "--fail-on", "info", pkg)
		if r.code != ExitOK || !strings.Contains(r.stdout, "; 1 suppressed by annotation\n") || strings.Contains(r.stdout, "XP206") {
			t.Errorf("-o %s: exit %d, output:\n%s", f, r.code, r.stdout)
		}
	}
	r := runCLI(t, nil, "-o", "json", pkg)
	ds, rep := decodeReport(t, r)
	if len(rep.Diagnostics) != 0 || len(rep.Suppressed) != 1 || rep.Summary.Suppressed != 1 || len(ds) != 1 {
		t.Errorf("json: %+v", rep)
	}
}
