package lintcmd

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeFiles writes files (name -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// warnRepo returns a repository (a directory holding .git) whose pkg
// directory is the warnings-only package (XP103 warning, XP206 info), with
// the files given beside it.
func warnRepo(t *testing.T, files map[string]string) (repo, pkg string) {
	t.Helper()
	repo = t.TempDir()
	data, err := os.ReadFile(warnPackage)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{".git/HEAD": "ref: refs/heads/main\n", "pkg/crossplane.yaml": string(data)}
	for k, v := range files {
		all[k] = v
	}
	writeFiles(t, repo, all)
	return repo, filepath.Join(repo, "pkg")
}

// runBounded is runCLI that fails the test, rather than hanging it, when
// the run does not end within a minute: a guard against a hang, not a
// time budget.
func runBounded(t *testing.T, args ...string) result {
	t.Helper()
	done := make(chan result, 1)
	go func() {
		var r result
		var stdout, stderr strings.Builder
		r.code = runWith(context.Background(), xpkgLoader{}, args, strings.NewReader(""), &stdout, &stderr)
		r.stdout, r.stderr = stdout.String(), stderr.String()
		done <- r
	}()
	select {
	case r := <-done:
		return r
	case <-time.After(time.Minute):
		t.Fatalf("%v: still running after a minute (a FIFO or a link blocked it?)", args)
	}
	return result{}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

func symlink(t *testing.T, to, p string) {
	t.Helper()
	if err := os.Symlink(to, p); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
}

// TestBaselineExplicitWrite: --baseline of a file that does not exist is
// an error (a mistyped name used to write a new baseline and pass); only
// --write-baseline writes one.
func TestBaselineExplicitWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.json")
	r := runCLI(t, nil, "--fail-on", "info", "--baseline", typo, warnPackage)
	if r.code != ExitError || !strings.Contains(r.stderr, "no such baseline") || !strings.Contains(r.stderr, "--write-baseline") {
		t.Errorf("mistyped --baseline: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Lstat(typo); err == nil {
		t.Error("the mistyped baseline was written")
	}
	w := runCLI(t, nil, "--fail-on", "info", "--baseline", typo, "--write-baseline", warnPackage)
	if w.code != ExitOK || !strings.Contains(w.stderr, "wrote the baseline") {
		t.Fatalf("--write-baseline: exit %d, stderr %q", w.code, w.stderr)
	}
	r = runCLI(t, nil, "--fail-on", "info", "--baseline", typo, warnPackage)
	if r.code != ExitOK || strings.Contains(r.stderr, "wrote") {
		t.Errorf("reading it: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, nil, "--write-baseline", warnPackage); r.code != ExitError || !strings.Contains(r.stderr, "no baseline named") {
		t.Errorf("--write-baseline alone: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestBaselineLinks: a baseline at a link, dangling or not, or at a FIFO
// is refused, read or written, and nothing is created where a link
// points.
func TestBaselineLinks(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, p string)
		write bool
		want  string
	}{
		{"dangling link, written", func(t *testing.T, p string) { symlink(t, filepath.Join(outside, "created.json"), p) }, true, "symbolic link"},
		{"dangling link, read", func(t *testing.T, p string) { symlink(t, filepath.Join(outside, "created.json"), p) }, false, "symbolic link"},
		{"FIFO, read", func(t *testing.T, p string) { mkfifo(t, p) }, false, "not a regular file"},
		{"FIFO, written", func(t *testing.T, p string) { mkfifo(t, p) }, true, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "baseline.json")
			tc.plant(t, p)
			args := []string{"--baseline", p, warnPackage}
			if tc.write {
				args = append(args, "--write-baseline")
			}
			r := runBounded(t, args...)
			if r.code != ExitError || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, tc.want)
			}
			if _, err := os.Lstat(filepath.Join(outside, "created.json")); err == nil {
				t.Error("a file was created through the link")
			}
		})
	}
}

