package hostile

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/lintcmd"
)

// fileArg matches a flag line of xpkg-lint's --help whose argument names a
// file, a directory, a source or globs: "  --baseline FILE", "  --ignore
// GLOBS", "  --verify-key SECRET/KEY=FILE".
var fileArg = regexp.MustCompile(`(?m)^  (?:-\w, )?(--[a-z][a-z0-9-]*) (FILE|DIR|SOURCE|GLOBS|[A-Z/]+=FILE)\b`)

// fileBools are the flags without an argument that read or write package
// files beside the report.
var fileBools = []string{"--fix", "--diff", "--write-baseline"}

// flagSurfaces derives the flag surfaces from xpkg-lint's --help, whose
// every flag lintcmd's flag set defines (its TestUsageListsEveryFlag).
func flagSurfaces(t *testing.T) []string {
	t.Helper()
	var out bytes.Buffer
	if code := lintcmd.New(lintcmd.WithName("xpkg-lint")).Run(context.Background(), []string{"--help"}, strings.NewReader(""), &out, io.Discard); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	help := out.String()
	var flags []string
	for _, m := range fileArg.FindAllStringSubmatch(help, -1) {
		flags = append(flags, "flag:"+m[1])
	}
	if len(flags) < 8 {
		t.Fatalf("found %d file flags in --help, want the config, baseline, ignore, cache, deps, against, image-config and verify flags:\n%s", len(flags), help)
	}
	for _, b := range fileBools {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(b) + `\s`).MatchString(help) {
			t.Errorf("--help lists no %s", b)
		}
		flags = append(flags, "flag:"+b)
	}
	return flags
}

// configSurfaces derives the configuration surfaces from the
// configuration's JSON schema, and the files it is found as.
func configSurfaces(t *testing.T) []string {
	t.Helper()
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(lintcmd.ConfigSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range schema.Properties {
		keys = append(keys, "config:"+k)
	}
	sort.Strings(keys)
	return append(keys, "file:.xpkg-lint.yaml", "file:.xpkg-lint.yml") // xpkg-lint's configuration files
}

// TestSurfacesCovered is issue 30's coverage test: every flag of xpkg-lint
// that names a file, a directory, a source or a pattern (derived from its
// --help), every key of .xpkg-lint.yaml (derived from its schema), every
// configuration file name, every external validator entry point and every
// server endpoint (listed) has a worst case in Surfaces, or is a known gap
// in surfaceGaps; every case Surfaces names exists, and every FileCase's
// surfaces are listed. A new flag, key, entry point or endpoint without a
// case fails here: write its generator and add its line to Surfaces.
func TestSurfacesCovered(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, c := range append(Cases(), Controls()...) {
		names[c.Name] = true
	}
	for _, c := range FileCases() {
		names[c.Name] = true
	}
	for _, c := range APIDiffCases() {
		names[c.Name] = true
	}
	for _, c := range DepsCases() {
		names[c.Name] = true
	}
	for _, c := range CacheCases() {
		names[c.Name] = true
	}
	for _, c := range ServerCases() {
		names[c.Name] = true
	}
	for _, c := range LSPCases() {
		names[c.Name] = true
	}
	covered := map[string]bool{}
	for _, s := range Surfaces() {
		if !names[s.Case] {
			t.Errorf("%s: no case %q", s.Name, s.Case)
		}
		covered[s.Name] = true
	}
	gaps := surfaceGaps()
	var all []string
	all = append(all, flagSurfaces(t)...)
	all = append(all, configSurfaces(t)...)
	all = append(all, validatorEntryPoints()...)
	all = append(all, serverEndpoints()...)
	all = append(all, "arg:SOURCE")
	for _, s := range all {
		switch {
		case covered[s] && gaps[s] != "":
			t.Errorf("%s has a case and is listed as a gap: drop it from surfaceGaps", s)
		case covered[s]:
		case gaps[s] != "":
			t.Logf("gap: %s: %s", s, gaps[s])
		default:
			t.Errorf("surface %s has no worst case: write a generator in internal/hostile and add {%q, CASE} to Surfaces", s, s)
		}
	}
	for s := range covered {
		if !slices.Contains(all, s) {
			t.Errorf("Surfaces names %s, which is no surface the test knows (a flag, key or entry point renamed or removed?)", s)
		}
	}
	for s := range gaps {
		if !slices.Contains(all, s) {
			t.Errorf("surfaceGaps names %s, which is no surface the test knows", s)
		}
	}
	for _, c := range FileCases() {
		for _, s := range c.Surfaces {
			if !covered[s] {
				t.Errorf("%s attacks %s, which Surfaces does not list", c.Name, s)
			}
		}
	}
}

// TestFileCasesAreWellFormed: each file case has a unique name starting
// with "files-", a description, surfaces, and an exit status of 0, 1 or 2,
// and writes (the light ones here) the same arguments into any directory.
func TestFileCasesAreWellFormed(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range FileCases() {
		if !strings.HasPrefix(c.Name, "files-") || seen[c.Name] {
			t.Errorf("%q: want a unique name starting with files-", c.Name)
		}
		seen[c.Name] = true
		if c.Description == "" || len(c.Surfaces) == 0 || c.Exit < 0 || c.Exit > 2 || c.Write == nil {
			t.Errorf("%s: incomplete", c.Name)
		}
		if c.Heavy {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args, err := c.Write(t.Context(), dir)
			if c.NeedsFIFO && err != nil && strings.Contains(err.Error(), "not supported") {
				t.Skip("no FIFOs")
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(args) == 0 || strings.HasPrefix(args[len(args)-1], "-") {
				t.Errorf("arguments %v end in no source", args)
			}
		})
	}
}
