package lintcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter"
)

func TestParseConfig(t *testing.T) {
	t.Parallel()
	ok := "# the project's lint configuration\nignore:\n  - .github/workflows/*\ndisable: [XP206, source-url]\nseverity:\n  XP104: error\nfail-on: warning\ncrossplane-version: v2.1.0\ndeps-from: testdata\n"
	c, err := builtinChecker.parseConfig(t.Context(), "cfg/.xpkg-lint.yaml", []byte(ok))
	if err == nil {
		t.Fatalf("deps-from relative to cfg/ must not exist; got %+v", c)
	}
	c, err = builtinChecker.parseConfig(t.Context(), ".xpkg-lint.yaml", []byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.ignore, []string{".github/workflows/*"}) || !slices.Equal(c.disabled, []string{"XP206", "XP205"}) ||
		c.severities["XP104"] != linter.SeverityError || c.failOn == nil || *c.failOn != linter.SeverityWarning ||
		c.xpVersion != "v2.1.0" || len(c.depsFrom) != 1 {
		t.Errorf("config %+v", c)
	}
	for _, empty := range []string{"", "# nothing\n", "---\n"} {
		if _, err := builtinChecker.parseConfig(t.Context(), "e.yaml", []byte(empty)); err != nil {
			t.Errorf("%q: %v", empty, err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"ignore: [a]\nfoo: 1\n", "f.yaml:2: unknown key \"foo\""},
		{"fail-on: fatal\n", "f.yaml:1: fail-on: unknown level \"fatal\""},
		{"fail-on: [error]\n", "f.yaml:1: fail-on: unknown level"},
		{"\n\nseverity:\n  XP104: loud\n", "f.yaml:4: severity: XP104: unknown level \"loud\""},
		{"severity:\n  XP999: error\n", "f.yaml:2: severity: unknown rule \"XP999\""},
		{"severity: [XP104]\n", "f.yaml:1: severity: want a mapping"},
		{"disable:\n  - nope\n", "f.yaml:2: disable: unknown rule \"nope\""},
		{"disable:\n  - {a: b}\n", "f.yaml:2: disable: want a string or a list of strings"},
		{"ignore: ['.github/[']\n", "f.yaml:1: ignore: \".github/[\" is not a glob"},
		{"crossplane-version: two\n", "f.yaml:1: crossplane-version: \"two\" is not a semantic version"},
		{"deps-from: [no-such-dir]\n", "f.yaml:1: deps-from: \"no-such-dir\" is not a directory"},
		{"ignore: [a]\nignore: [b]\n", "f.yaml:2: key \"ignore\" given twice"},
		{"- ignore\n", "f.yaml:1: the configuration must be a mapping"},
		{"ignore: [a]\n---\nfail-on: error\n", "f.yaml:2: a second YAML document"},
		{"ignore: [a\n", "f.yaml: "},
	} {
		_, err := builtinChecker.parseConfig(t.Context(), "f.yaml", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestConfigSchema: the schema describes the keys the checker reads, and
// accepts the configurations it accepts.
func TestConfigSchema(t *testing.T) {
	t.Parallel()
	sv, err := newSchemaValidator(ConfigSchema())
	if err != nil {
		t.Fatal(err)
	}
	var schema struct{ Properties map[string]any }
	if err := json.Unmarshal(ConfigSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range schema.Properties {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := slices.Sorted(slices.Values(configKeys))
	if !slices.Equal(keys, want) {
		t.Errorf("schema keys %v, checker keys %v", keys, want)
	}
	for _, tc := range []struct {
		yaml string
		ok   bool
	}{
		{"ignore: ['.github/workflows/*']\nfail-on: warning\n", true},
		{"disable: XP206,XP205\nseverity: {XP104: info}\ncrossplane-version: v2.1.0\n", true},
		{"foo: 1\n", false},
		{"fail-on: fatal\n", false},
		{"severity: {XP104: loud}\n", false},
	} {
		doc, err := yaml.YAMLToJSON([]byte(tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		errs, err := sv.validate(doc)
		if err != nil {
			t.Fatal(err)
		}
		if (len(errs) == 0) != tc.ok {
			t.Errorf("%q: schema errors %v, want valid=%v", tc.yaml, errs, tc.ok)
		}
	}
}

func TestIgnored(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		globs []string
		path  string
		want  bool
	}{
		{[]string{".github/workflows/*"}, ".github/workflows/ci.yaml", true},
		{[]string{".github/*"}, ".github/workflows/ci.yaml", false}, // * stays within a directory
		{[]string{".github"}, ".github/workflows/ci.yaml", false},   // the build cannot exclude directories
		{[]string{".github/"}, ".github/workflows/ci.yaml", false},
		{[]string{"./apis/*.yaml"}, "apis/x.yaml", true}, // joined to the root, so cleaned
		{[]string{"*.yaml"}, "apis/x.yaml", false},
		{[]string{"*.yaml"}, "x.yaml", true},
		{[]string{"x.yaml"}, "examples/x.yaml", true}, // examples match relative to their directory
		{[]string{"a?.yaml", "b.yaml"}, "b.yaml", true},
	} {
		if got := ignored(tc.globs, tc.path); got != tc.want {
			t.Errorf("ignored(%q, %q) = %v, want %v", tc.globs, tc.path, got, tc.want)
		}
	}
}

// TestConfigFound: the configuration is found from the source upward and
// stops at the repository's root; --config replaces it; flags win.
func TestConfigFound(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	pkg := filepath.Join(repo, "package")
	copyDir(t, warnPackageDir(t), pkg)
	write := func(file, content string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// No configuration: warnings do not fail.
	if r := runCLI(t, nil, pkg); r.code != ExitOK {
		t.Fatalf("no configuration: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	write(filepath.Join(repo, configFile), "fail-on: warning\n")
	if r := runCLI(t, nil, pkg); r.code != ExitFindings {
		t.Errorf("fail-on: warning in the repository root: exit %d", r.code)
	}
	if r := runCLI(t, nil, "--fail-on", "error", pkg); r.code != ExitOK {
		t.Errorf("--fail-on error wins over the configuration: exit %d", r.code)
	}
	// Above a .git directory: not found.
	if err := os.Mkdir(filepath.Join(pkg, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, nil, pkg); r.code != ExitOK {
		t.Errorf("configuration above the repository root applied: exit %d", r.code)
	}
	// --config names one.
	if r := runCLI(t, nil, "--config", filepath.Join(repo, configFile), pkg); r.code != ExitFindings {
		t.Errorf("--config: exit %d", r.code)
	}
	// In the package root: read, and no part of the package.
	write(filepath.Join(pkg, configFile), "disable: [XP103]\nfail-on: warning\n")
	r := runCLI(t, nil, pkg)
	if strings.Contains(r.stdout, "XP103") || strings.Contains(r.stdout, configFile) {
		t.Errorf("configuration in the package root:\n%s", r.stdout)
	}
	// A bad configuration: exit 2, naming the line.
	write(filepath.Join(pkg, configFile), "fail-on: warning\nfoo: bar\n")
	r = runCLI(t, nil, pkg)
	if r.code != ExitError || !strings.Contains(r.stderr, configFile+":2: unknown key \"foo\"") {
		t.Errorf("bad configuration: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, nil, "--config", filepath.Join(pkg, configFile), pkg); r.code != ExitError || !strings.Contains(r.stderr, "--config: ") {
		t.Errorf("bad --config: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCorpusConfigurationsWithConfig is the acceptance test of project
// configuration: each corpus Configuration repository, with a three-line
// .xpkg-lint.yaml that leaves out its .github workflows, lints clean with
// --fail-on warning. The same file also turns off XP103 and XP304, the
// deprecations (meta v1alpha1, dependsOn provider:) these repositories
// really carry; without that line those warnings, and only those, remain,
// and --fix migrates them away.
func TestCorpusConfigurationsWithConfig(t *testing.T) {
	t.Parallel()
	dir := testcorpus.Dir(t)
	for _, name := range []string{"configuration-aws-eks", "configuration-aws-network", "platform-ref-aws"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			repo := filepath.Join(t.TempDir(), name)
			copyDir(t, filepath.Join(dir, name, "src"), repo)
			cfg := "ignore:\n  - .github/workflows/*\ndisable: [XP103, XP304]\n"
			if n := strings.Count(cfg, "\n"); n != 3 {
				t.Fatalf("%d lines", n)
			}
			if err := os.WriteFile(filepath.Join(repo, configFile), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			ds, r := jsonOutput(t, nil, "--fail-on", "warning", repo)
			for _, d := range ds {
				if d.Severity != "info" {
					t.Errorf("%s:%d: %s %s: %s", d.File, d.Line, d.Severity, d.Rule, d.Message)
				}
			}
			if r.code != ExitOK {
				t.Errorf("exit %d, stderr %q", r.code, r.stderr)
			}
			// Without the disable line, the deprecations alone remain.
			if err := os.WriteFile(filepath.Join(repo, configFile), []byte("ignore:\n  - .github/workflows/*\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ds, _ = jsonOutput(t, nil, "--fail-on", "warning", repo)
			for _, d := range ds {
				if d.Severity == "warning" && d.Rule != "XP103" && d.Rule != "XP304" {
					t.Errorf("%s:%d: %s %s: %s", d.File, d.Line, d.Severity, d.Rule, d.Message)
				}
			}
			// --fix migrates them: then the ignore line alone is enough.
			if r := runCLI(t, nil, "--fix", "--fail-on", "warning", repo); r.code != ExitOK {
				t.Errorf("--fix: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if r := runCLI(t, nil, "--fail-on", "warning", repo); r.code != ExitOK {
				t.Errorf("after --fix: exit %d\n%s", r.code, r.stdout)
			}
		})
	}
}

// copyDir copies the directory from to a new directory to.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// warnPackageDir returns a package directory with warnings only (the
// warnings-only fixture as crossplane.yaml).
func warnPackageDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(warnPackage)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "crossplane.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestConfigBounds: a configuration over the size cap, or with more ignore
// globs than the cap, is an error, not a slow run.
func TestConfigBounds(t *testing.T) {
	t.Parallel()
	globs := "ignore:\n" + strings.Repeat("  - a/*\n", maxIgnoreGlobs+1)
	if _, err := builtinChecker.parseConfig(t.Context(), "f.yaml", []byte(globs)); err == nil || !strings.Contains(err.Error(), "f.yaml:2: ignore: 1001 entries") {
		t.Errorf("too many globs: %v", err)
	}
	big := filepath.Join(t.TempDir(), configFile)
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", maxConfigSize)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := builtinChecker.readConfig(t.Context(), big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("too large: %v", err)
	}
}

// TestConfigDepsFrom: deps-from in the configuration is a local source of
// --deps, relative to the configuration's directory, enough for --offline.
func TestConfigDepsFrom(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	copyDir(t, depsRoot, filepath.Join(repo, "root"))
	copyDir(t, depsRegistry, filepath.Join(repo, "vendor"))
	if err := os.WriteFile(filepath.Join(repo, configFile), []byte("deps-from: [vendor]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, r := jsonOutput(t, nil, "--deps", "--offline", filepath.Join(repo, "root"))
	if r.code != ExitFindings || !hasRule(ds, "XP601") || hasRule(ds, "XP000") {
		t.Errorf("exit %d, stderr %q, %d findings", r.code, r.stderr, len(ds))
	}
}

// TestConfigAgainst: the configuration's against key reports API changes
// from the older package it names (relative to the file), as --against.
func TestConfigAgainst(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	copyDir(t, filepath.Join("testdata", "against", "v1"), filepath.Join(repo, "v1"))
	copyDir(t, filepath.Join("testdata", "against", "v2"), filepath.Join(repo, "v2"))
	if err := os.WriteFile(filepath.Join(repo, configFile), []byte("against: v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, filepath.Join(repo, "v2"))
	if r.code != ExitOK || !strings.Contains(r.stdout, "XP713") {
		t.Errorf("exit %d, want XP713 from the configuration's against\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// A flag wins over the key: the package against itself has no change.
	r = runCLI(t, nil, "--against", filepath.Join(repo, "v2"), filepath.Join(repo, "v2"))
	if r.code != ExitOK || strings.Contains(r.stdout, "XP7") {
		t.Errorf("--against over the key: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestConfigImageConfig: the image-config key reads ImageConfig files
// relative to the configuration file; a bad one is an error naming it.
func TestConfigImageConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := "apiVersion: pkg.crossplane.io/v1beta1\nkind: ImageConfig\nmetadata:\n  name: mirror\nspec:\n  matchImages:\n  - prefix: xpkg.crossplane.io/\n  rewriteImage:\n    prefix: mirror.example.org/\n"
	if err := os.WriteFile(filepath.Join(dir, "mirror.yaml"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, configFile)
	if err := os.WriteFile(file, []byte("image-config: [mirror.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := builtinChecker.readConfig(t.Context(), file)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, ok := p.images.Rewrite("xpkg.crossplane.io/acme/provider:v1"); !ok || got != "mirror.example.org/acme/provider:v1" {
		t.Errorf("rewrite: %q, %v", got, ok)
	}
	if err := os.WriteFile(file, []byte("image-config: [missing.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := builtinChecker.readConfig(t.Context(), file); err == nil || !strings.Contains(err.Error(), "image-config") || !strings.Contains(err.Error(), ":1:") {
		t.Errorf("missing file: %v", err)
	}
}