// TestBaselineEntryBound: the entries of a baseline are counted as they are
// decoded: 5.6 million empty entries fit in 16 MiB, and are refused at the
// cap rather than decoded at once.
func TestBaselineEntryBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n       int
		wantErr bool
	}{{maxBaselineEntries, false}, {maxBaselineEntries + 1, true}} {
		p := filepath.Join(t.TempDir(), "b.json")
		entries := strings.Repeat("{},", tc.n)
		if err := os.WriteFile(p, []byte(`{"version":1,"entries":[`+strings.TrimSuffix(entries, ",")+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := openBaseline(t.Context(), p, false, "")
		if tc.wantErr != (err != nil) || tc.wantErr && !strings.Contains(err.Error(), "entries") {
			t.Errorf("%d entries: %v", tc.n, err)
		}
	}
}

// TestConfigFiles: the .yml spelling is found; both spellings in one
// directory, an unknown key, or a configuration at a FIFO or a link are
// configuration errors (exit 2, the file and line, before any lint), not
// an unreadable source; the baseline key names the baseline, within the
// repository; exclude leaves findings out by path and rule.
func TestConfigFiles(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"config.yaml": "disable: [XP103]\n"})
	for _, tc := range []struct {
		name     string
		files    map[string]string
		plant    func(t *testing.T, repo string)
		args     []string
		code     int
		stderr   []string // substrings
		noStderr []string
		stdout   []string
	}{
		{name: ".yml found", files: map[string]string{"pkg/.xpkg-lint.yml": "fail-on: warning\n"}, code: ExitFindings, stdout: []string{"XP103"}},
		{name: ".yml is not a package file", files: map[string]string{"pkg/.xpkg-lint.yml": "fail-on: error\n"}, code: ExitOK, noStderr: []string{"XP002"}},
		{name: "both spellings", files: map[string]string{"pkg/.xpkg-lint.yml": "fail-on: warning\n", "pkg/.xpkg-lint.yaml": "fail-on: warning\n"}, code: ExitError, stderr: []string{"keep one"}},
		{name: "unknown key", files: map[string]string{".xpkg-lint.yaml": "# a comment\nfail-on: warning\nbogus: 1\n"}, code: ExitError,
			stderr: []string{"configuration: ", ".xpkg-lint.yaml:3: unknown key \"bogus\""}, noStderr: []string{"unreadable"}},
		{name: "FIFO", plant: func(t *testing.T, repo string) { mkfifo(t, filepath.Join(repo, "pkg", configFile)) }, code: ExitError, stderr: []string{"not a regular file"}},
		{name: "link", plant: func(t *testing.T, repo string) {
			symlink(t, filepath.Join(outside, "config.yaml"), filepath.Join(repo, "pkg", configFile))
		}, code: ExitError, stderr: []string{"symbolic link"}},
		{name: "image-config FIFO", files: map[string]string{".xpkg-lint.yaml": "image-config: ic.yaml\n"}, plant: func(t *testing.T, repo string) {
			mkfifo(t, filepath.Join(repo, "ic.yaml"))
		}, code: ExitError, stderr: []string{"image-config", "not a regular file"}},
		{name: "baseline key, missing", files: map[string]string{".xpkg-lint.yaml": "baseline: base.json\n"}, code: ExitError, stderr: []string{"baseline", "no such baseline"}},
		{name: "baseline key, written", files: map[string]string{".xpkg-lint.yaml": "baseline: base.json\nfail-on: info\n"}, args: []string{"--write-baseline"}, code: ExitOK, stderr: []string{"wrote the baseline", "base.json (2 findings)"}},
		{name: "baseline key, dangling link", files: map[string]string{".xpkg-lint.yaml": "baseline: base.json\n"}, plant: func(t *testing.T, repo string) {
			symlink(t, filepath.Join(outside, "created.json"), filepath.Join(repo, "base.json"))
		}, args: []string{"--write-baseline"}, code: ExitError, stderr: []string{"symbolic link"}},
		{name: "baseline key outside the repository", files: map[string]string{".xpkg-lint.yaml": "baseline: ../outside-" + filepath.Base(outside) + ".json\n"}, args: []string{"--write-baseline"}, code: ExitError, stderr: []string{"outside"}},
		{name: "exclude by path and rule", files: map[string]string{".xpkg-lint.yaml": "fail-on: warning\nexclude:\n  - path: crossplane.yaml\n    rules: [XP103]\n"}, args: []string{"-o", "json"}, code: ExitOK,
			stdout: []string{"excluded by", "XP206"}},
		{name: "exclude of another path", files: map[string]string{".xpkg-lint.yaml": "fail-on: warning\nexclude:\n  - path: apis/*\n"}, code: ExitFindings},
		{name: "exclude unknown rule", files: map[string]string{".xpkg-lint.yaml": "exclude:\n  - path: '*'\n    rules: [XP999]\n"}, code: ExitError, stderr: []string{".xpkg-lint.yaml:3: exclude: rules: unknown rule"}},
		{name: "glob too long", files: map[string]string{".xpkg-lint.yaml": "ignore: [" + strings.Repeat("a", maxGlobLength+1) + "]\n"}, code: ExitError, stderr: []string{"longer than 256"}},
		{name: "1000 globs at the length cap", files: map[string]string{".xpkg-lint.yaml": "ignore:\n" + strings.Repeat("  - '"+strings.Repeat("*a", maxGlobLength/2)+"'\n", maxIgnoreGlobs)}, code: ExitOK},
		{name: "ignore of a directory matches nothing", files: map[string]string{".xpkg-lint.yaml": "ignore: [.github/, '*.md']\n", "pkg/.github/workflows/ci.yaml": "on: push\n"}, code: ExitOK,
			stderr: []string{`ignore: ".github/" matches no file of the package (a directory's files are .github/*`, `ignore: "*.md" matches no file`}},
		{name: "ignore that matches", files: map[string]string{".xpkg-lint.yaml": "ignore: [.github/workflows/*]\n", "pkg/.github/workflows/ci.yaml": "on: push\n"}, code: ExitOK,
			noStderr: []string{"matches no file", "XP006"}},
		{name: "--against-version without --against", args: []string{"--against-version", "v1.0.0"}, code: ExitError, stderr: []string{"need --against"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo, pkg := warnRepo(t, tc.files)
			if tc.plant != nil {
				tc.plant(t, repo)
			}
			r := runBounded(t, append(tc.args, pkg)...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q: %s", s, r.stderr)
				}
			}
			for _, s := range tc.noStderr {
				if strings.Contains(r.stderr, s) || strings.Contains(r.stdout, s) {
					t.Errorf("output holds %q:\n%s\n%s", s, r.stdout, r.stderr)
				}
			}
			for _, s := range tc.stdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("stdout lacks %q: %s", s, r.stdout)
				}
			}
			if r.code == ExitError && strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
				t.Errorf("exit 2 with more than one line on stderr:\n%s", r.stderr)
			}
			if _, err := os.Lstat(filepath.Join(outside, "created.json")); err == nil {
				t.Error("a file was created outside the repository")
			}
		})
	}
}

