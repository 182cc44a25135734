package verify_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
	"github.com/xpkgkit/xpkgkit/xpkg/verify"
)

// TestLegacyKeyed: a legacy ".sig" signature made with a key verifies; one
// copied onto a re-tagged image fails with ErrSubjectMismatch.
func TestLegacyKeyed(t *testing.T) {
	t.Parallel()
	e := newInProcess(t, true)
	k := newKey(t)
	v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
	r := e.repo(t, "legacy")
	img, _ := pushImage(t, r, "v1", "a")
	sig := keyedLegacy(t, k, simpleSigning(e.host+"/legacy", img.Digest))
	attachLegacy(t, r, img.Digest, sig)
	res, err := v.Verify(context.Background(), e.host+"/legacy:v1", keyPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if res.Signatures[0].Format != "legacy" || !strings.HasSuffix(res.Signatures[0].Source, ".sig layer 0") {
		t.Errorf("signature %+v", res.Signatures[0])
	}
	// The tag moves to another image, and the signature is copied to it.
	other, _ := pushImage(t, r, "v1", "b")
	attachLegacy(t, r, other.Digest, sig)
	_, err = v.Verify(context.Background(), e.host+"/legacy:v1", keyPolicy())
	if !errors.Is(err, verify.ErrSubjectMismatch) {
		t.Fatalf("%v, want ErrSubjectMismatch", err)
	}
	// A digest reference still verifies the signed image.
	if _, err := v.Verify(context.Background(), e.host+"/legacy@"+img.Digest.String(), keyPolicy()); err != nil {
		t.Fatal(err)
	}
}

// TestHostileReferrers: a referrer whose bundle is huge, or whose blob the
// registry serves without end, fails within the limits.
func TestHostileReferrers(t *testing.T) {
	t.Parallel()
	endless := digest.FromString("endless")
	var served atomic.Int64
	reg := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/blobs/"+endless.String()) {
			buf := make([]byte, 32<<10)
			for i := 0; i < 32<<10 && r.Context().Err() == nil; i++ { // at most 1 GiB
				n, err := w.Write(buf)
				served.Add(int64(n))
				if err != nil {
					return
				}
			}
			return
		}
		reg.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e := newEnv(t, strings.TrimPrefix(srv.URL, "http://"))
	k := newKey(t)
	v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
	r := e.repo(t, "hostile")
	img, _ := pushImage(t, r, "v1", "a")
	empty := pushBlob(t, r, ocispec.MediaTypeEmptyJSON, []byte(`{}`))
	for _, layer := range []ocispec.Descriptor{
		{MediaType: verify.BundleArtifactType, Digest: digest.FromString("huge"), Size: 1 << 40},
		{MediaType: verify.BundleArtifactType, Digest: endless, Size: 4096},
	} {
		m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: verify.BundleArtifactType, Config: empty,
			Layers: []ocispec.Descriptor{layer}, Subject: &img}
		m.SchemaVersion = 2
		pushManifest(t, r, m, "")
	}
	_, err := v.Verify(context.Background(), e.host+"/hostile:v1", keyPolicy())
	if !errors.Is(err, limit.ErrExceeded) || !errors.Is(err, oci.ErrSizeMismatch) {
		t.Fatalf("%v, want a limit and a size mismatch", err)
	}
	if served.Load() > 64<<20 {
		t.Errorf("the endless blob was read for %d bytes", served.Load())
	}
}

