package verify_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	sigdsse "github.com/sigstore/sigstore/pkg/signature/dsse"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

const (
	testIssuer  = "https://issuer.example.com"
	testSubject = "release@example.com"
	// simpleSigningMediaType is the media type of a legacy signature's
	// payload layer (cosign's simple signing).
	simpleSigningMediaType = "application/vnd.dev.cosign.simplesigning.v1+json"
)

// env is a registry with a client whose requests are counted.
type env struct {
	host   string
	client *remote.Client
	count  *counting
}

// counting is an http.RoundTripper that records every request.
type counting struct {
	next http.RoundTripper
	mu   sync.Mutex
	reqs []string // "METHOD path"
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, r.Method+" "+r.URL.Path)
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

func (c *counting) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.reqs
	c.reqs = nil
	return r
}

// newInProcess starts go-containerregistry's registry, with the referrers
// API when referrers is true.
func newInProcess(t *testing.T, referrers bool) *env {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.WithReferrersSupport(referrers), registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	return newEnv(t, strings.TrimPrefix(srv.URL, "http://"))
}

func newEnv(t *testing.T, host string) *env {
	t.Helper()
	cnt := &counting{next: http.DefaultTransport}
	c, err := remote.New(remote.WithAnonymous(), remote.WithPlainHTTP(true), remote.WithHTTPClient(&http.Client{Transport: cnt}))
	if err != nil {
		t.Fatal(err)
	}
	return &env{host: host, client: c, count: cnt}
}

func (e *env) repo(t *testing.T, name string) *remote.Repository {
	t.Helper()
	r, err := e.client.Repository(e.host + "/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// pushBlob uploads b and returns its descriptor.
func pushBlob(t *testing.T, r *remote.Repository, mediaType string, b []byte) ocispec.Descriptor {
	t.Helper()
	d := ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(b), Size: int64(len(b))}
	if err := r.Push(context.Background(), d, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	return d
}

// pushManifest uploads m (and tags it when tag is not empty).
func pushManifest(t *testing.T, r *remote.Repository, m any, tag string) ocispec.Descriptor {
	t.Helper()
	return pushJSON(t, r, ocispec.MediaTypeImageManifest, m, tag)
}

// pushJSON uploads m, encoded as JSON, as a manifest of mediaType (and
// tags it when tag is not empty).
func pushJSON(t *testing.T, r *remote.Repository, mediaType string, m any, tag string) ocispec.Descriptor {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	d := ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(b), Size: int64(len(b))}
	if err := r.Push(context.Background(), d, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	if tag != "" {
		if err := r.Tag(context.Background(), d, tag); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// pushImage uploads a one-layer image with layer content and tags it.
func pushImage(t *testing.T, r *remote.Repository, tag, content string) (ocispec.Descriptor, ocispec.Manifest) {
	t.Helper()
	cfg := pushBlob(t, r, ocispec.MediaTypeImageConfig, []byte(`{}`))
	layer := pushBlob(t, r, ocispec.MediaTypeImageLayer, []byte(content))
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, Config: cfg, Layers: []ocispec.Descriptor{layer}}
	m.SchemaVersion = 2
	return pushManifest(t, r, m, tag), m
}

// statement is an in-toto statement about subject.
func statement(subject digest.Digest, predicateType string) []byte {
	b, _ := json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"digest": map[string]string{subject.Algorithm().String(): subject.Encoded()}}},
		"predicateType": predicateType,
		"predicate":     map[string]any{},
	})
	return b
}

// keyPair is a signing key generated in the test.
type keyPair struct {
	signer signature.SignerVerifier
	pub    crypto.PublicKey
	pem    []byte
}

