package lintcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
)

// The fix fixtures: fixPackage holds one instance of each finding --fix
// resolves in a Configuration; XP005 fails the meta object's decoding (so
// the meta rules cannot run) and has a package of its own, quotePackage;
// XP208 is a Provider's, in providerPackage.
const (
	fixPackage      = "testdata/fix"
	quotePackage    = "testdata/fix-quote"
	providerPackage = "testdata/fix-provider"
)

// fixedRules are the rules whose findings the fixtures hold and --fix
// resolves, one entry a finding: XP410 twice in fixPackage, the Composition
// and the meta object, whose fix adds function-patch-and-transform to
// spec.dependsOn.
var fixedRules = map[string][]string{fixPackage: {"XP103", "XP304", "XP410", "XP410"}, quotePackage: {"XP005"}, providerPackage: {"XP208"}}

// TestFixDiffGolden: --diff prints the fixes of fixPackage as a unified
// diff, which patch applies.
func TestFixDiffGolden(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "--diff", fixPackage)
	if r.code != ExitOK || !strings.Contains(r.stderr, "fixes for 4 findings in 2 files") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	checkGolden(t, "fix.diff.golden", r.stdout)
	for _, pkg := range []string{quotePackage, providerPackage} {
		r = runCLI(t, nil, "--diff", pkg)
		if r.code != ExitOK || !strings.Contains(r.stderr, "fixes for 1 finding in 1 file") {
			t.Errorf("%s: exit %d, stderr %q", pkg, r.code, r.stderr)
		}
		checkGolden(t, filepath.Base(pkg)+".diff.golden", r.stdout)
	}
}

// TestFixThenLint: --fix on a copy of fixPackage resolves the findings, keeps
// every comment, and a second lint finds none of them.
func TestFixThenLint(t *testing.T) {
	t.Parallel()
	for pkg, files := range map[string][]string{fixPackage: {"crossplane.yaml", "composition.yaml"}, quotePackage: {"crossplane.yaml"}, providerPackage: {"crossplane.yaml"}} {
		t.Run(filepath.Base(pkg), func(t *testing.T) {
			t.Parallel()
			fixThenLint(t, pkg, files)
		})
	}
}

// fixThenLint checks --fix on a copy of pkg; files are those it edits.
func fixThenLint(t *testing.T, pkg string, files []string) {
	dir := filepath.Join(t.TempDir(), "fix")
	copyDir(t, pkg, dir)
	// The files' comments (none is inside the Composition's spec, which
	// the XP410 fix writes anew).
	before := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		before[f] = string(data)
	}
	ds, _ := jsonOutput(t, nil, dir)
	for _, id := range fixedRules[pkg] {
		if !hasRule(ds, id) {
			t.Fatalf("the fixture has no %s finding", id)
		}
	}
	for _, d := range ds {
		// XP422 is the API server's refusal of the Resources-mode
		// Composition (no pipeline), which XP410's fix resolves.
		if len(d.Fixes) == 0 && !(d.Rule == "XP422" && hasRule(ds, "XP410")) {
			t.Errorf("%s has no fix in -o json", d.Rule)
		}
	}
	r := runCLI(t, nil, "--fix", "--fail-on", "info", dir)
	want := "fixed " + plural(len(fixedRules[pkg]), "finding") + " in " + plural(len(files), "file")
	if r.code != ExitOK || !strings.Contains(r.stderr, want) {
		t.Errorf("--fix: exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	for _, f := range files {
		after, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(before[f], "\n") {
			if i := strings.Index(line, "#"); i >= 0 && !strings.Contains(string(after), line[i:]) {
				t.Errorf("%s: comment %q lost", f, line[i:])
			}
		}
	}
	ds, r = jsonOutput(t, nil, "--fail-on", "info", dir)
	if r.code != ExitOK || len(ds) != 0 {
		t.Errorf("after --fix: exit %d, findings %+v", r.code, ds)
	}
	// Nothing left to fix: a second --fix changes nothing.
	if r := runCLI(t, nil, "--fix", dir); !strings.Contains(r.stderr, "fixed 0 findings") {
		t.Errorf("second --fix: %q", r.stderr)
	}
}

func hasRule(ds []jsonFinding, id string) bool {
	for _, d := range ds {
		if d.Rule == id {
			return true
		}
	}
	return false
}

// TestApplyFixesSkips: a fix that overlaps one taken, or lies outside the
// file, is skipped and said so; the others apply.
func TestApplyFixesSkips(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(file, []byte("a: 1\nb: 2\nc: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fix := func(off, end int64, text string) fileFix {
		return fileFix{diag: linter.Diagnostic{RuleID: "XP999"}, fix: linter.SuggestedFix{Message: "m", TextEdits: []linter.TextEdit{{File: file, Offset: off, End: end, NewText: text}}}}
	}
	r := applyFixes(t.Context(), file, []fileFix{fix(3, 4, "10"), fix(3, 4, "11"), fix(8, 9, "20"), fix(100, 101, "x")})
	if r.applied != 2 || len(r.skipped) != 2 || string(r.new) != "a: 10\nb: 20\nc: 3\n" {
		t.Errorf("applied %d, skipped %q, new %q", r.applied, r.skipped, r.new)
	}
	if !strings.Contains(r.skipped[0], "overlaps another fix") || !strings.Contains(r.skipped[1], "changed since it was read") {
		t.Errorf("skipped: %q", r.skipped)
	}
	want := "--- a/" + file + "\n+++ b/" + file + "\n@@ -1,3 +1,3 @@\n-a: 1\n-b: 2\n+a: 10\n+b: 20\n c: 3\n"
	if got := unifiedDiff(file, r.old, r.edits); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
}
