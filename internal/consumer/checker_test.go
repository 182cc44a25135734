package consumer_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckerProgram builds mylint, a program of under 30 lines that ships
// one rule of its own (ACME001) through lintcmd.Main, and checks that it has
// xpkg-lint's command line: every flag, output format and exit code.
func TestCheckerProgram(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("mylint/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(src, []byte("\n")); n > 30 {
		t.Errorf("mylint/main.go has %d lines, want at most 30", n)
	}
	bin := filepath.Join(t.TempDir(), "mylint")
	if out, err := exec.Command("go", "build", "-o", bin, "./mylint").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const (
		clean   = "../../xpkg/testdata/build/provider-example" // only ACME001 (a warning)
		refused = "../../xpkg/testdata/build/lint-error"       // built-in errors
		missing = "testdata/no-such-package"
	)
	cases := []struct {
		name string
		args []string
		code int
		want []string // in stdout
		err  string   // in stderr
	}{
		{"version", []string{"--version"}, 0, []string{"mylint "}, ""},
		{"help names the program", []string{"--help"}, 0, []string{"Usage: mylint [flags] SOURCE...", "--fail-on LEVEL"}, ""},
		{"list-rules has the rule and the built-in ones", []string{"--list-rules"}, 0, []string{"ACME001", "team-annotation", "XP201"}, ""},
		{"list-rules json", []string{"--list-rules", "-o", "json"}, 0, []string{`"id": "ACME001"`}, ""},
		{"explain", []string{"--explain", "team-annotation"}, 0, []string{"ACME001 team-annotation: Every package names its team", "--disable ACME001"}, ""},
		{"text", []string{clean}, 0, []string{"crossplane.yaml:6:3: warning ACME001 team-annotation: no acme.example/team annotation", "1 source: 0 errors, 1 warning"}, ""},
		{"fail-on warning", []string{"--fail-on", "warning", clean}, 1, []string{"ACME001"}, ""},
		{"severity", []string{"--severity", "ACME001=error", clean}, 1, []string{"error ACME001"}, ""},
		{"disable", []string{"--disable", "ACME001", "--fail-on", "info", clean}, 0, []string{"no problems"}, ""},
		{"built-in rules run", []string{refused}, 1, []string{"error XP"}, ""},
		{"json", []string{"-o", "json", clean}, 0, []string{`"rule": "ACME001"`}, ""},
		{"sarif", []string{"-o", "sarif", clean}, 0, []string{`"name": "mylint"`, `"id": "ACME001"`, `"ruleId": "ACME001"`}, ""},
		{"github", []string{"-o", "github", clean}, 0, []string{"::warning file=", "title=ACME001 team-annotation::", "mylint: 1 source"}, ""},
		{"configuration", []string{"--config", "testdata/mylint.yaml", clean}, 0, []string{"no problems"}, ""},
		{"configuration fails", []string{"--config", "testdata/mylint.yaml", "--disable", "XP999", clean}, 2, nil, "unknown rule"},
		{"unreadable", []string{missing}, 2, nil, "mylint: " + missing + ": no such file or directory"},
		{"bad flag", []string{"--fail-on", "fatal", clean}, 2, nil, "--fail-on"},
		{"unknown rule", []string{"--disable", "ACME999", clean}, 2, nil, `unknown rule "ACME999"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, tc.args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				code = ee.ExitCode()
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tc.err) {
				t.Errorf("stderr lacks %q:\n%s", tc.err, stderr.String())
			}
			if len(tc.args) > 1 && tc.args[0] == "-o" && tc.args[1] != "github" && !json.Valid(stdout.Bytes()) {
				t.Errorf("-o %s is not JSON:\n%s", tc.args[1], stdout.String())
			}
		})
	}
	// A baseline: written by the first run (--write-baseline: a missing
	// baseline is an error, never written by mistake), matched by the next.
	base := filepath.Join(t.TempDir(), "baseline.json")
	for i, want := range []string{"wrote the baseline", ""} {
		var stdout, stderr bytes.Buffer
		args := []string{"--fail-on", "warning", "--baseline", base, clean}
		if i == 0 {
			args = append([]string{"--write-baseline"}, args...)
		}
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || !strings.Contains(stderr.String(), want) || !strings.Contains(stdout.String(), "1 in the baseline") {
			t.Errorf("baseline run %d: %v\n%s%s", i, err, stdout.String(), stderr.String())
		}
	}
}
