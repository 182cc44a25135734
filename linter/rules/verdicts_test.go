package rules_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/rules"

	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// verdictsDir holds the parity table: cases.yaml and the packages it names.
var verdictsDir = filepath.Join("testdata", "verdicts")

// verdictCase is one case of the parity table (see the comment at the top
// of testdata/verdicts/cases.yaml).
type verdictCase struct {
	Name      string   `json:"name"`
	Kind      string   `json:"kind"`
	Stage     string   `json:"stage"`
	Exit      int      `json:"exit"`
	Package   string   `json:"package"`
	Errors    []string `json:"errors,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
	Infos     []string `json:"infos,omitempty"`
	Target    string   `json:"target,omitempty"`
	Source    string   `json:"source"`
	Decides   string   `json:"decides"`
	Why       string   `json:"why"`
	Pending   string   `json:"pending,omitempty"`
	Disagrees string   `json:"disagrees,omitempty"`
	Rules     string   `json:"rules,omitempty"`
}

// apiServerRules marks a case judged with linter/apiserver's rules
// too (its TestVerdicts runs it).
const apiServerRules = "apiserver"

// sourcePattern is repository@version:path:line, the repository one of
// Crossplane's, the version a tag (a release candidate where the release
// is not tagged yet: crossplane's v2.4.0-rc.0).
var sourcePattern = regexp.MustCompile(`^(crossplane|crossplane-runtime)@v([0-9]+\.[0-9]+)\.[0-9]+(-rc\.[0-9]+)?:[A-Za-z0-9_./-]+:[1-9][0-9]*$`)

// targetPattern is a case's target: a Crossplane release.
var targetPattern = regexp.MustCompile(`^v([0-9]+\.[0-9]+)\.[0-9]+$`)

var (
	verdictKinds  = []string{"Provider", "Configuration", "Function"}
	verdictStages = []string{"build", "install", "cannot-work", "accepted"}
	// verdictTargets are the release lines cases are judged at.
	verdictTargets = []string{"1.20", "2.1", "2.2", "2.3", "2.4"}
)

// minVerdictCases is how many cases the table holds at least.
const minVerdictCases = 150

// pendingTarget are the cases xpkgkit gets wrong until the target table
// and the rule deltas of issue 18 (branch h18-target) are merged: each is
// a Crossplane delta at the case's target that xpkgkit, judging every
// target as v2.1.0 today, does not know yet, or a v2.1.0 mismatch the same
// branch fixes. TestVerdicts skips them with the reason; the lead removes
// an entry once the branch that fixes it is merged, and TestVerdicts fails
// on an entry whose case already passes.
var pendingTarget = map[string]string{}

func readVerdicts(t *testing.T) []verdictCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(verdictsDir, "cases.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Cases []verdictCase `json:"cases"`
	}
	if err := yaml.UnmarshalStrict(data, &table); err != nil {
		t.Fatalf("cases.yaml: %v", err)
	}
	return table.Cases
}

// TestVerdictTable checks the table itself: every case is complete and
// consistent, every package file belongs to a case, and the cases cover
// build-time and install-time refusals, and acceptance, of every package
// kind.
func TestVerdictTable(t *testing.T) {
	t.Parallel()
	cases := readVerdicts(t)
	if len(cases) < minVerdictCases {
		t.Errorf("the parity table has %d cases, want at least %d", len(cases), minVerdictCases)
	}
	for name := range pendingTarget {
		if !slices.ContainsFunc(cases, func(c verdictCase) bool { return c.Name == name }) {
			t.Errorf("pendingTarget names %s, which is no case", name)
		}
	}
	names := map[string]bool{}
	used := map[string]bool{}
	covered := map[string]bool{}
	for _, c := range cases {
		if c.Name == "" || names[c.Name] {
			t.Errorf("case %q: empty or repeated name", c.Name)
		}
		names[c.Name] = true
		if !slices.Contains(verdictKinds, c.Kind) || !slices.Contains(verdictStages, c.Stage) {
			t.Errorf("case %s: kind %q or stage %q unknown", c.Name, c.Kind, c.Stage)
		}
		if (c.Exit == 1) != (len(c.Errors) > 0) || c.Exit != 0 && c.Exit != 1 {
			t.Errorf("case %s: exit %d but errors %v: exit 1 goes with errors, exit 0 without", c.Name, c.Exit, c.Errors)
		}
		if (c.Stage == "accepted") != (c.Exit == 0) && c.Disagrees == "" {
			t.Errorf("case %s: stage %s with exit %d: only a deliberate disagreement (disagrees) may differ", c.Name, c.Stage, c.Exit)
		}
		if !sourcePattern.MatchString(c.Source) || strings.TrimSpace(c.Decides) == "" || strings.TrimSpace(c.Why) == "" {
			t.Errorf("case %s: source %q must be repository@version:path:line, with decides and why", c.Name, c.Source)
		}
		// The deciding line is Crossplane's at the case's target: the
		// same release line (crossplane-runtime's versions follow
		// Crossplane's).
		if m := targetPattern.FindStringSubmatch(c.Target); m == nil || !slices.Contains(verdictTargets, m[1]) {
			t.Errorf("case %s: target %q must be a release of one of the lines %v", c.Name, c.Target, verdictTargets)
		} else if sm := sourcePattern.FindStringSubmatch(c.Source); sm != nil && sm[2] != m[1] {
			t.Errorf("case %s: source %s is not Crossplane's %s line, the case's target", c.Name, c.Source, m[1])
		}
		if c.Rules != "" && c.Rules != "builtin" && c.Rules != apiServerRules {
			t.Errorf("case %s: rules %q: want builtin or %s", c.Name, c.Rules, apiServerRules)
		}
		for _, id := range slices.Concat(c.Errors, c.Warnings, c.Infos) {
			// XP420-XP423 are linter/apiserver's.
			apiRule := c.Rules == apiServerRules && slices.Contains([]string{"XP420", "XP421", "XP422", "XP423"}, id)
			if rules.Lookup(id) == nil && c.Pending == "" && !apiRule {
				t.Errorf("case %s: rule %s is not a built-in rule", c.Name, id)
			}
		}
		used[strings.TrimSuffix(c.Package, "/")] = true
		if _, err := os.Stat(filepath.Join(verdictsDir, "packages", c.Package)); err != nil {
			t.Errorf("case %s: %v", c.Name, err)
		}
		covered[c.Kind+"/"+c.Stage] = true
	}
	for _, k := range verdictKinds {
		for _, s := range []string{"build", "install", "accepted"} {
			if !covered[k+"/"+s] {
				t.Errorf("no case covers a %s package at stage %s", k, s)
			}
		}
	}
	entries, err := os.ReadDir(filepath.Join(verdictsDir, "packages"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !used[e.Name()] {
			t.Errorf("packages/%s belongs to no case of cases.yaml", e.Name())
		}
	}
}

// TestVerdicts lints every package of the parity table with the built-in
// rules at the case's target and checks xpkg-lint's verdict (exit 1 when
// any diagnostic is an error) and the rules behind it. A case marked
// pending (its pending field, or pendingTarget) is skipped, with its
// reason, until the work it needs is merged; a case of pendingTarget that
// already passes fails the test, so that its mark is removed.
func TestVerdicts(t *testing.T) {
	t.Parallel()
	for _, c := range readVerdicts(t) {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			if c.Pending != "" {
				t.Skipf("pending: %s", c.Pending)
			}
			if c.Rules == apiServerRules {
				t.Skip("judged with the API-server rules: TestVerdicts in linter/apiserver")
			}
			problems := verdictProblems(c)
			reason, pending := pendingTarget[c.Name]
			switch {
			case pending && len(problems) == 0:
				t.Errorf("pending (%s) but the case passes: remove it from pendingTarget", reason)
			case pending:
				t.Skipf("pending (%s): %s", reason, strings.Join(problems, "; "))
			}
			for _, p := range problems {
				t.Error(p)
			}
		})
	}
}

// verdictProblems lints a case's package at its target and says where
// xpkgkit's verdict differs from the case's; none when it agrees.
func verdictProblems(c verdictCase) []string {
	pkg, examples, err := parseVerdictPackage(filepath.Join(verdictsDir, "packages", c.Package), strings.HasSuffix(c.Package, "/"))
	if err != nil {
		return []string{err.Error()}
	}
	var opts []linter.Option
	if examples != nil {
		opts = append(opts, rules.WithExamples(examples))
	}
	if c.Target != "" {
		opts = append(opts, linter.WithCrossplaneVersion(c.Target))
	}
	res, err := linter.Lint(context.Background(), pkg, append([]linter.Option{linter.WithRuleSet(rules.Builtin()...)}, opts...)...)
	if err != nil {
		return []string{err.Error()}
	}
	if len(res.Failures) > 0 {
		return []string{fmt.Sprintf("rule failures: %v", res.Failures)}
	}
	by := map[linter.Severity][]string{}
	for _, d := range res.Diagnostics {
		if !slices.Contains(by[d.Severity], d.RuleID) {
			by[d.Severity] = append(by[d.Severity], d.RuleID)
		}
	}
	exit := 0
	if len(by[linter.SeverityError]) > 0 {
		exit = 1
	}
	var problems []string
	errs := slices.Sorted(slices.Values(by[linter.SeverityError]))
	want := slices.Sorted(slices.Values(c.Errors))
	if exit != c.Exit || !slices.Equal(errs, want) {
		problems = append(problems, fmt.Sprintf("exit %d with errors from %v; want exit %d with errors from %v (Crossplane %s: %s, %s)\n%s",
			exit, errs, c.Exit, want, c.Target, c.Source, c.Why, describe(res.Diagnostics)))
	}
	for _, w := range []struct {
		sev  linter.Severity
		want []string
	}{{linter.SeverityWarning, c.Warnings}, {linter.SeverityInfo, c.Infos}} {
		for _, id := range w.want {
			if !slices.Contains(by[w.sev], id) {
				problems = append(problems, fmt.Sprintf("no %s from %s\n%s", w.sev, id, describe(res.Diagnostics)))
			}
		}
	}
	return problems
}

// parseVerdictPackage parses a case's package: a YAML stream, or a
// directory in the on-disk format.
func parseVerdictPackage(p string, dir bool) (pkg, examples *parser.Package, err error) {
	ctx := context.Background()
	if dir {
		// As xpkg-lint reads a package directory: its examples/ too, with
		// the examples Crossplane's build cannot parse reported.
		xp, err := xpkg.Open(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return xp.Package, xp.Examples, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, nil, err
	}
	pkg, err = parser.Parse(ctx, bytes.NewReader(data), parser.WithFile(path.Base(p)))
	return pkg, nil, err
}
