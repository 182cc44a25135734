package main

import (
	"strings"
	"testing"
)

// The dependency graph fixture: a root Configuration directory and a local
// source laid out like references, holding package.yaml streams.
const (
	depsRoot     = "testdata/deps/root"
	depsRegistry = "testdata/deps/registry"
)

func TestDepsGolden(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "--deps", "--deps-from", depsRegistry, "--crossplane-version", "v2.1.0", depsRoot)
	if r.code != exitProblems || r.stderr != "" {
		t.Errorf("exit code %d, stderr %q; want %d and none", r.code, r.stderr, exitProblems)
	}
	checkGolden(t, "deps-text.golden", r.stdout)
}

func TestDepsJSON(t *testing.T) {
	t.Parallel()
	ds, r := jsonOutput(t, nil, "--deps", "--deps-from", depsRegistry, depsRoot)
	if r.code != exitProblems {
		t.Errorf("exit code %d, stderr %q", r.code, r.stderr)
	}
	got := map[string]int{}
	for _, d := range ds {
		got[d.Rule]++
		if d.Rule == "XP601" && strings.HasPrefix(d.File, "xpkg.example.org/acme/configuration-net:v0.1.0/") && d.Line != 11 {
			t.Errorf("XP601 in configuration-net at line %d, want 11", d.Line)
		}
	}
	// No target version: no XP605.
	for id, n := range map[string]int{"XP601": 2, "XP604": 1, "XP606": 1, "XP605": 0} {
		if got[id] != n {
			t.Errorf("%s: %d diagnostics, want %d (all: %v)", id, got[id], n, got)
		}
	}
}

func TestDepsFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--deps", depsRoot}, "--deps needs a source"},
		{[]string{"--deps-from", depsRegistry, depsRoot}, "need --deps"},
		{[]string{"--deps", "--deps-from", "testdata/nothing-here", depsRoot}, "is not a directory"},
	} {
		r := runCLI(t, nil, tc.args...)
		if r.code != exitError || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, exitError, tc.want)
		}
	}
	// Graph rules are known to --explain, --disable and --list-rules.
	if r := runCLI(t, nil, "--explain", "XP602"); r.code != exitOK || !strings.Contains(r.stdout, "dependency-conflict") {
		t.Errorf("--explain XP602: %d %q", r.code, r.stderr)
	}
	if r := runCLI(t, nil, "--list-rules"); !strings.Contains(r.stdout, "XP607") {
		t.Errorf("--list-rules lacks XP607")
	}
	r := runCLI(t, nil, "--deps", "--deps-from", depsRegistry, "--disable", "XP601,dependency-kind,XP606", depsRoot)
	if r.code != exitOK {
		t.Errorf("with the graph rules disabled: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
