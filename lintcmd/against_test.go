package lintcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// TestAgainstReference compares a package directory with its previous
// release pulled from a registry by tag, then again offline from the
// cache, and with a local older package.
func TestAgainstReference(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	ctx := context.Background()
	res, err := xpkg.Build(ctx, os.DirFS("testdata/against/v1"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := remote.New(remote.WithAnonymous())
	if _, err := res.Push(ctx, pushTo(t, c, reg.Host+"/acme/provider-example"), "v1.0.0"); err != nil {
		t.Fatal(err)
	}
	ref := reg.Host + "/acme/provider-example:v1.0.0"
	cacheDir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"auths":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	newDir := filepath.Join("testdata", "against", "v2")

	// v1.0.0 -> v1.1.0 changes a type: a semver violation, an error.
	online := runCLI(t, nil, "--cache-dir", cacheDir, "--registry-config", cfg, "--against", ref, "--package-version", "v1.1.0", "-o", "json", newDir)
	if online.code != ExitFindings {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", online.code, online.stdout, online.stderr)
	}
	for _, want := range []string{
		`"rule":"XP713","name":"api-type-changed","severity":"error"`,
		`"rule":"XP711","name":"api-field-added","severity":"info"`,
		`"file":"` + filepath.Join(newDir, "crds", "example.org_widgets.yaml") + `"`,
		`"line":26`, "semver violation", "[old: package.yaml:",
	} {
		if !strings.Contains(compactJSON(online.stdout), want) {
			t.Errorf("output lacks %s:\n%s", want, online.stdout)
		}
	}

	offline := runCLI(t, nil, "--cache-dir", cacheDir, "--offline", "--against", ref, "--package-version", "v1.1.0", "-o", "json", newDir)
	if offline.code != online.code || offline.stdout != online.stdout {
		t.Errorf("offline from the cache: exit %d\n%s\nwant exit %d\n%s", offline.code, offline.stdout, online.code, online.stdout)
	}
	empty := runCLI(t, nil, "--cache-dir", t.TempDir(), "--offline", "--against", ref, newDir)
	if empty.code != ExitError || !strings.Contains(empty.stdout, "error XP000 source-unreadable: --against") {
		t.Errorf("offline with an empty cache: exit %d, stdout %q, stderr %q", empty.code, empty.stdout, empty.stderr)
	}

	// A major bump: the same change is a warning.
	major := runCLI(t, nil, "--cache-dir", cacheDir, "--offline", "--against", ref, "--package-version", "v2.0.0", "-o", "json", newDir)
	if major.code != ExitOK || !strings.Contains(compactJSON(major.stdout), `"rule":"XP713","name":"api-type-changed","severity":"warning"`) {
		t.Errorf("major bump: exit %d\n%s\n%s", major.code, major.stdout, major.stderr)
	}
	// A local older package, no versions: warnings; rules can be disabled.
	local := runCLI(t, nil, "--against", filepath.Join("testdata", "against", "v1"), "--disable", "api-field-added", newDir)
	if local.code != ExitOK || !strings.Contains(local.stdout, "XP713") || strings.Contains(local.stdout, "XP711") {
		t.Errorf("local: exit %d\n%s\n%s", local.code, local.stdout, local.stderr)
	}
	// Two sources, linted at once, share the older package.
	two := runCLI(t, nil, "-j", "2", "--against", filepath.Join("testdata", "against", "v1"), newDir, filepath.Join("testdata", "against", "v1"))
	if two.code != ExitOK || strings.Count(two.stdout, "XP713") != 1 {
		t.Errorf("two sources: exit %d\n%s\n%s", two.code, two.stdout, two.stderr)
	}
	// Same package: nothing.
	same := runCLI(t, nil, "--against", newDir, "--package-version", "v1.0.1", "-o", "json", newDir)
	if same.code != ExitOK || strings.Contains(same.stdout, "XP7") {
		t.Errorf("same package: exit %d\n%s\n%s", same.code, same.stdout, same.stderr)
	}
	for _, bad := range [][]string{{"--package-version", "v1", newDir}, {"--against", "-", newDir}, {"--against", newDir, "--package-version", "one", newDir}} {
		if r := runCLI(t, nil, bad...); r.code != ExitError {
			t.Errorf("%v: exit %d, want %d", bad, r.code, ExitError)
		}
	}
	if r := runCLI(t, nil, "--explain", "XP710"); r.code != ExitOK || !strings.Contains(r.stdout, "api-field-removed") {
		t.Errorf("--explain XP710: exit %d\n%s", r.code, r.stdout)
	}
}

// compactJSON is the JSON output without its indentation.
func compactJSON(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return s
	}
	return b.String()
}

// TestAgainstConfiguration checks that --against's rules take the one
// configuration of the package and graph rules: --disable by name,
// --severity by ID, and the new package's suppression annotation (the
// diagnostic moves to "suppressed", and XP004 does not call the change
// rule's ID unknown).
func TestAgainstConfiguration(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	copyDir(t, filepath.Join("testdata", "against", "v1"), filepath.Join(repo, "v1"))
	copyDir(t, filepath.Join("testdata", "against", "v2"), filepath.Join(repo, "v2"))
	v1, v2 := filepath.Join(repo, "v1"), filepath.Join(repo, "v2")
	rules := func(ds []jsonFinding) map[string]string {
		m := map[string]string{}
		for _, d := range ds {
			m[d.Rule] = d.Severity
		}
		return m
	}
	r := runCLI(t, nil, "-o", "json", "--against", v1, "--disable", "api-field-added", "--severity", "XP713=error", v2)
	_, rep := decodeReport(t, r)
	if got := rules(rep.Diagnostics); r.code != ExitFindings || got["XP713"] != "error" || got["XP711"] != "" {
		t.Errorf("disabled and regraded: exit %d, rules %v\n%s", r.code, got, r.stderr)
	}
	metaFile := filepath.Join(v2, "crossplane.yaml")
	b, err := os.ReadFile(metaFile)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), "  annotations:\n", "  annotations:\n    "+meta.AnnotationSuppress+": \"XP713: clients send strings already\"\n", 1))
	if err := os.WriteFile(metaFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "-o", "json", "--against", v1, v2)
	_, rep = decodeReport(t, r)
	if got := rules(rep.Diagnostics); r.code != ExitOK || got["XP713"] != "" || got["XP004"] != "" || got["XP711"] == "" {
		t.Errorf("suppressed: exit %d, rules %v\n%s", r.code, got, r.stderr)
	}
	if got := rules(rep.Suppressed); got["XP713"] == "" {
		t.Errorf("suppressed: %v, want XP713", got)
	}
}
