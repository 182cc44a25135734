package linttest_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/linttest"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// noDeployment reports every Deployment, at its kind, and once more when
// it has no spec.
func noDeployment() *linter.Rule {
	return &linter.Rule{
		ID: "T001", Name: "no-deployment", Severity: linter.SeverityError,
		Doc: "No Deployments\n\nA test rule.",
		Run: func(p *linter.Pass) error {
			for _, o := range p.Package.Objects {
				if o.Kind == "Deployment" {
					p.Reportf(o, []string{"kind"}, "kind Deployment %q is not wanted", o.ObjectMeta.Name)
					if _, ok := o.Outline()["spec"]; !ok {
						p.Reportf(o, []string{"kind"}, "Deployment %q has no spec", o.ObjectMeta.Name)
					}
				}
			}
			return nil
		},
	}
}

// imageSource reports the image's source, once, and checks the target
// version directive arrived.
func imageSource() *linter.Rule {
	return &linter.Rule{
		ID: "T002", Name: "image-source", Severity: linter.SeverityInfo,
		Doc: "Image source\n\nA test rule.",
		Run: func(p *linter.Pass) error {
			if rules.ImageFacts(p) == nil {
				return nil
			}
			if p.CrossplaneVersion != "v2.0.0" {
				return fmt.Errorf("crossplane-version directive not applied: %q", p.CrossplaneVersion)
			}
			p.Report(linter.Diagnostic{Pos: parser.Position{File: rules.ImageFacts(p).Source}, Message: "image " + rules.ImageFacts(p).Source})
			return nil
		},
	}
}

// fakeTB records what a test reports instead of failing.
type fakeTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
	fatal  bool
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	f.fatal = true
	runtime.Goexit()
}

// run runs fn with a fake TB in its own goroutine, so Fatalf can stop it.
func run(fn func(tb testing.TB)) *fakeTB {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f
}

func TestRunPasses(t *testing.T) {
	t.Parallel()
	results := linttest.Run(t, "testdata/pass", []*linter.Rule{noDeployment(), imageSource()})
	if len(results) != 2 {
		t.Fatalf("got %d results, want 2", len(results))
	}
}

func TestRunReportsProblems(t *testing.T) {
	t.Parallel()
	f := run(func(tb testing.TB) { linttest.Run(tb, "testdata/fail", []*linter.Rule{noDeployment()}) })
	want := []string{
		`mismatch.yaml:7: misplaced diagnostic T001 no-deployment: "kind Deployment \"web\" is not wanted": want it at line 9`,
		`mismatch.yaml:13:1: unexpected diagnostic T001 no-deployment: "Deployment \"api\" has no spec"`,
		`mismatch.yaml:13:1: unexpected diagnostic T001 no-deployment: "kind Deployment \"api\" is not wanted"`,
		`mismatch.yaml:2: no T001 diagnostic matching "never reported"`,
	}
	if strings.Join(f.errors, "\n") != strings.Join(want, "\n") {
		t.Errorf("reported:\n%s\nwant:\n%s", strings.Join(f.errors, "\n"), strings.Join(want, "\n"))
	}
}

func TestRunChecksSeverityAndColumn(t *testing.T) {
	t.Parallel()
	linttest.Run(t, "testdata/severity", []*linter.Rule{noDeployment()})
	f := run(func(tb testing.TB) { linttest.Run(tb, "testdata/failseverity", []*linter.Rule{noDeployment()}) })
	want := []string{
		`mismatch.yaml:7: misplaced diagnostic T001 no-deployment: "Deployment \"web\" has no spec": want it at column 3`,
		`mismatch.yaml:7: misplaced diagnostic T001 no-deployment: "kind Deployment \"web\" is not wanted": want it of severity warning, not error`,
		`mismatch.yaml:12:1: unexpected diagnostic T001 no-deployment: "kind Deployment \"api\" is not wanted"`,
		`mismatch.yaml:14: no T001 diagnostic of severity info at column 7 matching "never reported"`,
	}
	if strings.Join(f.errors, "\n") != strings.Join(want, "\n") {
		t.Errorf("reported:\n%s\nwant:\n%s", strings.Join(f.errors, "\n"), strings.Join(want, "\n"))
	}
}

