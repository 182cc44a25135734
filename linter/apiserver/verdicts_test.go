package apiserver_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/rules"

	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apiserver"
	"github.com/xpkgkit/xpkgkit/parser"
)

// verdictsDir is the linter's parity table.
var verdictsDir = filepath.Join("..", "rules", "testdata", "verdicts")

// verdictCase is the part of a case of the parity table this test reads
// (see the comment at the top of cases.yaml).
type verdictCase struct {
	Name     string   `json:"name"`
	Package  string   `json:"package"`
	Target   string   `json:"target"`
	Exit     int      `json:"exit"`
	Errors   []string `json:"errors"`
	Warnings []string `json:"warnings"`
	Source   string   `json:"source"`
	Why      string   `json:"why"`
	Rules    string   `json:"rules"`
	Pending  string   `json:"pending"`
}

// TestVerdicts lints every case of the parity table marked rules:
// apiserver with the built-in rules and this package's, as xpkg-lint
// runs them, at the case's target, and checks the verdict: the exit code,
// exactly the rules that report errors, and the warnings the case names.
func TestVerdicts(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(verdictsDir, "cases.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Cases []verdictCase `json:"cases"`
	}
	if err := yaml.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range table.Cases {
		if c.Rules != "apiserver" {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			if c.Pending != "" {
				t.Skipf("pending: %s", c.Pending)
			}
			if !strings.HasSuffix(c.Package, ".yaml") {
				t.Fatalf("package %s: this test reads YAML streams only", c.Package)
			}
			ctx := context.Background()
			p := filepath.Join(verdictsDir, "packages", c.Package)
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			pkg, err := parser.Parse(ctx, bytes.NewReader(src), parser.WithFile(path.Base(p)))
			if err != nil {
				t.Fatal(err)
			}
			res, err := linter.Lint(ctx, pkg, append(append([]linter.Option{linter.WithRuleSet(rules.Builtin()...)}, apiserver.LintOptions()...), linter.WithCrossplaneVersion(c.Target))...)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Failures) > 0 {
				t.Fatalf("rule failures: %v", res.Failures)
			}
			by := map[linter.Severity][]string{}
			var all strings.Builder
			for _, d := range res.Diagnostics {
				if !slices.Contains(by[d.Severity], d.RuleID) {
					by[d.Severity] = append(by[d.Severity], d.RuleID)
				}
				fmt.Fprintf(&all, "  %s\n", d.String())
			}
			exit := 0
			if len(by[linter.SeverityError]) > 0 {
				exit = 1
			}
			errs := slices.Sorted(slices.Values(by[linter.SeverityError]))
			want := slices.Sorted(slices.Values(c.Errors))
			if exit != c.Exit || !slices.Equal(errs, want) {
				t.Errorf("exit %d with errors from %v; want exit %d with errors from %v (Crossplane %s: %s, %s)\n%s",
					exit, errs, c.Exit, want, c.Target, c.Source, c.Why, all.String())
			}
			for _, id := range c.Warnings {
				if !slices.Contains(by[linter.SeverityWarning], id) {
					t.Errorf("no warning from %s\n%s", id, all.String())
				}
			}
		})
	}
	if n == 0 {
		t.Error("no case of cases.yaml is judged with the API-server rules")
	}
}
