package main_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/internal/signtest"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// TestVerifyCLI: xpkg-lint --verify lints a package signed with a key (a
// cosign v3 bundle referrer in Debian's docker-registry), refuses one whose
// tag moved to an unsigned image as Crossplane does (XP510, exit 1), and
// cannot check one no ImageConfig states a verification for (exit 2); with
// --deps it verifies every package of the graph, and refuses a graph with
// an unsigned dependency (XP510, exit 1).
func TestVerifyCLI(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	bin := buildCLI(t)
	ctx := context.Background()
	name := reg.Host + "/crossplane-contrib/provider-signed"
	pushImage(t, name, "v1", xpkgtest.NewProvider("provider-signed").MustImage(t))
	c, _ := remote.New(remote.WithAnonymous())
	repo, _ := c.Repository(name)
	desc, err := repo.Resolve(ctx, "v1")
	if err != nil {
		t.Fatal(err)
	}
	k, pub := signtest.NewKey(t)
	signtest.AttachKeyedBundle(t, repo, desc, k)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "cosign.pub")
	icFile := filepath.Join(dir, "imageconfig.yaml")
	writeFile(t, keyFile, string(pub))
	writeFile(t, icFile, fmt.Sprintf(`apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata:
  name: signed
spec:
  matchImages:
  - prefix: %s/crossplane-contrib/
  verification:
    provider: Cosign
    cosign:
      authorities:
      - name: release-key
        key:
          secretRef: {name: cosign, key: cosign.pub}
          hashAlgorithm: sha256
`, reg.Host))
	run := func(ref string, more ...string) (int, string) {
		args := append([]string{"--image-config", icFile, "--verify", "--verify-key", "cosign/cosign.pub=" + keyFile,
			"--cache-dir", t.TempDir(), "--crossplane-version", "v2.0.0"}, more...)
		cmd := exec.CommandContext(t.Context(), bin, append(args, ref)...)
		cmd.Env = append(os.Environ(), "DOCKER_CONFIG="+t.TempDir())
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String()
	}
	if code, out := run(name + ":v1"); code == 2 || strings.Contains(out, "signature verification failed") {
		t.Errorf("signed package: exit %d\n%s", code, out)
	}
	// --deps verifies every package of the graph at the digest it was
	// read at: a signed configuration whose dependency's newest version
	// is unsigned is refused, naming the dependency.
	pushSigned := func(name, tag string, img *xpkgtest.Image) {
		t.Helper()
		pushImage(t, name, tag, img)
		repo, _ := c.Repository(name)
		d, err := repo.Resolve(ctx, tag)
		if err != nil {
			t.Fatal(err)
		}
		signtest.AttachKeyedBundle(t, repo, d, k)
	}
	dep, cfg := reg.Host+"/crossplane-contrib/provider-dep", reg.Host+"/crossplane-contrib/configuration-root"
	pushSigned(dep, "v1.0.0", xpkgtest.NewProvider("provider-dep").MustImage(t))
	pushSigned(cfg, "v1", xpkgtest.NewConfiguration("configuration-root").WithDependency(meta.KindProvider, dep, ">=v1.0.0").MustImage(t))
	if code, out := run(cfg+":v1", "--deps"); code == 2 || strings.Contains(out, "signature verification failed") || !strings.Contains(out, dep+":v1.0.0") {
		t.Errorf("signed graph: exit %d\n%s", code, out)
	}
	pushImage(t, dep, "v1.1.0", xpkgtest.NewProvider("provider-dep").WithAnnotation("unsigned", "yes").MustImage(t))
	// Crossplane refuses an unsigned package its ImageConfig requires a
	// signature of: a finding (XP510), exit 1, not "could not be read".
	if code, out := run(cfg+":v1", "--deps"); code != 1 || !strings.Contains(out, "XP510 signature-refused") || !strings.Contains(out, "dependency "+dep) || !strings.Contains(out, "no signature") {
		t.Errorf("graph with an unsigned dependency: exit %d, want 1 (XP510) naming %s\n%s", code, dep, out)
	}

	pushImage(t, name, "v1", xpkgtest.NewProvider("provider-unsigned").MustImage(t))
	if code, out := run(name + ":v1"); code != 1 || !strings.Contains(out, "XP510 signature-refused") || !strings.Contains(out, "no signature") {
		t.Errorf("re-tagged package: exit %d, want 1 (XP510) and \"no signature\"\n%s", code, out)
	}
	other := reg.Host + "/other/provider:v1"
	pushImage(t, other, "v1", xpkgtest.NewProvider("provider-other").MustImage(t))
	if code, out := run(other); code != 2 || !strings.Contains(out, "no ImageConfig") {
		t.Errorf("no policy: exit %d, want 2\n%s", code, out)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRegistryCostCLIVerify: xpkg-lint --verify against hostile
// registries (a referrers listing without end, full pages of bundle
// referrers; bundle referrers whose blobs never end) exits 2 within the
// hostile budget of memory and CPU, with safe output.
func TestRegistryCostCLIVerify(t *testing.T) {
	t.Parallel()
	bin := registryCLI(t)
	manifest := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[]}`)
	md := digest.FromBytes(manifest)
	const bundleType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	refManifest := func(i int) []byte {
		return fmt.Appendf(nil, `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":%q,"config":{"mediaType":"application/vnd.oci.empty.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[{"mediaType":%q,"digest":%q,"size":1048576}],"subject":{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":%q,"size":%d}}`,
			bundleType, bundleType, digest.FromString(fmt.Sprint("endless", i)), md, len(manifest))
	}
	refs := map[digest.Digest][]byte{}
	var listing []string
	for i := range 64 {
		b := refManifest(i)
		d := digest.FromBytes(b)
		refs[d] = b
		listing = append(listing, fmt.Sprintf(`{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":%q,"size":%d,"artifactType":%q}`, d, len(b), bundleType))
	}
	serveManifest := func(w http.ResponseWriter, b []byte) {
		w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
		w.Header().Set("Docker-Content-Digest", digest.FromBytes(b).String())
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.Write(b)
	}
	handler := func(endlessPages bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			p := r.URL.Path
			switch {
			case p == "/v2/":
				w.WriteHeader(http.StatusOK)
			case strings.HasSuffix(p, "/manifests/v1") || strings.HasSuffix(p, "/manifests/"+md.String()):
				serveManifest(w, manifest)
			case strings.Contains(p, "/manifests/sha256:"):
				if b, ok := refs[digest.Digest(p[strings.LastIndex(p, "/")+1:])]; ok {
					serveManifest(w, b)
					return
				}
				http.NotFound(w, r)
			case strings.Contains(p, "/referrers/"):
				w.Header().Set("Content-Type", "application/vnd.oci.image.index.v1+json")
				if endlessPages {
					w.Header().Set("Link", fmt.Sprintf(`<%s?n=%d>; rel="next"`, p, len(r.URL.RawQuery)))
					page := strings.Repeat(listing[0]+",", 399) + listing[0]
					fmt.Fprint(w, `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[`+page+`]}`)
					return
				}
				fmt.Fprint(w, `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[`+strings.Join(listing, ",")+`]}`)
			case strings.Contains(p, "/blobs/"):
				chunk := make([]byte, 64<<10)
				for range 1 << 12 { // 256 MiB at most
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
			default:
				http.NotFound(w, r)
			}
		}
	}
	for _, tc := range []struct {
		name         string
		endlessPages bool
	}{{"referrer-flood", true}, {"endless-bundle-blobs", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			host, _ := hostileHost(t, handler(tc.endlessPages))
			dir := t.TempDir()
			_, pub := signtest.NewKey(t)
			keyFile, icFile := filepath.Join(dir, "cosign.pub"), filepath.Join(dir, "ic.yaml")
			writeFile(t, keyFile, string(pub))
			writeFile(t, icFile, fmt.Sprintf("apiVersion: pkg.crossplane.io/v1beta1\nkind: ImageConfig\nmetadata: {name: v}\nspec:\n  matchImages: [{prefix: %s/}]\n  verification:\n    provider: Cosign\n    cosign:\n      authorities:\n      - name: k\n        key: {secretRef: {name: cosign, key: cosign.pub}, hashAlgorithm: sha256}\n", host))
			r := runIsolated(t, bin, "--image-config", icFile, "--verify", "--verify-key", "cosign/cosign.pub="+keyFile, "--cache-dir", t.TempDir(), host+"/acme/p:v1")
			if r.code != cliExitError || !strings.Contains(r.stderr, "signature verification failed") {
				t.Errorf("exit %d, want %d\n%s", r.code, cliExitError, short(r.stderr))
			}
			checkOutputSafe(t, r.stdout+r.stderr)
		})
	}
}