func TestRuleSpecs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		want string
		rule string
		sev  linter.Severity
		col  int
		err  string
	}{
		{want: `# want XP101 "x"`, rule: "XP101"},
		{want: `# want XP101:error "x"`, rule: "XP101", sev: linter.SeverityError},
		{want: `# want one-meta:Warning@12 "x"`, rule: "one-meta", sev: linter.SeverityWarning, col: 12},
		{want: `# want XP101@3 "x"`, rule: "XP101", col: 3},
		{want: `# want XP101:bad "x"`, err: "severity after ':'"},
		{want: `# want XP101@0 "x"`, err: "column after '@'"},
		{want: `# want XP101@x "x"`, err: "column after '@'"},
		{want: `# want :error "x"`, err: "no rule"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		path := dir + "/f.yaml"
		if err := os.WriteFile(path, []byte("apiVersion: v1\nkind: ConfigMap "+tt.want+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := linttest.ReadFixture(path)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one mentioning %q", tt.want, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.want, err)
			continue
		}
		if len(f.Want) != 1 || f.Want[0].Rule != tt.rule || f.Want[0].Severity != tt.sev || f.Want[0].Column != tt.col || f.Want[0].Line != 2 {
			t.Errorf("%s: parsed as %+v", tt.want, f.Want)
		}
	}
}

func TestRunFailures(t *testing.T) {
	t.Parallel()
	failing := &linter.Rule{
		ID: "T003", Name: "broken", Severity: linter.SeverityError, Doc: "Broken",
		Run: func(*linter.Pass) error { return fmt.Errorf("boom") },
	}
	tests := []struct {
		name  string
		dir   string
		rules []*linter.Rule
		want  string
		fatal bool
	}{
		{name: "missing dir", dir: "testdata/nope", rules: []*linter.Rule{noDeployment()}, want: "no such file", fatal: true},
		{name: "empty dir", dir: "testdata/empty", rules: []*linter.Rule{noDeployment()}, want: "no *.yaml fixtures", fatal: true},
		{name: "bad want", dir: "testdata/badwant", rules: []*linter.Rule{noDeployment()}, want: "the pattern must be a quoted Go string"},
		{name: "rule error", dir: "testdata/pass", rules: []*linter.Rule{noDeployment(), imageSource(), failing}, want: "rule failed: rule T003 broken: boom"},
		{name: "invalid rule set", dir: "testdata/pass", rules: []*linter.Rule{{ID: "T004"}}, want: "invalid rule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := run(func(tb testing.TB) { linttest.Run(tb, tt.dir, tt.rules) })
			if f.fatal != tt.fatal {
				t.Errorf("fatal = %v, want %v", f.fatal, tt.fatal)
			}
			if !strings.Contains(strings.Join(f.errors, "\n"), tt.want) {
				t.Errorf("reported %q, want it to mention %q", f.errors, tt.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	f, err := linttest.ReadFixture("testdata/pass/objects.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Want) != 2 || f.Want[0].Line != 8 || f.Want[1].Rule != "no-deployment" {
		t.Fatalf("want comments parsed as %+v", f.Want)
	}
	// A diagnostic without a file is the fixture's.
	d := linter.Diagnostic{RuleID: "T001", RuleName: "no-deployment", Message: `kind Deployment "web" is not wanted`}
	d.Pos.Line = 8
	d2 := d
	d2.Message = `Deployment "web" has no spec`
	if p := linttest.Check(f, []linter.Diagnostic{d, d2}); len(p) != 0 {
		t.Errorf("Check = %q, want no problems", p)
	}
	if p := linttest.Check(f, nil); len(p) != 2 {
		t.Errorf("Check(nil) = %q, want two missing diagnostics", p)
	}
}
