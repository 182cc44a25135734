package verify_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/xpkg/verify"
)

// keylessVerifier reads the virtual Sigstore's trusted root from a file,
// as a user's trusted_root.json.
func keylessVerifier(t *testing.T, e *env, s *sigstore, opts ...verify.Option) *verify.Verifier {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trusted_root.json")
	if err := os.WriteFile(path, s.rootJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	return newVerifier(t, e, append(opts, verify.WithTrustedRootFile(path))...)
}

// TestKeyless: keyless signatures verify in both formats; an identity that
// differs in one character, an expired certificate and a certificate of
// another Fulcio fail with their classes.
func TestKeyless(t *testing.T) {
	t.Parallel()
	e := newInProcess(t, true)
	s := newSigstore(t)
	v := keylessVerifier(t, e, s)
	ctx := context.Background()
	in := func() time.Time { return time.Now().Add(5 * time.Minute) }

	t.Run("bundle", func(t *testing.T) {
		t.Parallel()
		r := e.repo(t, "keyless/bundle")
		img, _ := pushImage(t, r, "v1", "a")
		attachBundle(t, r, img, s.keylessBundle(t, img.Digest, verify.CosignSignPredicateType, testSubject, in()), verify.CosignSignPredicateType)
		res, err := v.Verify(ctx, e.host+"/keyless/bundle:v1", keylessPolicy(testSubject))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Signatures[0]; got.Subject != testSubject || got.Issuer != testIssuer || got.Format != "bundle" {
			t.Errorf("signature %+v", got)
		}
	})
	t.Run("legacy", func(t *testing.T) {
		t.Parallel()
		r := e.repo(t, "keyless/legacy")
		img, _ := pushImage(t, r, "v1", "a")
		attachLegacy(t, r, img.Digest, s.keylessLegacy(t, simpleSigning(e.host+"/keyless/legacy", img.Digest), testSubject))
		res, err := v.Verify(ctx, e.host+"/keyless/legacy:v1", keylessPolicy(testSubject))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Signatures[0]; got.Subject != testSubject || got.Format != "legacy" {
			t.Errorf("signature %+v", got)
		}
	})
	t.Run("identity differs in one character", func(t *testing.T) {
		t.Parallel()
		r := e.repo(t, "keyless/identity")
		img, _ := pushImage(t, r, "v1", "a")
		attachBundle(t, r, img, s.keylessBundle(t, img.Digest, verify.CosignSignPredicateType, "releasf@example.com", in()), verify.CosignSignPredicateType)
		attachLegacy(t, r, img.Digest, s.keylessLegacy(t, simpleSigning("x", img.Digest), "release@example.con"))
		_, err := v.Verify(ctx, e.host+"/keyless/identity:v1", keylessPolicy(testSubject))
		if !errors.Is(err, verify.ErrIdentityMismatch) || !errors.Is(err, verify.ErrNoMatchingAuthority) {
			t.Fatalf("%v, want ErrIdentityMismatch", err)
		}
		var ve *verify.Error
		if errors.As(err, &ve); len(ve.Failures) != 2 {
			t.Errorf("failures %v, want one per signature", ve.Failures)
		}
	})
	t.Run("expired certificate", func(t *testing.T) {
		t.Parallel()
		r := e.repo(t, "keyless/expired")
		img, _ := pushImage(t, r, "v1", "a")
		// Logged 20 minutes after issuance: the certificate lives 10.
		attachBundle(t, r, img, s.keylessBundle(t, img.Digest, verify.CosignSignPredicateType, testSubject, time.Now().Add(20*time.Minute)), verify.CosignSignPredicateType)
		_, err := v.Verify(ctx, e.host+"/keyless/expired:v1", keylessPolicy(testSubject))
		if !errors.Is(err, verify.ErrUntrustedRoot) {
			t.Fatalf("%v, want ErrUntrustedRoot", err)
		}
	})
	t.Run("another Fulcio", func(t *testing.T) {
		t.Parallel()
		r := e.repo(t, "keyless/other")
		img, _ := pushImage(t, r, "v1", "a")
		other := newSigstore(t)
		attachBundle(t, r, img, other.keylessBundle(t, img.Digest, verify.CosignSignPredicateType, testSubject, in()), verify.CosignSignPredicateType)
		_, err := v.Verify(ctx, e.host+"/keyless/other:v1", keylessPolicy(testSubject))
		if !errors.Is(err, verify.ErrUntrustedRoot) {
			t.Fatalf("%v, want ErrUntrustedRoot", err)
		}
	})
	t.Run("SCT required", func(t *testing.T) {
		t.Parallel()
		r := e.repo(t, "keyless/sct")
		img, _ := pushImage(t, r, "v1", "a")
		attachBundle(t, r, img, s.keylessBundle(t, img.Digest, verify.CosignSignPredicateType, testSubject, in()), verify.CosignSignPredicateType)
		pol := keylessPolicy(testSubject)
		pol.Cosign.Authorities[0].Keyless.InsecureIgnoreSCT = false
		// The virtual Fulcio embeds no SCT in its certificates.
		if _, err := v.Verify(ctx, e.host+"/keyless/sct:v1", pol); !errors.Is(err, verify.ErrUntrustedRoot) {
			t.Fatalf("%v, want ErrUntrustedRoot", err)
		}
	})
	t.Run("regular expression", func(t *testing.T) {
		t.Parallel()
		r := e.repo(t, "keyless/regexp")
		img, _ := pushImage(t, r, "v1", "a")
		attachBundle(t, r, img, s.keylessBundle(t, img.Digest, verify.CosignSignPredicateType, testSubject, in()), verify.CosignSignPredicateType)
		pol := keylessPolicy("ignored")
		pol.Cosign.Authorities[0].Keyless.Identities[0].SubjectRegExp = `^release@example\.com$`
		if _, err := v.Verify(ctx, e.host+"/keyless/regexp:v1", pol); err != nil {
			t.Fatal(err)
		}
		pol.Cosign.Authorities[0].Keyless.Identities[0].SubjectRegExp = `^other@example\.com$`
		if _, err := v.Verify(ctx, e.host+"/keyless/regexp:v1", pol); !errors.Is(err, verify.ErrIdentityMismatch) {
			t.Fatalf("%v, want ErrIdentityMismatch", err)
		}
	})
}
