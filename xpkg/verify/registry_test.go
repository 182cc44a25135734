package verify_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
	"github.com/xpkgkit/xpkgkit/xpkg/verify"
)

// TestDistributionRegistry signs an image in both formats, keyed and
// keyless, and pushes it with its signatures to Debian's docker-registry
// (the distribution reference implementation, which has no referrers API:
// bundles are found through the referrers tag schema); it verifies, and
// the tamper cases fail with their classes.
func TestDistributionRegistry(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	e := newEnv(t, reg.Host)
	k := newKey(t)
	s := newSigstore(t)
	ctx := context.Background()
	v := keylessVerifier(t, e, s, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
	r := e.repo(t, "crossplane-contrib/provider-nop")
	img, m := pushImage(t, r, "v1", "package")
	attachBundle(t, r, img, keyedBundle(t, k, img.Digest, verify.CosignSignPredicateType), verify.CosignSignPredicateType)
	attachBundle(t, r, img, s.keylessBundle(t, img.Digest, verify.CosignSignPredicateType, testSubject, time.Now().Add(5*time.Minute)), verify.CosignSignPredicateType)
	attachLegacy(t, r, img.Digest,
		keyedLegacy(t, k, simpleSigning(reg.Host+"/crossplane-contrib/provider-nop", img.Digest)),
		s.keylessLegacy(t, simpleSigning(reg.Host+"/crossplane-contrib/provider-nop", img.Digest), testSubject))
	ref := reg.Host + "/crossplane-contrib/provider-nop:v1"
	for name, pol := range map[string]*imageconfig.Verification{"key": keyPolicy(), "keyless": keylessPolicy(testSubject)} {
		e.count.take()
		res, err := v.Verify(ctx, ref, pol)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		formats := map[string]bool{}
		for _, sg := range res.Signatures {
			formats[sg.Format] = true
		}
		if !formats["bundle"] || !formats["legacy"] {
			t.Errorf("%s: verified %+v, want both formats", name, res.Signatures)
		}
		reqs := e.count.take()
		if slices.ContainsFunc(reqs, func(s string) bool {
			return strings.Contains(s, m.Layers[0].Digest.Encoded()) || strings.Contains(s, m.Config.Digest.Encoded())
		}) {
			t.Errorf("%s: a blob of the package was fetched: %q", name, reqs)
		}
	}
	// Tamper: an identity one character off, the tag moved to an unsigned
	// image.
	if _, err := v.Verify(ctx, ref, keylessPolicy("release@example.co")); !errors.Is(err, verify.ErrIdentityMismatch) {
		t.Errorf("identity: %v, want ErrIdentityMismatch", err)
	}
	pushImage(t, r, "v1", "re-tagged")
	if _, err := v.Verify(ctx, ref, keyPolicy()); !errors.Is(err, verify.ErrNoSignature) {
		t.Errorf("re-tagged: %v, want ErrNoSignature", err)
	}
}
