package verify_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOptIn: a program that only lints local files (examples/custom-rule,
// lintcmd without WithVerifier) does not link the signature
// libraries, as `go version -m` lists a binary's modules; xpkg-lint, which
// verifies, does.
func TestOptIn(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/xpkgkit/xpkgkit/lintcmd", "github.com/xpkgkit/xpkgkit/xpkg/deps", "github.com/xpkgkit/xpkgkit/xpkg").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "sigstore") || strings.HasSuffix(pkg, "xpkg/verify") {
			t.Errorf("%s is linked by a program that does not verify", pkg)
		}
	}
	if testing.Short() {
		return
	}
	dir := t.TempDir()
	for _, c := range []struct {
		pkg     string
		sigstor bool
	}{
		{"github.com/xpkgkit/xpkgkit/examples/custom-rule", false},
		{"github.com/xpkgkit/xpkgkit/examples/xpkg-lint", true},
	} {
		bin := filepath.Join(dir, filepath.Base(c.pkg))
		if out, err := exec.Command(goTool, "build", "-o", bin, c.pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", c.pkg, err, out)
		}
		out, err := exec.Command(goTool, "version", "-m", bin).CombinedOutput()
		if err != nil {
			t.Fatalf("go version -m: %v\n%s", err, out)
		}
		// Any module of the sigstore project (sigstore-go, sigstore,
		// protobuf-specs, rekor, timestamp-authority) counts.
		if got := strings.Contains(string(out), "\tgithub.com/sigstore/"); got != c.sigstor {
			t.Errorf("%s links the sigstore modules: %v, want %v\n%s", c.pkg, got, c.sigstor, out)
		}
	}
}