func newKey(t *testing.T) *keyPair {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := signature.LoadECDSASignerVerifier(k, crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cryptoutils.MarshalPublicKeyToPEM(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	return &keyPair{signer: sv, pub: k.Public(), pem: p}
}

// dsseSign signs an in-toto statement into a DSSE envelope.
func dsseSign(t *testing.T, sv signature.SignerVerifier, pub crypto.PublicKey, payload []byte) *dsse.Envelope {
	t.Helper()
	s, err := dsse.NewEnvelopeSigner(&sigdsse.SignerAdapter{SignatureSigner: sv, Pub: pub})
	if err != nil {
		t.Fatal(err)
	}
	env, err := s.SignPayload(context.Background(), "application/vnd.in-toto+json", payload)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func protoEnvelope(t *testing.T, env *dsse.Envelope) *protobundle.Bundle_DsseEnvelope {
	t.Helper()
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		t.Fatal(err)
	}
	pe := &protodsse.Envelope{Payload: payload, PayloadType: env.PayloadType}
	for _, s := range env.Signatures {
		sig, err := base64.StdEncoding.DecodeString(s.Sig)
		if err != nil {
			t.Fatal(err)
		}
		pe.Signatures = append(pe.Signatures, &protodsse.Signature{Sig: sig, Keyid: s.KeyID})
	}
	return &protobundle.Bundle_DsseEnvelope{DsseEnvelope: pe}
}

// keyedBundle is a cosign v3 bundle: a DSSE statement about subject
// signed with k, no log entry (cosign --tlog-upload=false).
func keyedBundle(t *testing.T, k *keyPair, subject digest.Digest, predicateType string) []byte {
	t.Helper()
	env := dsseSign(t, k.signer, k.pub, statement(subject, predicateType))
	b := &protobundle.Bundle{
		MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{Hint: "test"}},
		},
		Content: protoEnvelope(t, env),
	}
	out, err := protojson.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sigstore is a virtual Sigstore (Fulcio, Rekor, TSA) whose trusted root
// the tests write as JSON.
type sigstore struct {
	vs       *ca.VirtualSigstore
	rootJSON []byte
}

func newSigstore(t *testing.T) *sigstore {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, vs.FulcioCertificateAuthorities(), rawIDs(t, vs.CTLogs()), vs.TimestampingAuthorities(), rawIDs(t, vs.RekorLogs()))
	if err != nil {
		t.Fatal(err)
	}
	j, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return &sigstore{vs: vs, rootJSON: j}
}

// keylessBundle is a cosign v3 keyless bundle: a DSSE statement about
// subject signed with a Fulcio certificate for identity, logged in Rekor
// at signedAt, timestamped.
func (s *sigstore) keylessBundle(t *testing.T, subject digest.Digest, predicateType, identity string, signedAt time.Time) []byte {
	t.Helper()
	te, err := s.vs.AttestAtTime(identity, testIssuer, statement(subject, predicateType), signedAt, true)
	if err != nil {
		t.Fatal(err)
	}
	vc, _ := te.VerificationContent()
	sc, _ := te.SignatureContent()
	entries, _ := te.TlogEntries()
	tss, _ := te.Timestamps()
	var tles []*protorekor.TransparencyLogEntry
	for _, e := range entries {
		tle := e.TransparencyLogEntry()
		tle.KindVersion = &protorekor.KindVersion{Kind: "dsse", Version: "0.0.1"}
		tles = append(tles, tle)
	}
	var rfc []*protocommon.RFC3161SignedTimestamp
	for _, ts := range tss {
		rfc = append(rfc, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: ts})
	}
	b := &protobundle.Bundle{
		MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content:                   &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw}},
			TlogEntries:               tles,
			TimestampVerificationData: &protobundle.TimestampVerificationData{Rfc3161Timestamps: rfc},
		},
		Content: protoEnvelope(t, sc.EnvelopeContent().RawEnvelope()),
	}
	out, err := protojson.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// attachBundle pushes bundle as a referrer of subject, as cosign v3 does:
// oras-go maintains the referrers tag schema index for a registry without
// the referrers API.
func attachBundle(t *testing.T, r *remote.Repository, subject ocispec.Descriptor, bundle []byte, predicateType string) ocispec.Descriptor {
	t.Helper()
	empty := pushBlob(t, r, ocispec.MediaTypeEmptyJSON, []byte(`{}`))
	layer := pushBlob(t, r, "application/vnd.dev.sigstore.bundle.v0.3+json", bundle)
	m := ocispec.Manifest{
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		Config:       empty,
		Layers:       []ocispec.Descriptor{layer},
		Subject:      &ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size},
		Annotations: map[string]string{
			"dev.sigstore.bundle.content":       "dsse-envelope",
			"dev.sigstore.bundle.predicateType": predicateType,
		},
	}
	m.SchemaVersion = 2
	return pushManifest(t, r, m, "")
}

