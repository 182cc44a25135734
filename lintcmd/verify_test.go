package lintcmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

// fakeVerifier answers as told and records what it was asked.
type fakeVerifier struct {
	mu      sync.Mutex
	refs    []string
	digest  string
	applied bool
	err     error
}

func (f *fakeVerifier) Verify(_ context.Context, ref string, _ *imageconfig.Set) (string, string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refs = append(f.refs, ref)
	return f.digest, "ic/authority", f.applied, f.err
}

func runVerifying(t *testing.T, v Verifier, args ...string) result {
	t.Helper()
	ck := New(WithVerifier(func(o VerifyOptions) (Verifier, error) {
		if o.Client == nil || o.Keys["cosign/cosign.pub"] != "key.pem" || o.TrustedRoot != "root.json" {
			return nil, errors.New("the flags did not reach the options")
		}
		return v, nil
	}))
	var stdout, stderr bytes.Buffer
	code := ck.runWith(context.Background(), xpkgLoader{}, append([]string{"--verify", "--verify-key", "cosign/cosign.pub=key.pem", "--trusted-root", "root.json"}, args...), nil, &stdout, &stderr)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// TestVerifyFlag: --verify checks the rewritten reference and reads the
// package at the digest the verifier returns; a failure, or no policy,
// makes the source unreadable; a program without WithVerifier refuses
// --verify; a graph package read without a digest cannot be verified.
func TestVerifyFlag(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	ctx := context.Background()
	res, err := xpkg.Build(ctx, os.DirFS("../xpkg/testdata/build/lint-error"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := remote.New(remote.WithAnonymous())
	_, err = res.Push(ctx, pushTo(t, c, reg.Host+"/mirror/acme/lint-error"), "v1")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ic := filepath.Join(dir, "mirror.yaml")
	if err := os.WriteFile(ic, []byte("apiVersion: pkg.crossplane.io/v1beta1\nkind: ImageConfig\nmetadata:\n  name: mirror\nspec:\n  matchImages:\n  - prefix: upstream.invalid/\n  rewriteImage:\n    prefix: "+reg.Host+"/mirror/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"auths":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	const ref = "upstream.invalid/acme/lint-error:v1"
	repo, _ := c.Repository(reg.Host + "/mirror/acme/lint-error")
	desc, err := repo.Resolve(ctx, "v1")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--cache-dir", t.TempDir(), "--registry-config", cfg, "--image-config", ic, "-o", "json", ref}

	ok := &fakeVerifier{digest: desc.Digest.String(), applied: true}
	r := runVerifying(t, ok, args...)
	if r.code != ExitFindings || !strings.Contains(r.stdout, "XP401") {
		t.Errorf("verified: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if len(ok.refs) != 1 || ok.refs[0] != reg.Host+"/mirror/acme/lint-error:v1" {
		t.Errorf("verified %q, want the rewritten reference", ok.refs)
	}
	// The package is read at the verifier's digest, not by its tag.
	other := &fakeVerifier{digest: digest.FromString("another image").String(), applied: true}
	if r := runVerifying(t, other, args...); r.code != ExitError {
		t.Errorf("read at an absent digest: exit %d, want %d\n%s", r.code, ExitError, r.stderr)
	}
	failing := &fakeVerifier{err: errors.New("verify: no signature")}
	if r := runVerifying(t, failing, args...); r.code != ExitError || !strings.Contains(r.stderr, "signature verification failed") {
		t.Errorf("failed verification: exit %d\n%s", r.code, r.stderr)
	}
	none := &fakeVerifier{}
	if r := runVerifying(t, none, args...); r.code != ExitError || !strings.Contains(r.stderr, "no ImageConfig") {
		t.Errorf("no policy: exit %d\n%s", r.code, r.stderr)
	}
	if r := runCLI(t, nil, "--verify", ref); r.code != ExitError || !strings.Contains(r.stderr, "without signature verification") {
		t.Errorf("no WithVerifier: exit %d\n%s", r.code, r.stderr)
	}
	if r := runCLI(t, nil, "--trusted-root", "x.json", ref); r.code != ExitError || !strings.Contains(r.stderr, "need --verify") {
		t.Errorf("--trusted-root alone: exit %d\n%s", r.code, r.stderr)
	}
	graph := &fakeVerifier{digest: "sha256:x", applied: true}
	r = runVerifying(t, graph, "--deps", "--offline", "--deps-from", "testdata/deps/registry", "--crossplane-version", "v2.1.0", "testdata/deps/root")
	if r.code != ExitError || !strings.Contains(r.stdout, "without a digest") {
		t.Errorf("graph from YAML directories: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestVerifyLocalNote: --verify on a package read from disk or standard
// input checks no signature, and says so on stderr instead of passing in
// silence; the verifier is never asked, and the exit code is the lint's.
func TestVerifyLocalNote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{name: "directory", args: []string{"../xpkg/testdata/build/lint-error"},
			want: []string{"note: --verify: ../xpkg/testdata/build/lint-error is not verified: it is read from disk"}},
		{name: "with --deps", args: []string{"--deps", "--offline", "--deps-from", "testdata/deps/registry", "--crossplane-version", "v2.1.0", "testdata/deps/root"},
			want: []string{"note: --verify: testdata/deps/root is not verified", "(its dependencies are verified)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := &fakeVerifier{digest: "sha256:x", applied: true}
			r := runVerifying(t, v, tc.args...)
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if tc.name == "directory" {
				if r.code != ExitFindings || len(v.refs) != 0 {
					t.Errorf("exit %d, verifier asked %q; want exit %d and no verification", r.code, v.refs, ExitFindings)
				}
			}
		})
	}
}
