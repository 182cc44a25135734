package consumer_test

import (
	"debug/buildinfo"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// TestLocalOnlyLinksNoRegistryCode builds openxpkg, a program that opens
// .xpkg files with package xpkg and nothing else, and checks, as
// `go version -m` shows, that no registry code is linked into it: package
// xpkg reaches a network only through the client a caller gives it.
func TestLocalOnlyLinksNoRegistryCode(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "openxpkg")
	if out, err := exec.Command("go", "build", "-o", bin, "./openxpkg").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Deps) == 0 {
		t.Fatal("the build info lists no dependency: nothing was checked")
	}
	for _, d := range info.Deps {
		if strings.HasPrefix(d.Path, "oras.land/") {
			t.Errorf("openxpkg links %s %s: package xpkg must not link registry code", d.Path, d.Version)
		}
	}
	p := xpkgtest.NewProvider("provider-local").WithCRD("example.org", "Widget", "v1")
	out, err := exec.Command(bin, p.MustImage(t).XpkgFile(t)).CombinedOutput()
	if err != nil {
		t.Fatalf("openxpkg: %v\n%s", err, out)
	}
	if want := "xpkg: provider-local, 1 objects"; !strings.Contains(string(out), want) {
		t.Errorf("openxpkg printed %q, want %q", out, want)
	}
}