// simpleSigning is the payload of a legacy signature of d.
func simpleSigning(ref string, d digest.Digest) []byte {
	return fmt.Appendf(nil, `{"critical":{"identity":{"docker-reference":%q},"image":{"docker-manifest-digest":%q},"type":"cosign container image signature"},"optional":null}`, ref, d)
}

// legacyLayer is one signature of the legacy format: the payload and the
// annotations of its layer.
type legacyLayer struct {
	payload     []byte
	annotations map[string]string
}

func keyedLegacy(t *testing.T, k *keyPair, payload []byte) legacyLayer {
	t.Helper()
	sig, err := k.signer.SignMessage(bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	return legacyLayer{payload: payload, annotations: map[string]string{"dev.cosignproject.cosign/signature": base64.StdEncoding.EncodeToString(sig)}}
}

func (s *sigstore) keylessLegacy(t *testing.T, payload []byte, identity string) legacyLayer {
	t.Helper()
	te, err := s.vs.Sign(identity, testIssuer, payload)
	if err != nil {
		t.Fatal(err)
	}
	vc, _ := te.VerificationContent()
	sc, _ := te.SignatureContent()
	entries, _ := te.TlogEntries()
	tss, _ := te.Timestamps()
	certPEM, err := cryptoutils.MarshalCertificateToPEM(vc.Certificate())
	if err != nil {
		t.Fatal(err)
	}
	tle := entries[0].TransparencyLogEntry()
	// The SET of the Rekor bundle: VirtualSigstore signs the same payload
	// cosign's bundle annotation carries.
	rb := map[string]any{
		"Payload": map[string]any{
			"body":           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
			"integratedTime": tle.IntegratedTime,
			"logIndex":       tle.LogIndex,
			"logID":          hex.EncodeToString(tle.LogId.KeyId),
		},
	}
	set, err := s.vs.RekorSignPayload(rekorPayload(tle))
	if err != nil {
		t.Fatal(err)
	}
	rb["SignedEntryTimestamp"] = set
	rbJSON, _ := json.Marshal(rb)
	tsJSON, _ := json.Marshal(map[string][]byte{"SignedRFC3161Timestamp": tss[0]})
	return legacyLayer{payload: payload, annotations: map[string]string{
		"dev.cosignproject.cosign/signature":   base64.StdEncoding.EncodeToString(sc.Signature()),
		"dev.sigstore.cosign/certificate":      string(certPEM),
		"dev.sigstore.cosign/bundle":           string(rbJSON),
		"dev.sigstore.cosign/rfc3161timestamp": string(tsJSON),
	}}
}

// attachLegacy pushes the legacy signature manifest of subject, tagged
// "sha256-<hex>.sig", with one layer per signature.
func attachLegacy(t *testing.T, r *remote.Repository, subject digest.Digest, sigs ...legacyLayer) ocispec.Descriptor {
	t.Helper()
	cfg := pushBlob(t, r, ocispec.MediaTypeImageConfig, []byte(`{"architecture":"","os":"","config":{},"rootfs":{"type":"layers","diff_ids":[]}}`))
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, Config: cfg}
	m.SchemaVersion = 2
	for _, s := range sigs {
		d := pushBlob(t, r, simpleSigningMediaType, s.payload)
		d.Annotations = s.annotations
		m.Layers = append(m.Layers, d)
	}
	return pushManifest(t, r, m, strings.Replace(subject.String(), ":", "-", 1)+".sig")
}

// keyPolicy is an ImageConfig verification with one key authority.
func keyPolicy(attestations ...string) *imageconfig.Verification {
	a := imageconfig.CosignAuthority{Name: "key", Key: &imageconfig.KeyRef{SecretRef: imageconfig.SecretKeySelector{Name: "cosign", Key: "cosign.pub"}, HashAlgorithm: "sha256"}}
	for _, p := range attestations {
		a.Attestations = append(a.Attestations, imageconfig.Attestation{Name: p, PredicateType: p})
	}
	return &imageconfig.Verification{Provider: "Cosign", Cosign: &imageconfig.Cosign{Authorities: []imageconfig.CosignAuthority{a}}}
}

