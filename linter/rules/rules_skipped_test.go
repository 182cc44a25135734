package rules_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/rules"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

// skippedDiag is what TestSkippedFile compares of an XP006 diagnostic.
type skippedDiag struct {
	File         string
	Line, Column int
	Severity     linter.Severity
	Message      string
}

func skippedDiags(res *linter.Result) []skippedDiag {
	var out []skippedDiag
	for _, d := range res.Diagnostics {
		if d.RuleID == "XP006" {
			out = append(out, skippedDiag{d.Pos.File, d.Pos.Line, d.Pos.Column, d.Severity, d.Message})
		}
	}
	return out
}

// TestSkippedFile runs XP006 over packages whose Skipped entries are set by
// hand: fixtures (one YAML stream each) cannot hold symbolic links.
func TestSkippedFile(t *testing.T) {
	t.Parallel()
	const tail = "; Crossplane's build would include the link's target: copy it in instead"
	warn := func(file, msg string) skippedDiag {
		return skippedDiag{File: file, Severity: linter.SeverityWarning, Message: msg}
	}
	symlink := func(path string) parser.SkippedFile {
		return parser.SkippedFile{Path: path, Reason: "symlink not followed"}
	}
	suppressed := strings.Replace(provider, "  annotations:\n", "  annotations:\n    lint.xpkgkit.dev/ignore: skipped-file\n", 1)
	cases := []struct {
		name    string
		stream  string
		skipped []parser.SkippedFile
		want    []skippedDiag
	}{
		{name: "nothing skipped", stream: provider},
		{
			name:    "a YAML file in a hidden directory",
			stream:  provider,
			skipped: []parser.SkippedFile{{Path: ".github/workflows/ci.yaml", Reason: "in a hidden directory"}},
			want: []skippedDiag{warn(".github/workflows/ci.yaml", ".github/workflows/ci.yaml was not read: in a hidden directory; "+
				"crossplane xpkg build reads every YAML file outside the examples directory, hidden ones too: "+
				"move it out of the package directory, or, when the build leaves it out, say so with ignore: [.github/workflows/*] in .xpkg-lint.yaml")},
		},
		{
			name:    "a symlinked file",
			stream:  provider,
			skipped: []parser.SkippedFile{symlink("crds/bucket.yaml")},
			want:    []skippedDiag{warn("crds/bucket.yaml", "crds/bucket.yaml was not read: symlink not followed"+tail)},
		},
		{
			name:    "one diagnostic per entry",
			stream:  provider,
			skipped: []parser.SkippedFile{symlink("apis"), symlink("crds/a.yml")},
			want: []skippedDiag{
				warn("apis", "apis was not read: symlink not followed"+tail),
				warn("crds/a.yml", "crds/a.yml was not read: symlink not followed"+tail),
			},
		},
		{
			name:    "a path that is not a plain token is quoted",
			stream:  provider,
			skipped: []parser.SkippedFile{symlink("crds/my \x1b[31mbucket.yaml")},
			want:    []skippedDiag{warn("crds/my \x1b[31mbucket.yaml", `"crds/my \x1b[31mbucket.yaml" was not read: symlink not followed`+tail)},
		},
		{
			name:    "an empty reason says symlink",
			stream:  provider,
			skipped: []parser.SkippedFile{{Path: "x.yaml"}},
			want:    []skippedDiag{warn("x.yaml", "x.yaml was not read: symlink not followed"+tail)},
		},
		{
			name:    "even a package without objects",
			stream:  "# nothing\n",
			skipped: []parser.SkippedFile{symlink("crossplane.yaml")},
			want:    []skippedDiag{warn("crossplane.yaml", "crossplane.yaml was not read: symlink not followed"+tail)},
		},
		{
			name:    "suppressed for the whole package",
			stream:  suppressed,
			skipped: []parser.SkippedFile{symlink("crds/bucket.yaml")},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pkg := parse(t, tc.stream)
			pkg.Skipped = tc.skipped
			res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(rules.Lookup("XP006")))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, skippedDiags(res)); diff != "" {
				t.Errorf("XP006 diagnostics (-want +got):\n%s", diff)
			}
			if len(res.Failures) != 0 {
				t.Errorf("failures: %v", res.Failures)
			}
		})
	}
}

// TestSkippedFileParseFS lints, with every built-in rule, a package
// directory holding symbolic links, read with parser.ParseFS.
func TestSkippedFileParseFS(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	for name, data := range map[string]string{
		filepath.Join(dir, "crossplane.yaml"):    provider,
		filepath.Join(outside, "bucket.yaml"):    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: [broken\n",
		filepath.Join(outside, "crds", "x.yaml"): "not: [yaml\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "bucket.yaml"), filepath.Join(dir, "bucket.yaml")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Symlink(filepath.Join(outside, "crds"), filepath.Join(dir, "crds")); err != nil {
		t.Fatal(err)
	}
	pkg, err := parser.ParseFS(context.Background(), os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules.Builtin()...))
	if err != nil {
		t.Fatal(err)
	}
	wantMsg := regexp.MustCompile(`^(bucket\.yaml|crds) was not read: symlink not followed; Crossplane's build would include`)
	var files []string
	for _, d := range res.Diagnostics {
		if d.RuleID != "XP006" {
			t.Errorf("unexpected diagnostic %v (was a link followed?)", d)
			continue
		}
		if d.Pos.Line != 0 || d.Severity != linter.SeverityWarning || !wantMsg.MatchString(d.Message) {
			t.Errorf("diagnostic %v: want a warning on line 0 naming the link", d)
		}
		files = append(files, d.Pos.File)
	}
	if diff := cmp.Diff([]string{"bucket.yaml", "crds"}, files); diff != "" {
		t.Errorf("XP006 files (-want +got):\n%s", diff)
	}
}
