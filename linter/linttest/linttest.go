package linttest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// Run lints each YAML fixture file in dir with rules (and no other rule)
// and checks the diagnostics against the files' want comments. The Lint
// options opts apply to every fixture before the fixture's own
// directives. It returns the results, one per file in name order.
func Run(t testing.TB, dir string, rules []*linter.Rule, opts ...linter.Option) []*linter.Result {
	t.Helper()
	files, err := Fixtures(dir)
	if err != nil {
		t.Fatalf("linttest: %v", err)
		return nil
	}
	if len(files) == 0 {
		t.Fatalf("linttest: no *.yaml fixtures in %s", dir)
		return nil
	}
	var results []*linter.Result
	for _, f := range files {
		if _, res := runFile(t, f, opts, rules); res != nil {
			results = append(results, res)
		}
	}
	return results
}

// RunFixes runs the fixtures of dir as Run does, then applies to each
// fixture the suggested fixes of its diagnostics (linter.ApplyFixes) and
// compares the fixed text with the golden file beside it, the fixture's
// name followed by ".golden" (NAME.yaml.golden): a fixture whose
// diagnostics suggest no fix needs none. A fix that does not apply cleanly
// fails the test. When the test binary's -update flag is set (a flag the
// test package defines, which RunFixes looks up by name), it writes the
// golden files instead of comparing them. It returns the results, one per
// file in name order.
func RunFixes(t testing.TB, dir string, rules []*linter.Rule, opts ...linter.Option) []*linter.Result {
	t.Helper()
	files, err := Fixtures(dir)
	if err != nil {
		t.Fatalf("linttest: %v", err)
		return nil
	}
	if len(files) == 0 {
		t.Fatalf("linttest: no *.yaml fixtures in %s", dir)
		return nil
	}
	var results []*linter.Result
	for _, path := range files {
		f, res := runFile(t, path, opts, rules)
		if res == nil {
			continue
		}
		results = append(results, res)
		var fixes []linter.SuggestedFix
		for _, d := range res.Diagnostics {
			fixes = append(fixes, d.SuggestedFixes...)
		}
		golden := path + ".golden"
		if len(fixes) == 0 {
			if _, err := os.Stat(golden); err == nil && !updating() {
				t.Errorf("%s: no fix suggested, but %s exists", f.Name, golden)
			}
			continue
		}
		fixed, _, skipped := linter.ApplyFixes(f.Name, f.Data, fixes)
		for i, why := range skipped {
			if why != "" {
				t.Errorf("%s: fix %q not applied: %s", f.Name, fixes[i].Message, why)
			}
		}
		if updating() {
			if err := os.WriteFile(golden, fixed, 0o644); err != nil {
				t.Errorf("linttest: %v", err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Errorf("%s: %v (go test -update writes it)", f.Name, err)
			continue
		}
		if !bytes.Equal(fixed, want) {
			t.Errorf("%s: the fixed text differs from %s (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", f.Name, filepath.Base(golden), fixed, want)
		}
	}
	return results
}

// updating reports whether the test binary's -update flag is set.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// RunSubject runs the rules of scope in rules (and no other rule) over
// subject with linter.LintSubject, the runner of rules over something
// other than one package: a *deps.Graph for linter.ScopeGraph (the rules
// of linter/graphrules), an *apidiff.Result for linter.ScopeChange (those
// of linter/changerules). It checks the diagnostics against the want
// comments of the fixture files given (ReadFixture reads them; parse each
// with parser.WithFile of its base name, so that the diagnostics name it):
// a diagnostic belongs to the fixture whose Name is its file, one with no
// file to the first fixture, and one in no fixture is unexpected. The
// runners' own Lint functions also apply the suppression annotations;
// RunSubject applies none. A failing rule fails the test.
func RunSubject(t testing.TB, scope linter.Scope, subject any, fixtures []string, rules []*linter.Rule, opts ...linter.Option) *linter.Result {
	t.Helper()
	if len(fixtures) == 0 {
		t.Fatalf("linttest: no fixture to check the diagnostics against")
		return nil
	}
	var fs []*Fixture
	for _, path := range fixtures {
		f, err := ReadFixture(path)
		if err != nil {
			t.Fatalf("linttest: %v", err)
			return nil
		}
		fs = append(fs, f)
	}
	res, err := linter.LintSubject(context.Background(), scope, subject, append([]linter.Option{linter.WithRuleSet(rules...)}, opts...)...)
	if err != nil {
		t.Fatalf("linttest: lint: %v", err)
		return nil
	}
	for _, fl := range res.Failures {
		t.Errorf("rule failed: %v", fl)
	}
	byFile := map[string][]linter.Diagnostic{}
	for _, d := range res.Diagnostics {
		name := d.Pos.File
		if name == "" {
			name = fs[0].Name
		}
		byFile[name] = append(byFile[name], d)
	}
	for _, f := range fs {
		for _, p := range Check(f, byFile[f.Name]) {
			t.Errorf("%s", p)
		}
		delete(byFile, f.Name)
	}
	var others []string
	for name := range byFile {
		others = append(others, name)
	}
	sort.Strings(others)
	for _, name := range others {
		for _, d := range byFile[name] {
			t.Errorf("%s:%d:%d: unexpected diagnostic %s %s in no fixture: %q", name, d.Pos.Line, d.Pos.Column, d.RuleID, d.RuleName, d.Message)
		}
	}
	return res
}

// Fixtures returns the paths of the fixture files of dir, sorted.
func Fixtures(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() && (strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(files)
	return files, nil
}

// Expectation is one expected diagnostic of a fixture.
type Expectation struct {
	// File is the fixture's base name.
	File string
	// Line is the line the diagnostic must point at; 0 for an image-level
	// diagnostic (want-image).
	Line int
	// Rule is the rule ID or name expected.
	Rule string
	// Severity is the severity the diagnostic must have; 0 accepts any
	// (a want that states none).
	Severity linter.Severity
	// Column is the column the diagnostic must point at; 0 accepts any.
	Column int
	// Pattern matches the diagnostic's message.
	Pattern *regexp.Regexp
}

// String formats the expectation as its want comment would state it.
func (w Expectation) String() string {
	s := w.Rule
	if w.Severity != 0 {
		s += ":" + w.Severity.String()
	}
	if w.Column != 0 {
		s += "@" + strconv.Itoa(w.Column)
	}
	return s + " " + strconv.Quote(w.Pattern.String())
}

// Fixture is a parsed fixture file.
type Fixture struct {
	// Name is the file's base name, used as the stream's file name.
	Name string
	// Data is the file's content.
	Data []byte
	// Want holds the expectations of its want comments.
	Want []Expectation
	// Options holds the Lint options of its directives and sidecar files.
	Options []linter.Option
	// ParseOptions holds the parser options of its directives.
	ParseOptions []parser.Option
}

var wantRE = regexp.MustCompile(`#\s*want(-image)?\s+(.*)$`)
var directiveRE = regexp.MustCompile(`#\s*linttest:\s*([a-z-]+)=(\S*)\s*$`)

// ReadFixture reads a fixture file, its want comments, directives and
// image facts sidecar.
func ReadFixture(path string) (*Fixture, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &Fixture{Name: filepath.Base(path), Data: data}
	for i, line := range strings.Split(string(data), "\n") {
		if m := directiveRE.FindStringSubmatch(line); m != nil {
			switch m[1] {
			case "crossplane-version":
				f.Options = append(f.Options, linter.WithCrossplaneVersion(m[2]))
			case "meta-group":
				f.ParseOptions = append(f.ParseOptions, parser.WithMetaGroup(m[2]))
			default:
				return nil, fmt.Errorf("%s:%d: unknown linttest directive %q", f.Name, i+1, m[1])
			}
			continue
		}
		m := wantRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		wants, err := parseWants(m[2])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", f.Name, i+1, err)
		}
		for _, w := range wants {
			w.File = f.Name
			if m[1] == "" {
				w.Line = i + 1
			}
			f.Want = append(f.Want, w)
		}
	}
	sidecar := strings.TrimSuffix(strings.TrimSuffix(path, ".yaml"), ".yml") + ".image.json"
	if b, err := os.ReadFile(sidecar); err == nil {
		var facts xpkg.ImageFacts
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&facts); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(sidecar), err)
		}
		f.Options = append(f.Options, rules.WithImageFacts(&facts))
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	return f, nil
}

