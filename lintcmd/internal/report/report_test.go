package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/celskip"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

func diag(id string, sev linter.Severity, file string, line, col int, msg string) linter.Diagnostic {
	return linter.Diagnostic{RuleID: id, RuleName: "rule-" + strings.ToLower(id), Severity: sev, Message: msg,
		Pos: parser.Position{File: file, Line: line, Column: col}}
}

func TestGitHubCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		source *Source
		d      linter.Diagnostic
		want   string
	}{
		{"error", &Source{Name: "pkg"}, diag("XP1", linter.SeverityError, "a/b.yaml", 3, 5, "bad"),
			"::error file=a/b.yaml,line=3,col=5,title=XP1 rule-xp1::bad"},
		{"warning without column", &Source{Name: "pkg"}, diag("XP2", linter.SeverityWarning, "b.yaml", 7, 0, "w"),
			"::warning file=b.yaml,line=7,title=XP2 rule-xp2::w"},
		{"info is a notice", &Source{Name: "pkg"}, diag("XP3", linter.SeverityInfo, "c.yaml", 1, 1, "i"),
			"::notice file=c.yaml,line=1,col=1,title=XP3 rule-xp3::i"},
		{"escaped message", &Source{Name: "pkg"}, diag("XP1", linter.SeverityError, "a.yaml", 1, 1, "100% wrong\r\nnext: line, here"),
			`::error file=a.yaml,line=1,col=1,title=XP1 rule-xp1::100%25 wrong\r\nnext: line, here`},
		{"terminal escapes and a forged command", &Source{Name: "pkg"}, diag("XP1", linter.SeverityError, "a\x1b.yaml", 1, 1, "m\x1b[2J\n::error file=x::forged\u202e"),
			`::error file=a\x1b.yaml,line=1,col=1,title=XP1 rule-xp1::m\x1b[2J\n::error file=x::forged\u202e`},
		{"escaped properties", &Source{Name: "pkg"}, diag("XP1", linter.SeverityError, "dir,x/a:b%.yaml", 1, 1, "m"),
			"::error file=dir%2Cx/a%3Ab%25.yaml,line=1,col=1,title=XP1 rule-xp1::m"},
		{"image level", &Source{Name: "p.xpkg", Image: true}, diag("XP501", linter.SeverityError, "sha256:abc", 0, 0, "two bases"),
			"::error file=p.xpkg,title=XP501 rule-xp501::two bases"},
		{"image level on stdin", &Source{Name: StdinName, Image: true}, diag("XP501", linter.SeverityError, "sha256:abc", 0, 0, "two bases"),
			"::error title=XP501 rule-xp501::two bases"},
		{"inside an image", &Source{Name: "dist/p.xpkg", Image: true}, diag("XP1", linter.SeverityError, "package.yaml", 12, 3, "bad"),
			"::error file=dist/p.xpkg,title=XP1 rule-xp1::package.yaml:12:3: bad"},
		{"inside an image on stdin", &Source{Name: StdinName, Image: true}, diag("XP1", linter.SeverityError, "package.yaml", 12, 3, "bad"),
			"::error title=XP1 rule-xp1::package.yaml:12:3: bad"},
	}
	for _, tt := range tests {
		if got := GitHubCommand(tt.source, tt.d); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	sources := []*Source{
		{Name: "a", Kind: "directory", Diagnostics: []linter.Diagnostic{
			diag("XP1", linter.SeverityError, "a/x.yaml", 2, 3, "e"),
			diag("XP2", linter.SeverityWarning, "a/x.yaml", 4, 0, "w"),
			diag("XP3", linter.SeverityInfo, "sha256:abc", 0, 0, "i"),
		}},
		{Name: "gone", Err: errors.New("no such file")},
		{Name: "b", Kind: "xpkg"},
	}
	tests := []struct {
		name  string
		color bool
		want  string
	}{
		{"plain", false, "a (directory): 1 error, 1 warning, 1 info\n" +
			"a/x.yaml:2:3: error XP1 rule-xp1: e\n" +
			"a/x.yaml:4: warning XP2 rule-xp2: w\n" +
			"sha256:abc: info XP3 rule-xp3: i\n" +
			"\n" +
			"b (xpkg): no problems\n" +
			"\n" +
			"3 sources: 2 errors, 1 warning, 1 info, 1 unreadable source\n"},
		{"colour", true, "\x1b[1ma (directory)\x1b[0m: 1 error, 1 warning, 1 info\n" +
			"a/x.yaml:2:3: \x1b[1;31merror\x1b[0m XP1 rule-xp1: e\n" +
			"a/x.yaml:4: \x1b[1;33mwarning\x1b[0m XP2 rule-xp2: w\n" +
			"sha256:abc: \x1b[1;36minfo\x1b[0m XP3 rule-xp3: i\n" +
			"\n" +
			"\x1b[1mb (xpkg)\x1b[0m: no problems\n" +
			"\n" +
			"\x1b[1m3 sources: 2 errors, 1 warning, 1 info, 1 unreadable source\x1b[0m\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		w, err := New(FormatText, &buf, Options{Color: tt.color})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sources {
			if err := w.Source(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(0); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestJSONEmpty(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w, _ := New(FormatJSON, &buf, Options{})
	w.Source(&Source{Name: "clean"})
	if err := w.Close(0); err != nil {
		t.Fatal(err)
	}
	var rep JSONReport
	if err := json.Unmarshal(buf.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{`"diagnostics": []`, `"suppressed": []`, `"baselined": []`} {
		if !strings.Contains(buf.String(), l) {
			t.Errorf("no diagnostics: %q lacks %s", buf.String(), l)
		}
	}
	if rep.Summary != (Summary{Sources: 1}) {
		t.Errorf("summary %+v, want one source", rep.Summary)
	}
}

func TestSummaryLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    Summary
		want string
	}{
		{Summary{Sources: 1}, "1 source: 0 errors, 0 warnings, 0 info"},
		{Summary{Sources: 2, Unreadable: 1, Errors: 1, Suppressed: 3}, "2 sources: 1 error, 0 warnings, 0 info, 1 unreadable source; 3 suppressed by annotation"},
		{Summary{Sources: 1, Warnings: 2, Baselined: 4, StaleBaseline: 1}, "1 source: 0 errors, 2 warnings, 0 info; 4 in the baseline, 1 baseline entry no longer matches"},
		{Summary{Sources: 1, StaleBaseline: 2}, "1 source: 0 errors, 0 warnings, 0 info; 2 baseline entries no longer match"},
	} {
		if got := tc.s.Line(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestSARIFRules(t *testing.T) {
	t.Parallel()
	rules := rules.Builtin()
	var buf bytes.Buffer
	w, _ := New(FormatSARIF, &buf, Options{Rules: rules})
	w.Source(&Source{Name: "p", Diagnostics: []linter.Diagnostic{diag("XP201", linter.SeverityError, "p/x.yaml", 1, 1, "m")}})
	if err := w.Close(0); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	got := log.Runs[0].Tool.Driver.Rules
	if len(got) != len(rules) {
		t.Fatalf("%d rules, want %d", len(got), len(rules))
	}
	for i, r := range rules {
		g := got[i]
		if g.ID != r.ID || g.Name != r.Name || g.ShortDescription.Text != r.Title() || g.DefaultConfiguration.Level != Level(r.Severity) || g.FullDescription.Text == "" {
			t.Errorf("rule %d: %+v does not describe %s", i, g, r)
		}
	}
	res := log.Runs[0].Results[0]
	if res.RuleIndex == nil || got[*res.RuleIndex].ID != "XP201" {
		t.Errorf("result's ruleIndex %v does not point at XP201", res.RuleIndex)
	}
}

func TestFileURI(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"a/b.yaml":         "a/b.yaml",
		"dir with space/x": "dir%20with%20space/x",
		"/abs/p.xpkg":      "file:///abs/p.xpkg",
		"sha256:abc":       "./sha256:abc",
		"-":                "-",
		"":                 "",
	}
	for in, want := range tests {
		if got := FileURI(in); got != want {
			t.Errorf("FileURI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, f := range Formats() {
		if got, err := ParseFormat(string(f)); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
		if _, err := New(f, &bytes.Buffer{}, Options{}); err != nil {
			t.Errorf("New(%q): %v", f, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml): no error")
	}
	if _, err := New("xml", &bytes.Buffer{}, Options{}); err == nil {
		t.Error("New(xml): no error")
	}
}

func TestUnwrap(t *testing.T) {
	t.Parallel()
	in := "one\ntwo\n\nthree\n  indented\n- item\nfour"
	want := "one two\n\nthree\n  indented\n- item four"
	if got := unwrap(in); got != want {
		t.Errorf("unwrap:\n got %q\nwant %q", got, want)
	}
}

// TestSkippedCEL checks that every format says how many CEL rule
// evaluations were left out, and that none says anything when none were.
func TestSkippedCEL(t *testing.T) {
	t.Parallel()
	skipped := celskip.Counts{Transition: 2, Cost: 1, Unevaluated: 3}
	want := map[Format]string{
		FormatText:   "6 CEL rules not evaluated (2 transition, 1 over cost, 3 without CEL)",
		FormatGitHub: "6 CEL rules not evaluated (2 transition, 1 over cost, 3 without CEL)",
		FormatJSON:   `"skippedCEL": {`,
		FormatSARIF:  `"skippedCEL": {`,
	}
	for _, f := range Formats() {
		for _, sk := range []celskip.Counts{{}, skipped} {
			var b strings.Builder
			w, err := New(f, &b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Source(&Source{Name: "a", Kind: "directory", SkippedCEL: sk}); err != nil {
				t.Fatal(err)
			}
			if err := w.Source(&Source{Name: "b", Kind: "directory", SkippedCEL: sk}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(0); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if sk.Total() == 0 {
				if strings.Contains(out, "CEL") {
					t.Errorf("%s: nothing skipped, but the report says:\n%s", f, out)
				}
				continue
			}
			w2 := want[f]
			if f == FormatText || f == FormatGitHub {
				w2 = "12 CEL rules not evaluated (4 transition, 2 over cost, 6 without CEL)"
			}
			if !strings.Contains(out, w2) {
				t.Errorf("%s: want %q in:\n%s", f, w2, out)
			}
			if f == FormatJSON || f == FormatSARIF {
				for _, k := range []string{`"transition": 4`, `"cost": 2`, `"unevaluated": 6`} {
					if !strings.Contains(out, k) {
						t.Errorf("%s: want %s in:\n%s", f, k, out)
					}
				}
			}
		}
	}
}

// TestTextGitHubEscapeEveryValue: every value of a diagnostic and a source
// that the text and GitHub formats print (the source's name and kind, the
// file, the rule's ID and name, the message) is escaped: none can write a
// terminal escape or a line of its own (a forged diagnostic or workflow
// command), with colour on or off.
func TestTextGitHubEscapeEveryValue(t *testing.T) {
	t.Parallel()
	const evil = "x\x1b]0;pwned\a\x1b[2J\r\npackage.yaml:1:1: error XP100 forged: y\n::error file=a::forged\u202e\u0085"
	d := linter.Diagnostic{
		RuleID: "XP9" + evil, RuleName: "name" + evil, Severity: linter.SeverityError,
		Message: "message" + evil, Source: "src" + evil,
	}
	d.Pos.File, d.Pos.Line, d.Pos.Column = "file"+evil, 3, 4
	img := d
	img.Pos.File = "package.yaml"
	for _, tc := range []struct {
		format Format
		color  bool
	}{{FormatText, false}, {FormatText, true}, {FormatGitHub, false}} {
		var buf bytes.Buffer
		w, err := New(tc.format, &buf, Options{Color: tc.color})
		if err != nil {
			t.Fatal(err)
		}
		w.Source(&Source{Name: "dir" + evil, Kind: "directory" + evil, Diagnostics: []linter.Diagnostic{d}})
		w.Source(&Source{Name: "image" + evil, Kind: "xpkg", Image: true, Diagnostics: []linter.Diagnostic{img}})
		if err := w.Close(0); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if tc.color {
			// The writer's own colour escapes, and nothing else.
			for _, c := range []string{ansiReset, ansiBold, ansiRed} {
				out = strings.ReplaceAll(out, c, "")
			}
		}
		if err := safetext.CheckTerminal(out); err != nil {
			t.Errorf("%s (colour %v): %v\n%q", tc.format, tc.color, err, out)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for _, l := range lines {
			if strings.HasPrefix(l, "package.yaml:1:1") || strings.HasPrefix(l, "::error file=a::") {
				t.Errorf("%s (colour %v): a forged line: %q", tc.format, tc.color, l)
			}
		}
		want := map[Format]int{FormatText: 7, FormatGitHub: 3}[tc.format]
		if len(lines) != want {
			t.Errorf("%s (colour %v): %d lines, want %d:\n%s", tc.format, tc.color, len(lines), want, out)
		}
	}
}

// TestMinSeverity: the text and GitHub formats hide diagnostics below
// MinSeverity and say how many in the summary, which counts them all
// (issue 34, item 10).
func TestMinSeverity(t *testing.T) {
	t.Parallel()
	src := &Source{Name: "a", Kind: "directory", Diagnostics: []linter.Diagnostic{
		diag("XP1", linter.SeverityError, "a/x.yaml", 2, 3, "e"),
		diag("XP2", linter.SeverityWarning, "a/x.yaml", 4, 0, "w"),
		diag("XP3", linter.SeverityInfo, "a/x.yaml", 5, 1, "i"),
	}}
	for _, tc := range []struct {
		format Format
		min    linter.Severity
		lines  []string
		gone   []string
	}{
		{FormatText, linter.SeverityWarning, []string{"XP1", "XP2", "1 source: 1 error, 1 warning, 1 info; 1 below --min-severity not shown"}, []string{"XP3"}},
		{FormatText, linter.SeverityError, []string{"XP1", "2 below --min-severity not shown"}, []string{"XP2", "XP3"}},
		{FormatText, 0, []string{"XP1", "XP2", "XP3"}, []string{"not shown"}},
		{FormatGitHub, linter.SeverityWarning, []string{"title=XP1", "title=XP2", "1 below --min-severity not shown"}, []string{"title=XP3"}},
	} {
		var buf bytes.Buffer
		w, err := New(tc.format, &buf, Options{MinSeverity: tc.min})
		if err != nil {
			t.Fatal(err)
		}
		w.Source(src)
		if err := w.Close(0); err != nil {
			t.Fatal(err)
		}
		for _, s := range tc.lines {
			if !strings.Contains(buf.String(), s) {
				t.Errorf("%s at %v: lacks %q:\n%s", tc.format, tc.min, s, buf.String())
			}
		}
		for _, s := range tc.gone {
			if strings.Contains(buf.String(), s) {
				t.Errorf("%s at %v: shows %q:\n%s", tc.format, tc.min, s, buf.String())
			}
		}
	}
}

// TestJUnit: a JUnit XML report decodes, with one suite per source, one
// failing test case per diagnostic, one passing case for a clean source,
// one case in error for an unreadable one, and every text escaped.
func TestJUnit(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w, err := New(FormatJUnit, &buf, Options{ToolName: "xpkg-lint"})
	if err != nil {
		t.Fatal(err)
	}
	w.Source(&Source{Name: "a", Kind: "directory", Diagnostics: []linter.Diagnostic{
		diag("XP1", linter.SeverityError, "a/x.yaml", 2, 3, "bad \x1b[2J <value> & more"),
		diag("XP3", linter.SeverityInfo, "a/x.yaml", 5, 1, "i"),
	}})
	w.Source(&Source{Name: "clean", Kind: "xpkg"})
	w.Source(&Source{Name: "gone", Err: errors.New("no such file")})
	if err := w.Close(0); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.String())
	}
	if doc.Tests != 4 || doc.Failures != 2 || doc.Errors != 1 || len(doc.Suites) != 3 {
		t.Errorf("tests %d, failures %d, errors %d, suites %d; want 4, 2, 1, 3\n%s", doc.Tests, doc.Failures, doc.Errors, len(doc.Suites), buf.String())
	}
	first := doc.Suites[0].Cases[0]
	if first.Classname != "XP1 rule-xp1" || first.Name != "a/x.yaml:2:3" || first.Failure == nil || first.Failure.Type != "error" ||
		first.Failure.Message != `bad \x1b[2J <value> & more` {
		t.Errorf("first case %+v, failure %+v", first, first.Failure)
	}
	if err := safetext.CheckTerminal(buf.String()); err != nil {
		t.Errorf("JUnit output: %v", err)
	}
}
