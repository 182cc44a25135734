package consumer_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayersLinkOnlyWhatTheyUse lists what two small programs link (go
// list -deps): frameworkonly, which writes a rule and lints a parsed
// package with package linter alone, links no built-in rule package, no
// schema validator (kube-openapi's validation, linter/schema) and no API
// server; openxpkg, which only opens .xpkg files, links no linter package
// at all. Then it runs frameworkonly, so that the program checked is one
// that works.
func TestLayersLinkOnlyWhatTheyUse(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("lists and builds programs")
	}
	const mod = "github.com/xpkgkit/xpkgkit/"
	cases := []struct {
		program   string
		forbidden func(pkg string) bool
		why       string
	}{
		{
			program: "./frameworkonly",
			forbidden: func(pkg string) bool {
				switch {
				case pkg == "k8s.io/kube-openapi/pkg/util":
					return false // k8s.io/apimachinery/pkg/runtime's, through parser
				case strings.HasPrefix(pkg, "k8s.io/kube-openapi/"), strings.HasPrefix(pkg, "k8s.io/apiextensions-apiserver/"):
					return true
				}
				return strings.HasPrefix(pkg, mod+"linter/") || strings.HasPrefix(pkg, mod+"xpkg")
			},
			why: "a program of the framework alone links no built-in rule, schema validator or reader",
		},
		{
			program:   "./openxpkg",
			forbidden: func(pkg string) bool { return pkg == mod+"linter" || strings.HasPrefix(pkg, mod+"linter/") },
			why:       "a program that only opens packages links no linter package",
		},
	}
	for _, tc := range cases {
		t.Run(tc.program, func(t *testing.T) {
			t.Parallel()
			out, err := exec.Command("go", "list", "-deps", tc.program).Output()
			if err != nil {
				t.Fatalf("go list: %v", err)
			}
			deps := strings.Fields(string(out))
			if len(deps) < 10 {
				t.Fatalf("go list -deps %s listed %d packages: nothing was checked", tc.program, len(deps))
			}
			for _, pkg := range deps {
				if tc.forbidden(pkg) {
					t.Errorf("%s links %s: %s", tc.program, pkg, tc.why)
				}
			}
		})
	}

	bin := filepath.Join(t.TempDir(), "frameworkonly")
	if out, err := exec.Command("go", "build", "-o", bin, "./frameworkonly").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	file := filepath.Join(t.TempDir(), "package.yaml")
	stream := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-example\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: controller\n"
	if err := os.WriteFile(file, []byte(stream), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, file).CombinedOutput()
	if err != nil {
		t.Fatalf("frameworkonly: %v\n%s", err, out)
	}
	if want := "warning ACME001 team-label: Deployment controller has no acme.example/team label"; !strings.Contains(string(out), want) {
		t.Errorf("frameworkonly printed %q, want %q", out, want)
	}
}