// TestLegacyAttestations: attestations in the legacy ".att" manifest
// (cosign v2 attest) satisfy an authority's attestations, keyed and
// keyless; one about another digest does not.
func TestLegacyAttestations(t *testing.T) {
	t.Parallel()
	const slsa = "https://slsa.dev/provenance/v1"
	e := newInProcess(t, true)
	k := newKey(t)
	s := newSigstore(t)
	v := keylessVerifier(t, e, s, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
	ctx := context.Background()
	r := e.repo(t, "att-legacy")
	img, _ := pushImage(t, r, "v1", "a")
	attachAttestations(t, r, img.Digest, keyedAttestation(t, k, img.Digest, slsa), s.keylessAttestation(t, img.Digest, slsa, testSubject))
	if _, err := v.Verify(ctx, e.host+"/att-legacy:v1", keyPolicy(slsa)); err != nil {
		t.Fatalf("keyed: %v", err)
	}
	pol := keylessPolicy(testSubject)
	pol.Cosign.Authorities[0].Attestations = []imageconfig.Attestation{{Name: "provenance", PredicateType: slsa}}
	res, err := v.Verify(ctx, e.host+"/att-legacy:v1", pol)
	if err != nil {
		t.Fatalf("keyless: %v", err)
	}
	if res.Signatures[0].PredicateType != slsa || res.Signatures[0].Subject != testSubject {
		t.Errorf("verified %+v", res.Signatures)
	}
	// Attestations about another image.
	other, _ := pushImage(t, r, "v2", "b")
	attachAttestations(t, r, other.Digest, keyedAttestation(t, k, img.Digest, slsa))
	if _, err := v.Verify(ctx, e.host+"/att-legacy:v2", keyPolicy(slsa)); !errors.Is(err, verify.ErrSubjectMismatch) || !errors.Is(err, verify.ErrMissingAttestation) {
		t.Fatalf("%v, want ErrSubjectMismatch and ErrMissingAttestation", err)
	}
}

// TestLegacyPayloadType: a legacy signature by the authority's key over a
// simple-signing payload of another type than cosign's (an "atomic
// container signature" naming the same digest) is not a cosign signature:
// ErrMalformedSignature, as sigstore's payload package (cosign's) rejects it.
func TestLegacyPayloadType(t *testing.T) {
	t.Parallel()
	e := newInProcess(t, true)
	k := newKey(t)
	v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
	r := e.repo(t, "legacy/type")
	img, _ := pushImage(t, r, "v1", "a")
	other := strings.Replace(string(simpleSigning("x", img.Digest)), "cosign container image signature", "atomic container signature", 1)
	attachLegacy(t, r, img.Digest, keyedLegacy(t, k, []byte(other)))
	_, err := v.Verify(context.Background(), e.host+"/legacy/type:v1", keyPolicy())
	if !errors.Is(err, verify.ErrNoMatchingAuthority) || !errors.Is(err, verify.ErrMalformedSignature) {
		t.Fatalf("%v, want ErrNoMatchingAuthority and ErrMalformedSignature", err)
	}
}

// TestKeyFunc: a key authority's key.secretRef is looked up with the
// KeyFunc when no key was given (once per Verifier: the key is kept); a
// KeyFunc that fails, or returns what is not a PEM public key, is
// ErrPolicy, before any request.
func TestKeyFunc(t *testing.T) {
	t.Parallel()
	e := newInProcess(t, true)
	k := newKey(t)
	r := e.repo(t, "keyfunc")
	img, _ := pushImage(t, r, "v1", "a")
	attachLegacy(t, r, img.Digest, keyedLegacy(t, k, simpleSigning("x", img.Digest)))
	var calls atomic.Int32
	v := newVerifier(t, e, verify.WithKeyFunc(func(_ context.Context, secret, key string) ([]byte, error) {
		calls.Add(1)
		if secret != "cosign" || key != "cosign.pub" {
			return nil, fmt.Errorf("no secret %s key %s", secret, key)
		}
		return k.pem, nil
	}))
	for range 2 {
		if _, err := v.Verify(context.Background(), e.host+"/keyfunc:v1", keyPolicy()); err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("KeyFunc called %d times, want once", n)
	}
	for name, fn := range map[string]verify.KeyFunc{
		"fails":      func(context.Context, string, string) ([]byte, error) { return nil, errors.New("no such secret") },
		"not a key":  func(context.Context, string, string) ([]byte, error) { return []byte("-----BEGIN NOTHING-----"), nil },
		"empty data": func(context.Context, string, string) ([]byte, error) { return nil, nil },
	} {
		v := newVerifier(t, e, verify.WithKeyFunc(fn))
		e.count.take()
		if _, err := v.Verify(context.Background(), e.host+"/keyfunc:v1", keyPolicy()); !errors.Is(err, verify.ErrPolicy) {
			t.Errorf("%s: %v, want ErrPolicy", name, err)
		}
		if n := len(e.count.take()); n != 0 {
			t.Errorf("%s: %d requests", name, n)
		}
	}
}
