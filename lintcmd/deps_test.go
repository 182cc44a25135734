package lintcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/lintcmd/internal/report"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// The dependency graph fixture: a root Configuration directory and a local
// source laid out like references, holding package.yaml streams.
const (
	depsRoot     = "testdata/deps/root"
	depsRegistry = "testdata/deps/registry"
)

func TestDepsGolden(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "--deps", "--offline", "--deps-from", depsRegistry, "--crossplane-version", "v2.1.0", depsRoot)
	if r.code != ExitFindings || r.stderr != "" {
		t.Errorf("exit code %d, stderr %q; want %d and none", r.code, r.stderr, ExitFindings)
	}
	checkGolden(t, "deps-text.golden", r.stdout)
}

func TestDepsJSON(t *testing.T) {
	t.Parallel()
	ds, r := jsonOutput(t, nil, "--deps", "--offline", "--deps-from", depsRegistry, depsRoot)
	if r.code != ExitFindings {
		t.Errorf("exit code %d, stderr %q", r.code, r.stderr)
	}
	got := map[string]int{}
	for _, d := range ds {
		got[d.Rule]++
		if d.Rule == "XP601" && strings.HasPrefix(d.File, "xpkg.example.org/acme/configuration-net:v0.1.0/") && d.Line != 11 {
			t.Errorf("XP601 in configuration-net at line %d, want 11", d.Line)
		}
	}
	// No target version: the default target, v2.4.0, which
	// configuration-net's "<v2.0.0" excludes (XP605).
	for id, n := range map[string]int{"XP601": 2, "XP604": 1, "XP606": 1, "XP605": 1} {
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
		{[]string{"--deps", "--offline", depsRoot}, "needs a local source"},
		{[]string{"--deps-from", depsRegistry, depsRoot}, "need --deps"},
		{[]string{"--deps", "--deps-from", "testdata/nothing-here", depsRoot}, "is not a directory"},
	} {
		r := runCLI(t, nil, tc.args...)
		if r.code != ExitError || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, ExitError, tc.want)
		}
	}
	// Graph rules are known to --explain, --disable and --list-rules.
	if r := runCLI(t, nil, "--explain", "XP602"); r.code != ExitOK || !strings.Contains(r.stdout, "dependency-conflict") {
		t.Errorf("--explain XP602: %d %q", r.code, r.stderr)
	}
	if r := runCLI(t, nil, "--list-rules"); !strings.Contains(r.stdout, "XP607") {
		t.Errorf("--list-rules lacks XP607")
	}
	r := runCLI(t, nil, "--deps", "--offline", "--deps-from", depsRegistry, "--disable", "XP601,dependency-kind,XP606,XP605", depsRoot)
	if r.code != ExitOK {
		t.Errorf("with the graph rules disabled: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestDepsRegistry resolves a graph from a loopback registry (no local
// source): the text output draws it; with --offline the registry is not a
// source of the graph.
func TestDepsRegistry(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	ctx := context.Background()
	c, err := remote.New(remote.WithAnonymous())
	if err != nil {
		t.Fatal(err)
	}
	push := func(name, tag string, p *xpkgtest.Package) {
		t.Helper()
		src, err := oci.Open(ctx, p.MustImage(t).LayoutDir(t))
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		img, err := oci.Resolve(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		repo, err := c.Repository(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.PushImage(ctx, src, img.Descriptor, []string{tag}); err != nil {
			t.Fatal(err)
		}
	}
	provA := reg.Host + "/acme/provider-a"
	push(provA, "v1.0.0", xpkgtest.NewProvider("provider-a"))
	push(provA, "v1.1.0", xpkgtest.NewProvider("provider-a").WithAnnotation("x", "y"))
	root := xpkgtest.NewConfiguration("root").WithDependency(meta.KindProvider, provA, "v1").Dir(t)
	cacheDir := t.TempDir()

	r := runCLI(t, nil, "--deps", "--cache-dir", cacheDir, root)
	if r.code != ExitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	if want := "└── " + provA + ":v1.1.0 (Provider): ok\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("the tree lacks %q:\n%s", want, r.stdout)
	}
	// A root pulled by reference is a node of its graph: a dependency back
	// on it closes a cycle.
	platform, cfgX := reg.Host+"/acme/platform", reg.Host+"/acme/configuration-x"
	push(platform, "v1.0.0", xpkgtest.NewConfiguration("platform").WithDependency(meta.KindConfiguration, cfgX, "v0"))
	push(cfgX, "v0.1.0", xpkgtest.NewConfiguration("configuration-x").WithDependency(meta.KindConfiguration, platform, "v1"))
	r = runCLI(t, nil, "--deps", "--cache-dir", cacheDir, platform+":v1.0.0")
	if r.code != ExitFindings || !strings.Contains(r.stdout, "XP603 dependency-cycle: dependency 0 closes a dependency cycle: "+platform+":v1.0.0 → "+cfgX+":v0.1.0 → "+platform+":v1.0.0") {
		t.Errorf("by reference: exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	// Offline, the registry is not a source: a local one is needed.
	r = runCLI(t, nil, "--deps", "--offline", "--cache-dir", cacheDir, root)
	if r.code != ExitError || !strings.Contains(r.stderr, "needs a local source") {
		t.Errorf("offline: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestDepsConflictPositions: a conflict names each constraint's position,
// the root's as a path the user can open.
func TestDepsConflictPositions(t *testing.T) {
	t.Parallel()
	const (
		provA = "xpkg.example.org/acme/provider-a"
		cfgX  = "xpkg.example.org/acme/configuration-x"
	)
	prov := xpkgtest.NewProvider("provider-a")
	dir := xpkgtest.NewGraph().
		Add(provA, "v1.0.0", prov).Add(provA, "v2.0.0", prov).
		Add(cfgX, "v0.1.0", xpkgtest.NewConfiguration("x").WithDependency(meta.KindProvider, provA, ">=v2.0.0")).
		Dir(t)
	root := xpkgtest.NewConfiguration("root").
		WithDependency(meta.KindProvider, provA, "v1").
		WithDependency(meta.KindConfiguration, cfgX, "v0").Dir(t)
	ds, r := jsonOutput(t, nil, "--deps", "--offline", "--deps-from", dir, root)
	if r.code != ExitFindings {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	n := 0
	for _, d := range ds {
		if d.Rule != "XP602" {
			continue
		}
		n++
		if strings.ContainsRune(d.Message, 0) || !strings.Contains(d.Message, `"v1" by root at `+root+"/crossplane.yaml:") ||
			!strings.Contains(d.Message, `">=v2.0.0" by `+cfgX+":v0.1.0 at "+cfgX+":v0.1.0/package.yaml:") {
			t.Errorf("message: %q", d.Message)
		}
	}
	if n != 2 {
		t.Errorf("%d XP602 diagnostics, want 2 (one at each entry)", n)
	}
}

// TestDepsUnreachable: a registry that cannot be reached, or fails, while
// the graph is resolved makes the graph unchecked (exit 2, with the cause
// in an XP000 finding), never a graph rule's finding; a registry that says
// a package does not exist is a finding (exit 1).
func TestDepsUnreachable(t *testing.T) {
	t.Parallel()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	t.Cleanup(failing.Close)
	missing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"errors":[{"code":"NAME_UNKNOWN","message":"repository name not known to registry"}]}`)
	}))
	t.Cleanup(missing.Close)
	host := func(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }
	for _, tc := range []struct {
		name, pkg string
		code      int
		stderr    string
	}{
		{"connection refused", "127.0.0.1:1/acme/provider-a", ExitError, "dependencies could not be read"},
		{"server error", host(failing) + "/acme/provider-a", ExitError, "dependencies could not be read"},
		{"no such package", host(missing) + "/acme/provider-a", ExitFindings, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := xpkgtest.NewConfiguration("root").WithDependency(meta.KindProvider, tc.pkg, "v1").Dir(t)
			r := runCLI(t, nil, "--deps", "--cache-dir", t.TempDir(), root)
			if r.code != tc.code || !strings.Contains(r.stdout, tc.stderr) {
				t.Errorf("exit %d, stdout %q; want %d and %q\n%s", r.code, r.stdout, tc.code, tc.stderr, r.stderr)
			}
			if tc.code == ExitError && !strings.Contains(r.stdout, "error XP000 source-unreadable: --deps: ") {
				t.Errorf("no XP000 finding for the graph:\n%s", r.stdout)
			}
			if tc.code == ExitError && strings.Contains(r.stdout, "XP601") {
				t.Errorf("a finding for an unreachable registry:\n%s", r.stdout)
			}
		})
	}
}

// TestDepsUncheckedKeepsFindings: when the graph cannot be resolved (a
// registry that fails), the package's own findings are still reported
// beside the XP000 finding that says why the graph was not checked, the
// summary counts both, and the exit status is 2 (issue 34, item 3).
func TestDepsUncheckedKeepsFindings(t *testing.T) {
	t.Parallel()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	t.Cleanup(failing.Close)
	pkg := strings.TrimPrefix(failing.URL, "http://") + "/acme/provider-a"
	// An invalid version constraint: XP103, an error of the package.
	root := xpkgtest.NewConfiguration("root").WithDependency(meta.KindProvider, pkg, ">=v1 <<< 2").Dir(t)
	for _, tc := range []struct {
		name, against string
	}{{"deps", ""}, {"deps and against", filepath.Join(t.TempDir(), "missing")}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"--deps", "--cache-dir", t.TempDir(), "-o", "json", root}
			if tc.against != "" {
				args = append([]string{"--against", tc.against}, args...)
			}
			r := runCLI(t, nil, args...)
			if r.code != ExitError {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, ExitError, r.stdout, r.stderr)
			}
			var rep report.JSONReport
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatal(err)
			}
			var c report.Counts
			c.Add(rep.Diagnostics)
			if rep.Summary.Errors != c.Errors || rep.Summary.Unreadable != 0 {
				t.Errorf("summary %+v, want %d errors (what the report holds) and no unreadable source", rep.Summary, c.Errors)
			}
			var own, unchecked int
			for _, d := range rep.Diagnostics {
				switch {
				case d.RuleID == report.UnreadableRuleID:
					unchecked++
				case d.Severity == linter.SeverityError:
					own++
				}
			}
			want := 1
			if tc.against != "" {
				want = 2
			}
			if own == 0 || unchecked != want {
				t.Errorf("%d findings of the package, %d XP000; want some and %d:\n%s", own, unchecked, want, r.stdout)
			}
		})
	}
}

// TestDepsSuppression checks that the root package's suppression
// annotation silences graph rules as it silences package rules: the
// diagnostics move to "suppressed" with the reason, the exit code follows,
// and XP004 does not call a graph rule's ID unknown.
func TestDepsSuppression(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"composition.yaml", "crossplane.yaml", "xrd.yaml"} {
		b, err := os.ReadFile(filepath.Join(depsRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "crossplane.yaml" {
			b = []byte(strings.Replace(string(b), "  annotations:\n", "  annotations:\n    "+meta.AnnotationSuppress+": \"XP601 dependency-kind XP606 XP605: checked by hand\"\n", 1))
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runCLI(t, nil, "-o", "json", "--deps", "--offline", "--deps-from", depsRegistry, dir)
	_, rep := decodeReport(t, r)
	if r.code != ExitOK {
		t.Errorf("exit code %d, want %d\n%s%s", r.code, ExitOK, r.stdout, r.stderr)
	}
	got := map[string]int{}
	for _, d := range rep.Suppressed {
		got[d.Rule]++
	}
	for id, n := range map[string]int{"XP601": 2, "XP604": 1, "XP606": 1, "XP605": 1} {
		if got[id] != n {
			t.Errorf("%s: %d suppressed, want %d (all: %v)", id, got[id], n, got)
		}
	}
	for _, d := range rep.Diagnostics {
		if d.Rule == "XP004" || strings.HasPrefix(d.Rule, "XP6") {
			t.Errorf("unexpected: %+v", d)
		}
	}
}
