package apiserver

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOptIn checks that a program importing only linter, linter/schema or
// xpkg does not link the API server's code: only this package does.
func TestOptIn(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/xpkgkit/xpkgkit/linter", "github.com/xpkgkit/xpkgkit/linter/schema", "github.com/xpkgkit/xpkgkit/xpkg").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "k8s.io/apiextensions-apiserver") || strings.HasPrefix(pkg, "k8s.io/apiserver") || strings.HasPrefix(pkg, "github.com/google/cel-go") {
			t.Errorf("%s is linked by a program that does not opt in", pkg)
		}
	}
}