// keylessPolicy is an ImageConfig verification with one keyless authority.
func keylessPolicy(subject string) *imageconfig.Verification {
	return &imageconfig.Verification{Provider: "Cosign", Cosign: &imageconfig.Cosign{Authorities: []imageconfig.CosignAuthority{{
		Name:    "keyless",
		Keyless: &imageconfig.Keyless{Identities: []imageconfig.Identity{{Issuer: testIssuer, Subject: subject}}, InsecureIgnoreSCT: true},
	}}}}
}

// rekorPayload is what a Rekor SET signs for tle.
func rekorPayload(tle *protorekor.TransparencyLogEntry) tlog.RekorPayload {
	return tlog.RekorPayload{
		Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		IntegratedTime: tle.IntegratedTime,
		LogIndex:       tle.LogIndex,
		LogID:          hex.EncodeToString(tle.LogId.KeyId),
	}
}

// rawIDs gives the logs of a VirtualSigstore their raw key IDs: it sets
// them to the hex text, which a trusted root's JSON would encode again.
func rawIDs(t *testing.T, logs map[string]*root.TransparencyLog) map[string]*root.TransparencyLog {
	t.Helper()
	out := map[string]*root.TransparencyLog{}
	for k, l := range logs {
		id, err := hex.DecodeString(k)
		if err != nil {
			t.Fatal(err)
		}
		c := *l
		c.ID = id
		out[k] = &c
	}
	return out
}

// attestation is one layer of a legacy ".att" manifest: a DSSE envelope
// and its annotations.
type attestation struct {
	envelope    []byte
	annotations map[string]string
}

func keyedAttestation(t *testing.T, k *keyPair, subject digest.Digest, predicateType string) attestation {
	t.Helper()
	env, err := json.Marshal(dsseSign(t, k.signer, k.pub, statement(subject, predicateType)))
	if err != nil {
		t.Fatal(err)
	}
	return attestation{envelope: env, annotations: map[string]string{"predicateType": predicateType}}
}

func (s *sigstore) keylessAttestation(t *testing.T, subject digest.Digest, predicateType, identity string) attestation {
	t.Helper()
	te, err := s.vs.AttestAtTime(identity, testIssuer, statement(subject, predicateType), time.Now().Add(5*time.Minute), false)
	if err != nil {
		t.Fatal(err)
	}
	vc, _ := te.VerificationContent()
	sc, _ := te.SignatureContent()
	entries, _ := te.TlogEntries()
	tss, _ := te.Timestamps()
	env, err := json.Marshal(sc.EnvelopeContent().RawEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	certPEM, err := cryptoutils.MarshalCertificateToPEM(vc.Certificate())
	if err != nil {
		t.Fatal(err)
	}
	tle := entries[0].TransparencyLogEntry()
	set, err := s.vs.RekorSignPayload(rekorPayload(tle))
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := json.Marshal(map[string]any{"SignedEntryTimestamp": set, "Payload": map[string]any{
		"body": base64.StdEncoding.EncodeToString(tle.CanonicalizedBody), "integratedTime": tle.IntegratedTime,
		"logIndex": tle.LogIndex, "logID": hex.EncodeToString(tle.LogId.KeyId)}})
	ts, _ := json.Marshal(map[string][]byte{"SignedRFC3161Timestamp": tss[0]})
	return attestation{envelope: env, annotations: map[string]string{
		"predicateType":                        predicateType,
		"dev.sigstore.cosign/certificate":      string(certPEM),
		"dev.sigstore.cosign/bundle":           string(rb),
		"dev.sigstore.cosign/rfc3161timestamp": string(ts),
	}}
}

// attachAttestations pushes the legacy attestation manifest of subject,
// tagged "sha256-<hex>.att".
func attachAttestations(t *testing.T, r *remote.Repository, subject digest.Digest, atts ...attestation) {
	t.Helper()
	cfg := pushBlob(t, r, ocispec.MediaTypeImageConfig, []byte(`{"architecture":"","os":"","config":{},"rootfs":{"type":"layers","diff_ids":[]}}`))
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, Config: cfg}
	m.SchemaVersion = 2
	for _, a := range atts {
		d := pushBlob(t, r, "application/vnd.dsse.envelope.v1+json", a.envelope)
		d.Annotations = a.annotations
		m.Layers = append(m.Layers, d)
	}
	pushManifest(t, r, m, strings.Replace(subject.String(), ":", "-", 1)+".att")
}
