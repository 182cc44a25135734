package verify_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
	"github.com/xpkgkit/xpkgkit/xpkg/verify"
)

func newVerifier(t *testing.T, e *env, opts ...verify.Option) *verify.Verifier {
	t.Helper()
	v, err := verify.New(append([]verify.Option{verify.WithClient(e.client)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestKeyedBundle: a cosign v3 bundle signed with a key verifies, and the
// verification reads the referrers listing, the referrer's manifest and
// its bundle blob, and looks up the legacy tag: nothing else, no layer or
// config of the package.
func TestKeyedBundle(t *testing.T) {
	t.Parallel()
	for _, referrersAPI := range []bool{true, false} {
		e := newInProcess(t, referrersAPI)
		r := e.repo(t, "crossplane/provider-nop")
		img, m := pushImage(t, r, "v1", "layer")
		k := newKey(t)
		ref := attachBundle(t, r, img, keyedBundle(t, k, img.Digest, verify.CosignSignPredicateType), verify.CosignSignPredicateType)
		v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
		e.count.take()
		res, err := v.Verify(context.Background(), e.host+"/crossplane/provider-nop:v1", keyPolicy())
		if err != nil {
			t.Fatalf("referrers API %v: %v", referrersAPI, err)
		}
		if res.Descriptor.Digest != img.Digest || res.Authority != "key" || len(res.Signatures) != 1 || res.Signatures[0].Format != "bundle" {
			t.Errorf("result %+v", res)
		}
		if want := e.host + "/crossplane/provider-nop@" + img.Digest.String(); res.PinnedReference() != want {
			t.Errorf("pinned %s, want %s", res.PinnedReference(), want)
		}
		reqs := e.count.take()
		for _, rq := range reqs {
			for _, never := range []digest.Digest{m.Config.Digest, m.Layers[0].Digest} {
				if strings.Contains(rq, never.Encoded()) {
					t.Errorf("fetched %s, a blob of the package", rq)
				}
			}
		}
		if !slices.ContainsFunc(reqs, func(s string) bool { return strings.HasSuffix(s, "/manifests/"+ref.Digest.String()) }) {
			t.Errorf("the referrer's manifest was not read: %q", reqs)
		}
		if len(reqs) > 8 {
			t.Errorf("%d requests: %q", len(reqs), reqs)
		}
	}
}

// TestKeyedTamper: every tamper case fails with its class.
func TestKeyedTamper(t *testing.T) {
	t.Parallel()
	e := newInProcess(t, true)
	k, other := newKey(t), newKey(t)
	v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
	ctx := context.Background()

	cases := []struct {
		name  string
		setup func(t *testing.T, repo string) string // returns the reference to verify
		want  []error
	}{
		{"unsigned", func(t *testing.T, repo string) string {
			r := e.repo(t, repo)
			pushImage(t, r, "v1", "unsigned")
			return e.host + "/" + repo + ":v1"
		}, []error{verify.ErrNoSignature}},
		{"re-tagged image", func(t *testing.T, repo string) string {
			r := e.repo(t, repo)
			signed, _ := pushImage(t, r, "v1", "signed")
			attachBundle(t, r, signed, keyedBundle(t, k, signed.Digest, verify.CosignSignPredicateType), verify.CosignSignPredicateType)
			pushImage(t, r, "v1", "other content, tag moved")
			return e.host + "/" + repo + ":v1"
		}, []error{verify.ErrNoSignature}},
		{"signature for another digest", func(t *testing.T, repo string) string {
			r := e.repo(t, repo)
			img, _ := pushImage(t, r, "v1", "a")
			attachBundle(t, r, img, keyedBundle(t, k, digest.FromString("another image"), verify.CosignSignPredicateType), verify.CosignSignPredicateType)
			return e.host + "/" + repo + ":v1"
		}, []error{verify.ErrNoMatchingAuthority, verify.ErrSubjectMismatch}},
		{"swapped layer", func(t *testing.T, repo string) string {
			r := e.repo(t, repo)
			img, _ := pushImage(t, r, "v0", "original layer")
			bundle := keyedBundle(t, k, img.Digest, verify.CosignSignPredicateType)
			swapped, _ := pushImage(t, r, "v1", "swapped layer")
			attachBundle(t, r, swapped, bundle, verify.CosignSignPredicateType)
			return e.host + "/" + repo + ":v1"
		}, []error{verify.ErrNoMatchingAuthority, verify.ErrSubjectMismatch}},
		{"other key", func(t *testing.T, repo string) string {
			r := e.repo(t, repo)
			img, _ := pushImage(t, r, "v1", "a")
			attachBundle(t, r, img, keyedBundle(t, other, img.Digest, verify.CosignSignPredicateType), verify.CosignSignPredicateType)
			return e.host + "/" + repo + ":v1"
		}, []error{verify.ErrNoMatchingAuthority, verify.ErrInvalidSignature}},
		{"digest reference the registry does not hold", func(t *testing.T, repo string) string {
			r := e.repo(t, repo)
			pushImage(t, r, "v1", "a")
			return e.host + "/" + repo + "@" + digest.FromString("nothing").String()
		}, nil},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ref := tc.setup(t, "tamper/c"+string(rune('a'+i)))
			res, err := v.Verify(ctx, ref, keyPolicy())
			if err == nil {
				t.Fatalf("verified: %+v", res)
			}
			var ve *verify.Error
			if !errors.As(err, &ve) {
				t.Fatalf("%T %v, want *verify.Error", err, err)
			}
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("error %v does not match %v", err, w)
				}
			}
		})
	}
}

