package verify_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/xpkg/verify"
)

// TestRequestAccounting: verifying a package signed in both formats (a
// cosign v3 bundle referrer, found through the referrers API or the
// referrers tag schema, and a legacy ".sig" layer) sends only these
// requests: the resolution of the tag (the package's manifest, by HEAD),
// the referrers listing (the API, or the "sha256-<hex>" tag), the
// referrer's manifest and its bundle blob, the ".sig" tag's manifest and
// its payload blob. Nothing else is read: not the package's config or
// layers, not the referrer's or the ".sig" manifest's config, not the
// ".att" tag (no authority asks for attestations); no blob is read twice.
func TestRequestAccounting(t *testing.T) {
	t.Parallel()
	envs := map[string]func(t *testing.T) *env{
		"referrers API":                func(t *testing.T) *env { return newInProcess(t, true) },
		"referrers tag schema":         func(t *testing.T) *env { return newInProcess(t, false) },
		"docker-registry (tag schema)": func(t *testing.T) *env { return newEnv(t, registrytest.Start(t, registrytest.Plain).Host) },
	}
	for name, start := range envs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := start(t)
			k := newKey(t)
			r := e.repo(t, "acme/provider-nop")
			img, m := pushImage(t, r, "v1", "the package's layer")
			bundle := keyedBundle(t, k, img.Digest, verify.CosignSignPredicateType)
			ref := attachBundle(t, r, img, bundle, verify.CosignSignPredicateType)
			payload := simpleSigning(e.host+"/acme/provider-nop", img.Digest)
			sigManifest := attachLegacy(t, r, img.Digest, keyedLegacy(t, k, payload))
			v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))

			e.count.take()
			res, err := v.Verify(context.Background(), e.host+"/acme/provider-nop:v1", keyPolicy())
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Signatures) != 2 {
				t.Errorf("verified %+v, want the bundle and the legacy signature", res.Signatures)
			}
			reqs := e.count.take()

			tag := strings.Replace(img.Digest.String(), ":", "-", 1)
			base := "/v2/acme/provider-nop/"
			allowed := map[string]bool{
				"/v2/":                true,
				base + "manifests/v1": true, // the package, resolved once
				base + "referrers/" + img.Digest.String():         true, // the referrers API
				base + "manifests/" + tag:                         true, // or the referrers tag schema
				base + "manifests/" + ref.Digest.String():         true, // the bundle referrer
				base + "manifests/" + tag + ".sig":                true, // the legacy signature tag
				base + "manifests/" + sigManifest.Digest.String(): true,
			}
			mustRead := []digest.Digest{digest.FromBytes(bundle), digest.FromBytes(payload)}
			for _, d := range mustRead {
				allowed[base+"blobs/"+d.String()] = true
			}
			blobReads := map[string]int{}
			for _, rq := range reqs {
				method, path, _ := strings.Cut(rq, " ")
				if !allowed[path] {
					t.Errorf("request %s is not one the verification needs", rq)
				}
				if strings.Contains(path, "/blobs/") && method == "GET" {
					blobReads[path]++
				}
			}
			for _, d := range mustRead {
				if n := blobReads[base+"blobs/"+d.String()]; n != 1 {
					t.Errorf("blob %s read %d times, want once", d, n)
				}
			}
			for _, never := range []digest.Digest{m.Config.Digest, m.Layers[0].Digest} {
				if slices.ContainsFunc(reqs, func(s string) bool { return strings.Contains(s, never.Encoded()) }) {
					t.Errorf("a blob of the package (%s) was requested", never)
				}
			}
			if len(reqs) > 10 {
				t.Errorf("%d requests, want at most 10: %q", len(reqs), reqs)
			}
			t.Logf("%d requests: %q", len(reqs), reqs)
		})
	}
}