// TestFixPlantedLinks: --fix writes through no link: one planted at the
// temporary name the fix used to write (FILE.xpkg-lint-fix) stays a link
// and its target is untouched; a FIFO there does not hang the run.
func TestFixPlantedLinks(t *testing.T) {
	t.Parallel()
	for _, plant := range []string{"link", "fifo"} {
		t.Run(plant, func(t *testing.T) {
			t.Parallel()
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "fix")
			copyDir(t, fixPackage, dir)
			at := filepath.Join(dir, "crossplane.yaml.xpkg-lint-fix")
			if plant == "link" {
				symlink(t, victim, at)
			} else {
				mkfifo(t, at)
			}
			r := runBounded(t, "--fix", dir)
			// Three findings in crossplane.yaml and composition.yaml,
			// and XP410's: the Function its pipeline calls added to
			// dependsOn.
			if !strings.Contains(r.stderr, "fixed 4 findings") {
				t.Errorf("exit %d, stderr %q", r.code, r.stderr)
			}
			if b, _ := os.ReadFile(victim); string(b) != "keep" {
				t.Errorf("the link's target was written: %q", b)
			}
			if fi, err := os.Lstat(at); err != nil || fi.Mode().IsRegular() {
				t.Errorf("the planted %s was replaced: %v", plant, err)
			}
		})
	}
}

// TestFixRefusesLinkedFile: a package file that is itself a link to a
// file outside is not written by --fix.
func TestFixRefusesLinkedFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "fix")
	copyDir(t, fixPackage, dir)
	if err := writeFile(t.Context(), filepath.Join(dir, "crossplane.yaml"), t.TempDir(), []byte("x")); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("a write outside the package root: %v", err)
	}
	outside := filepath.Join(t.TempDir(), "composition.yaml")
	data, err := os.ReadFile(filepath.Join(dir, "composition.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "composition.yaml"))
	symlink(t, outside, filepath.Join(dir, "composition.yaml"))
	runBounded(t, "--fix", dir)
	if b, _ := os.ReadFile(outside); string(b) != string(data) {
		t.Error("--fix wrote through a linked package file")
	}
}

// TestAgainstUnparsedOld: an older package (--against) with a CRD that
// does not parse cannot be compared: exit 2 with the cause, where the
// definition used to be "new" and the run passed.
func TestAgainstUnparsedOld(t *testing.T) {
	t.Parallel()
	old := filepath.Join(t.TempDir(), "v1")
	copyDir(t, filepath.Join("testdata", "against", "v1"), old)
	crd := filepath.Join(old, "crds", "example.org_widgets.yaml")
	data, err := os.ReadFile(crd)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(crd, append(data, "  bad: [unclosed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "--against", old, filepath.Join("testdata", "against", "v2"))
	// The cause is a finding (XP000, source-unreadable) beside the
	// package's own, not a line that hides them.
	if r.code != ExitError || !strings.Contains(r.stdout, "XP000") || !strings.Contains(r.stdout, "does not parse") || !strings.Contains(r.stdout, "example.org_widgets.yaml:") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestAgainstVersions: --against-version gives a local older package its
// version, so that the semver check runs; an unchanged API says so.
func TestAgainstVersions(t *testing.T) {
	t.Parallel()
	oldDir, newDir := filepath.Join("testdata", "against", "v1"), filepath.Join("testdata", "against", "v2")
	minor := runCLI(t, nil, "--against", oldDir, "--against-version", "v1.0.0", "--package-version", "v1.1.0", newDir)
	if minor.code != ExitFindings || !strings.Contains(minor.stdout, "semver violation") || strings.Contains(minor.stdout, "versions unknown") {
		t.Errorf("minor: exit %d\n%s\n%s", minor.code, minor.stdout, minor.stderr)
	}
	major := runCLI(t, nil, "--against", oldDir, "--against-version", "v1.0.0", "--package-version", "v2.0.0", newDir)
	if major.code != ExitOK {
		t.Errorf("major: exit %d\n%s\n%s", major.code, major.stdout, major.stderr)
	}
	same := runCLI(t, nil, "--against", newDir, newDir)
	if same.code != ExitOK || !strings.Contains(same.stderr, "no API changes against "+newDir+" (1 definitions compared)") {
		t.Errorf("same: exit %d\n%s\n%s", same.code, same.stdout, same.stderr)
	}
}