// TestAttestationRequired: an authority with attestations needs a verified
// attestation of each predicate type.
func TestAttestationRequired(t *testing.T) {
	t.Parallel()
	e := newInProcess(t, true)
	k := newKey(t)
	v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
	r := e.repo(t, "att")
	img, _ := pushImage(t, r, "v1", "a")
	attachBundle(t, r, img, keyedBundle(t, k, img.Digest, verify.CosignSignPredicateType), verify.CosignSignPredicateType)
	const slsa = "https://slsa.dev/provenance/v1"
	_, err := v.Verify(context.Background(), e.host+"/att:v1", keyPolicy(slsa))
	if !errors.Is(err, verify.ErrMissingAttestation) {
		t.Fatalf("without the attestation: %v, want ErrMissingAttestation", err)
	}
	attachBundle(t, r, img, keyedBundle(t, k, img.Digest, slsa), slsa)
	res, err := v.Verify(context.Background(), e.host+"/att:v1", keyPolicy(slsa))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Signatures, func(s verify.Signature) bool { return s.PredicateType == slsa }) {
		t.Errorf("signatures %+v lack the attestation", res.Signatures)
	}
}

// TestPolicyErrors: a policy that cannot be applied fails before any
// request.
func TestPolicyErrors(t *testing.T) {
	t.Parallel()
	e := newInProcess(t, true)
	v := newVerifier(t, e)
	for name, pol := range map[string]*imageconfig.Verification{
		"nil":             nil,
		"missing key":     keyPolicy(),
		"no trusted root": keylessPolicy(testSubject),
		"no authorities":  {Provider: "Cosign", Cosign: &imageconfig.Cosign{}},
	} {
		_, err := v.Verify(context.Background(), e.host+"/x:v1", pol)
		if !errors.Is(err, verify.ErrPolicy) {
			t.Errorf("%s: %v, want ErrPolicy", name, err)
		}
	}
	if n := len(e.count.take()); n != 0 {
		t.Errorf("%d requests for invalid policies", n)
	}
}

var _ = time.Now

// TestOtherReferrers: referrers of other artifact types (SBOMs) are
// listed, not fetched; more candidate signatures than MaxSignatures fail
// with limit.ErrExceeded.
func TestOtherReferrers(t *testing.T) {
	t.Parallel()
	e := newInProcess(t, true)
	k := newKey(t)
	r := e.repo(t, "sboms")
	img, _ := pushImage(t, r, "v1", "a")
	cfg := pushBlob(t, r, "application/spdx+json", []byte(`{"spdxVersion":"SPDX-2.3"}`))
	var sboms []digest.Digest
	for i := range 80 {
		m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: "application/spdx+json", Config: cfg,
			Layers: []ocispec.Descriptor{pushBlob(t, r, "application/spdx+json", fmt.Appendf(nil, `{"n":%d}`, i))}, Subject: &img}
		m.SchemaVersion = 2
		sboms = append(sboms, pushManifest(t, r, m, "").Digest)
	}
	for range 3 {
		attachBundle(t, r, img, keyedBundle(t, k, img.Digest, verify.CosignSignPredicateType), verify.CosignSignPredicateType)
	}
	v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
	e.count.take()
	if _, err := v.Verify(context.Background(), e.host+"/sboms:v1", keyPolicy()); err != nil {
		t.Fatal(err)
	}
	for _, rq := range e.count.take() {
		for _, d := range sboms {
			if strings.Contains(rq, d.Encoded()) {
				t.Fatalf("fetched an SBOM referrer: %s", rq)
			}
		}
	}
	small := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem), verify.WithLimits(verify.Limits{MaxSignatures: 2}))
	if _, err := small.Verify(context.Background(), e.host+"/sboms:v1", keyPolicy()); !errors.Is(err, limit.ErrExceeded) {
		t.Fatalf("%v, want limit.ErrExceeded", err)
	}
}