// parseWants parses `ID "re" ID "re"...`, each ID optionally followed by
// ":severity" and "@column".
func parseWants(s string) ([]Expectation, error) {
	var out []Expectation
	s = strings.TrimSpace(s)
	for s != "" {
		spec, rest, ok := strings.Cut(s, " ")
		if !ok {
			return nil, fmt.Errorf("want %q: no pattern after the rule", s)
		}
		id, sev, col, err := parseRuleSpec(spec)
		if err != nil {
			return nil, err
		}
		rest = strings.TrimLeft(rest, " \t")
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, fmt.Errorf("want %s: the pattern must be a quoted Go string: %v", id, err)
		}
		pat, _ := strconv.Unquote(q)
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, fmt.Errorf("want %s: %v", id, err)
		}
		out = append(out, Expectation{Rule: id, Severity: sev, Column: col, Pattern: re})
		s = strings.TrimSpace(rest[len(q):])
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("want with no expectation")
	}
	return out, nil
}

// parseRuleSpec parses ID, ID:severity, ID@column or ID:severity@column.
func parseRuleSpec(spec string) (id string, sev linter.Severity, col int, err error) {
	id, c, hasCol := strings.Cut(spec, "@")
	if hasCol {
		col, err = strconv.Atoi(c)
		if err != nil || col < 1 {
			return "", 0, 0, fmt.Errorf("want %s: the column after '@' must be a number from 1", spec)
		}
	}
	id, sv, hasSev := strings.Cut(id, ":")
	if hasSev {
		sev, err = linter.ParseSeverity(sv)
		if err != nil || strings.TrimSpace(sv) != sv {
			return "", 0, 0, fmt.Errorf("want %s: the severity after ':' must be error, warning or info", spec)
		}
	}
	if id == "" {
		return "", 0, 0, fmt.Errorf("want %s: no rule", spec)
	}
	return id, sev, col, nil
}

