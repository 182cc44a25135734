// Package signtest signs test images as cosign v3 does, for the tests of
// programs that verify signatures. Only tests import it: it links the
// sigstore libraries.
package signtest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	sigdsse "github.com/sigstore/sigstore/pkg/signature/dsse"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// NewKey returns a new ECDSA P-256 key and its public key as PEM.
func NewKey(t testing.TB) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := cryptoutils.MarshalPublicKeyToPEM(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	return k, pub
}

// AttachKeyedBundle signs subject as cosign v3 does (a DSSE in-toto
// statement of predicate type https://sigstore.dev/cosign/sign/v1, in a
// bundle) with k, and attaches it as a referrer.
func AttachKeyedBundle(t testing.TB, repo *remote.Repository, subject ocispec.Descriptor, k *ecdsa.PrivateKey) {
	t.Helper()
	ctx := context.Background()
	sv, err := signature.LoadECDSASignerVerifier(k, crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	stmt, _ := json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"digest": map[string]string{"sha256": subject.Digest.Encoded()}}},
		"predicateType": "https://sigstore.dev/cosign/sign/v1",
		"predicate":     map[string]any{},
	})
	signer, err := dsse.NewEnvelopeSigner(&sigdsse.SignerAdapter{SignatureSigner: sv, Pub: k.Public()})
	if err != nil {
		t.Fatal(err)
	}
	env, err := signer.SignPayload(ctx, "application/vnd.in-toto+json", stmt)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	b, err := protojson.Marshal(&protobundle.Bundle{
		MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{Hint: "release"}},
		},
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{Payload: stmt, PayloadType: env.PayloadType,
			Signatures: []*protodsse.Signature{{Sig: sig}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	push := func(mediaType string, data []byte) ocispec.Descriptor {
		d := ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(data), Size: int64(len(data))}
		if err := repo.Push(ctx, d, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		Config:  push(ocispec.MediaTypeEmptyJSON, []byte(`{}`)),
		Layers:  []ocispec.Descriptor{push("application/vnd.dev.sigstore.bundle.v0.3+json", b)},
		Subject: &ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size}}
	m.SchemaVersion = 2
	mb, _ := json.Marshal(m)
	push(ocispec.MediaTypeImageManifest, mb)
}
