package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/meta"

	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

func TestLock(t *testing.T) {
	t.Parallel()
	const (
		provA = "xpkg.example.org/acme/provider-a"
		cfgX  = "xpkg.example.org/acme/configuration-x"
	)
	prov := xpkgtest.NewProvider("provider-a")
	dir := xpkgtest.NewGraph().
		Add(provA, "v1.0.0", prov).Add(provA, "v1.1.0", prov.WithAnnotation("x", "y")).
		Add(cfgX, "v0.1.0", xpkgtest.NewConfiguration("x").WithDependency(meta.KindProvider, provA, "<v1.1.0")).
		Dir(t)
	root := xpkgtest.NewConfiguration("root").
		WithDependency(meta.KindProvider, provA, "v1").
		WithDependency(meta.KindConfiguration, cfgX, "v0").Dir(t)

	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--from", dir, root}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var lock deps.Lock
	if err := json.Unmarshal(out.Bytes(), &lock); err != nil {
		t.Fatal(err)
	}
	if lock.Root != "root" || len(lock.Packages) != 2 {
		t.Fatalf("lock: %s", out.String())
	}
	if p := lock.Packages[1]; p.Package != provA || p.Version != "v1.0.0" || !strings.HasPrefix(p.Digest, "sha256:") || len(p.RequiredBy) != 2 {
		t.Errorf("provider-a: %+v", p)
	}
	// The same inputs, the same lock.
	var again bytes.Buffer
	run(context.Background(), []string{"--from", dir, root}, &again, &errOut)
	if !bytes.Equal(out.Bytes(), again.Bytes()) {
		t.Error("the lock differs between two runs")
	}

	// A graph with an error: exit 1, the diagnostic on stderr.
	out.Reset()
	errOut.Reset()
	bad := xpkgtest.NewConfiguration("root").WithDependency(meta.KindProvider, provA, ">=v3.0.0").Dir(t)
	if code := run(context.Background(), []string{"--from", dir, bad}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "XP601") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	if code := run(context.Background(), []string{bad}, &out, &errOut); code != 2 {
		t.Errorf("no source: exit %d", code)
	}
}