func runFile(t testing.TB, path string, opts []linter.Option, rules []*linter.Rule) (*Fixture, *linter.Result) {
	t.Helper()
	f, err := ReadFixture(path)
	if err != nil {
		t.Errorf("linttest: %v", err)
		return nil, nil
	}
	ctx := context.Background()
	popts := append([]parser.Option{parser.WithFile(f.Name)}, f.ParseOptions...)
	pkg, err := parser.Parse(ctx, bytes.NewReader(f.Data), popts...)
	if err != nil {
		t.Errorf("linttest: %s: parse: %v", f.Name, err)
		return f, nil
	}
	all := append(append([]linter.Option{linter.WithRuleSet(rules...)}, opts...), f.Options...)
	res, err := linter.Lint(ctx, pkg, all...)
	if err != nil {
		t.Errorf("linttest: %s: lint: %v", f.Name, err)
		return f, nil
	}
	for _, fl := range res.Failures {
		t.Errorf("%s: rule failed: %v", f.Name, fl)
	}
	for _, p := range Check(f, res.Diagnostics) {
		t.Errorf("%s", p)
	}
	return f, res
}

// Check compares diagnostics with a fixture's expectations and returns one
// message per problem: an unexpected, missing or misplaced diagnostic, or
// one of another severity or column than its want states. Diagnostics with
// no file are taken to be the fixture's.
func Check(f *Fixture, diags []linter.Diagnostic) []string {
	matched := make([]bool, len(f.Want))
	var extra []linter.Diagnostic
	// find returns the first unmatched want d satisfies: fully when exact,
	// else by rule and message only.
	find := func(d linter.Diagnostic, exact bool) int {
		for i, w := range f.Want {
			if matched[i] || !ruleMatches(w.Rule, d) || !w.Pattern.MatchString(d.Message) {
				continue
			}
			if exact && (w.Line != d.Pos.Line || w.Severity != 0 && w.Severity != d.Severity || w.Column != 0 && w.Column != d.Pos.Column) {
				continue
			}
			return i
		}
		return -1
	}
	for _, d := range diags {
		if d.Pos.File == "" {
			d.Pos.File = f.Name
		}
		if d.Pos.Line != 0 && d.Pos.File != f.Name {
			extra = append(extra, d)
			continue
		}
		if i := find(d, true); i >= 0 {
			matched[i] = true
			continue
		}
		extra = append(extra, d)
	}
	var problems []string
	for _, d := range extra {
		if d.Pos.File == "" {
			d.Pos.File = f.Name
		}
		if i := find(d, false); i >= 0 {
			matched[i] = true
			w := f.Want[i]
			var want []string
			if w.Line != d.Pos.Line {
				want = append(want, fmt.Sprintf("at line %d", w.Line))
			}
			if w.Column != 0 && w.Column != d.Pos.Column {
				want = append(want, fmt.Sprintf("at column %d", w.Column))
			}
			if w.Severity != 0 && w.Severity != d.Severity {
				want = append(want, fmt.Sprintf("of severity %s, not %s", w.Severity, d.Severity))
			}
			problems = append(problems, fmt.Sprintf("%s:%d: misplaced diagnostic %s %s: %q: want it %s",
				f.Name, d.Pos.Line, d.RuleID, d.RuleName, d.Message, strings.Join(want, ", ")))
			continue
		}
		problems = append(problems, fmt.Sprintf("%s:%d:%d: unexpected diagnostic %s %s: %q", f.Name, d.Pos.Line, d.Pos.Column, d.RuleID, d.RuleName, d.Message))
	}
	for i, w := range f.Want {
		if matched[i] {
			continue
		}
		where := fmt.Sprintf("%s:%d", w.File, w.Line)
		if w.Line == 0 {
			where = w.File + " (image)"
		}
		var also string
		if w.Severity != 0 {
			also += " of severity " + w.Severity.String()
		}
		if w.Column != 0 {
			also += fmt.Sprintf(" at column %d", w.Column)
		}
		problems = append(problems, fmt.Sprintf("%s: no %s diagnostic%s matching %q", where, w.Rule, also, w.Pattern))
	}
	return problems
}

func ruleMatches(rule string, d linter.Diagnostic) bool {
	return strings.EqualFold(rule, d.RuleID) || rule == d.RuleName
}
