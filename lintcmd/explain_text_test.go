package lintcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/linter"
)

// TestExplainNotes: --explain knows XP000, the checker's own finding for
// what it could not read or check (issue 34, item 3), and says that
// answers follow --crossplane-version only for xpkgkit's own rules, not
// for a checker's custom rule (item 8).
func TestExplainNotes(t *testing.T) {
	t.Parallel()
	custom := &linter.Rule{ID: "ACME001", Name: "acme-owner", Severity: linter.SeverityWarning,
		Doc: "Every package names an owner\n\nACME's packages carry an owner annotation.", Run: func(*linter.Pass) error { return nil }}
	ck := New(WithName("acme-lint"), WithRules(custom))
	const versionNote = "follow --crossplane-version"
	for _, tc := range []struct {
		rule        string
		want        []string
		wantVersion bool
		wantDisable bool
	}{
		{"XP000", []string{"XP000 source-unreadable", "could not be read or checked", "--deps", "--against"}, false, false},
		{"source-unreadable", []string{"XP000 source-unreadable"}, false, false},
		{"ACME001", []string{"ACME001 acme-owner", "Every package names an owner"}, false, true},
		{"XP201", []string{"XP201"}, true, true},
		{"XP601", []string{"XP601"}, true, true},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			if code := ck.Run(context.Background(), []string{"--explain", tc.rule}, nil, &stdout, &stderr); code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			out := stdout.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("lacks %q:\n%s", w, out)
				}
			}
			if got := strings.Contains(out, versionNote); got != tc.wantVersion {
				t.Errorf("the --crossplane-version note: %v, want %v:\n%s", got, tc.wantVersion, out)
			}
			if got := strings.Contains(out, "Disable it with"); got != tc.wantDisable {
				t.Errorf("how to disable it: %v, want %v:\n%s", got, tc.wantDisable, out)
			}
		})
	}
}

// refusingError is a verification error that refuses the package, as
// xpkg/verify's *Error does for a package without a signature.
type refusingError struct{ refused bool }

func (e refusingError) Error() string { return "verify: no signature" }
func (e refusingError) Refused() bool { return e.refused }

// TestVerifyRefusedIsAFinding: under --verify, a package whose required
// signature does not verify (the verifier's error says Refused) is refused
// by Crossplane: an XP510 finding, exit 1; a verification that could not
// be made stays exit 2 (issue 34, item 7). The verifier is asked before
// anything is pulled, so no registry is needed.
func TestVerifyRefusedIsAFinding(t *testing.T) {
	t.Parallel()
	const ref = "registry.invalid/acme/unsigned:v1"
	for _, tc := range []struct {
		name string
		err  error
		code int
		want string
	}{
		{"refused", refusingError{true}, ExitFindings, `"rule": "XP510"`},
		{"could not be checked", refusingError{false}, ExitError, `"rule": "XP000"`},
		{"wrapped refusal", fmt.Errorf("collect: %w", refusingError{true}), ExitFindings, `"name": "signature-refused"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runVerifying(t, &fakeVerifier{applied: true, err: tc.err}, "--cache-dir", t.TempDir(), "-o", "json", ref)
			if r.code != tc.code || !strings.Contains(r.stdout, tc.want) {
				t.Errorf("exit %d, want %d with %s\n%s\n%s", r.code, tc.code, tc.want, r.stdout, r.stderr)
			}
		})
	}
	var stdout, stderr bytes.Buffer
	if code := New().Run(context.Background(), []string{"--explain", "XP510"}, nil, &stdout, &stderr); code != ExitOK || !strings.Contains(stdout.String(), "signature-refused") {
		t.Errorf("--explain XP510: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}

// TestFixUnfixableSourceOnce: --fix on a source that is no package
// directory or file (standard input here, an image alike) says once that
// its fixes were not applied, and fails (issue 34, item 8: it printed a
// line per finding and exited 0).
func TestFixUnfixableSourceOnce(t *testing.T) {
	t.Parallel()
	var stream []byte
	for _, f := range []string{"crossplane.yaml", "composition.yaml"} {
		b, err := os.ReadFile(filepath.Join(fixPackage, f))
		if err != nil {
			t.Fatal(err)
		}
		stream = append(append(stream, "---\n"...), b...)
	}
	for _, flag := range []string{"--fix", "--diff"} {
		r := runCLI(t, stream, flag, "-")
		if r.code != ExitError || strings.Count(r.stderr, "not applied") != 1 {
			t.Errorf("%s -: exit %d, want %d and one line that says so:\n%s", flag, r.code, ExitError, r.stderr)
		}
	}
}

// TestJUnitAndMinSeverity: -o junit writes JUnit XML with a failing test
// case per finding; --min-severity warning hides info from the text
// output, counted in the summary (issue 34, item 10).
func TestJUnitAndMinSeverity(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "-o", "junit", warnPackage)
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, "<?xml") || !strings.Contains(r.stdout, `<failure message=`) || !strings.Contains(r.stdout, `classname="XP206 description"`) {
		t.Errorf("-o junit: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	all := runCLI(t, nil, warnPackage)
	hid := runCLI(t, nil, "--min-severity", "warning", warnPackage)
	if !strings.Contains(all.stdout, "info XP206") || strings.Contains(hid.stdout, "info XP206") || !strings.Contains(hid.stdout, "1 info; 1 below --min-severity not shown") {
		t.Errorf("--min-severity warning:\n%s\nwithout it:\n%s", hid.stdout, all.stdout)
	}
	if r := runCLI(t, nil, "--min-severity", "loud", warnPackage); r.code != ExitError || !strings.Contains(r.stderr, "--min-severity") {
		t.Errorf("--min-severity loud: exit %d, %s", r.code, r.stderr)
	}
}

// TestExplainEscapes: a checker's own rule brings its doc and title, text
// the user sees that xpkgkit did not write: --explain and --list-rules
// escape it (safetext), so a terminal escape or a carriage return in it
// reaches no terminal raw (issue 30 class 9, every text a user sees).
func TestExplainEscapes(t *testing.T) {
	t.Parallel()
	custom := &linter.Rule{ID: "ACME002", Name: "acme-escape", Severity: linter.SeverityWarning,
		Doc: "Owner \x1b[31mred\x1b[0m\r\n\nBody \x07bell.", Run: func(*linter.Pass) error { return nil }}
	ck := New(WithName("acme-lint"), WithRules(custom))
	for _, args := range [][]string{{"--explain", "ACME002"}, {"--list-rules"}} {
		var stdout, stderr bytes.Buffer
		if code := ck.Run(context.Background(), args, nil, &stdout, &stderr); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		if err := safetext.CheckTerminal(stdout.String()); err != nil {
			t.Errorf("%v: %v:\n%q", args, err, stdout.String())
		}
		if !strings.Contains(stdout.String(), `\x1b[31mred`) {
			t.Errorf("%v: the escape is not shown escaped:\n%s", args, stdout.String())
		}
	}
}
