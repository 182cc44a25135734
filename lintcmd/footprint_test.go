package lintcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// footprintFixture writes a root Configuration depending on a Provider of
// two CRDs (a ProviderConfig, and a Widget that v2 installs as an active
// MRD), with the configuration cfg beside it, and returns the root's
// directory and the dependency directory.
func footprintFixture(t *testing.T, cfg string) (root, registry string) {
	t.Helper()
	dir := t.TempDir()
	root, registry = filepath.Join(dir, "root"), filepath.Join(dir, "registry")
	prov := filepath.Join(registry, "xpkg.example.org", "acme", "provider-f")
	for _, d := range []string{root, prov} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	crd := func(kind, plural string) string {
		return "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + plural + ".f.example.org\nspec:\n" +
			"  group: f.example.org\n  names:\n    kind: " + kind + "\n    plural: " + plural + "\n  scope: Cluster\n  versions:\n" +
			"  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"
	}
	files := map[string]string{
		filepath.Join(root, "crossplane.yaml"): "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: root\nspec:\n" +
			"  dependsOn:\n  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.example.org/acme/provider-f\n    version: \">=v1.0.0\"\n",
		filepath.Join(prov, "v1.0.0.yaml"): "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-f\n" +
			crd("ProviderConfig", "providerconfigs") + crd("Widget", "widgets"),
	}
	if cfg != "" {
		files[filepath.Join(root, ".xpkg-lint.yaml")] = cfg
	}
	for f, data := range files {
		if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, registry
}

// TestFootprintOutputs: the graph's footprint (XP609) is in the text, JSON
// and SARIF outputs with its counts, and max-crds and
// max-apiserver-memory turn an excess into XP610 warnings; exit 0.
func TestFootprintOutputs(t *testing.T) {
	t.Parallel()
	root, registry := footprintFixture(t, "max-crds: 1\nmax-apiserver-memory: 1Mi\n")
	args := []string{"--deps", "--offline", "--deps-from", registry, "--crossplane-version", "v2.4.0", root}
	counts := "installs 2 CRDs: 1 plain, 1 MRDs active at install, 0 MRDs inactive"
	for _, format := range []string{"text", "json", "sarif"} {
		r := runCLI(t, nil, append([]string{"-o", format}, args...)...)
		if r.code != ExitOK {
			t.Errorf("%s: exit %d, stderr %q", format, r.code, r.stderr)
		}
		for _, want := range []string{"XP609", counts, "estimated API server memory 8.0 MiB", "XP610",
			"serves 2 CRDs at Crossplane v2.4 (1 plain, 1 MRDs active at install), over max-crds 1", "over max-apiserver-memory 1.0 MiB"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%s: no %q in the output:\n%s", format, want, r.stdout)
			}
		}
	}
	// Without the keys: the footprint, no XP610.
	root, registry = footprintFixture(t, "")
	r := runCLI(t, nil, "--deps", "--offline", "--deps-from", registry, root)
	if r.code != ExitOK || !strings.Contains(r.stdout, "XP609") || strings.Contains(r.stdout, "XP610") {
		t.Errorf("exit %d; output:\n%s", r.code, r.stdout)
	}
}

// TestFootprintConfigKeys: the keys' bad values are errors naming the
// line.
func TestFootprintConfigKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"max-crds: 0\n", `f.yaml:1: max-crds: "0" is not a positive count of CRDs`},
		{"max-crds: 2Gi\n", `max-crds: "2Gi" is not a positive count of CRDs`},
		{"max-apiserver-memory: lots\n", `max-apiserver-memory: "lots" is not a positive quantity of bytes`},
		{"max-apiserver-memory: [1]\n", `max-apiserver-memory: want a number`},
	} {
		_, err := builtinChecker.parseConfig(t.Context(), "f.yaml", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.in, err, tc.want)
		}
	}
	c, err := builtinChecker.parseConfig(t.Context(), "f.yaml", []byte("max-crds: 500\nmax-apiserver-memory: 2Gi\n"))
	if err != nil || c.footprint.MaxCRDs != 500 || c.footprint.MaxAPIServerBytes != 2<<30 {
		t.Errorf("got %+v, %v", c, err)
	}
}
