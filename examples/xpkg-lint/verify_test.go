package main_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// TestVerifyCLI: xpkg-lint --verify lints a package signed with a key (a
// cosign v3 bundle referrer in Debian's docker-registry), and refuses
// (exit 2) one whose tag moved to an unsigned image, and one no ImageConfig
// states a verification for.
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
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	attachKeyedBundle(t, repo, desc, k)
	dir := t.TempDir()
	pub, _ := cryptoutils.MarshalPublicKeyToPEM(k.Public())
	keyFile := filepath.Join(dir, "cosign.pub")
	icFile := filepath.Join(dir, "imageconfig.yaml")
	writeFile(t, keyFile, string(pub))
	writeFile(t, icFile, fmt.Sprintf(`apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata:
  name: signed
spec:
  matchImages:
  - prefix: %s/crossplane-contrib/provider-signed
  verification:
    provider: Cosign
    cosign:
      authorities:
      - name: release-key
        key:
          secretRef: {name: cosign, key: cosign.pub}
          hashAlgorithm: sha256
`, reg.Host))
	run := func(ref string) (int, string) {
		cmd := exec.CommandContext(t.Context(), bin, "--image-config", icFile, "--verify", "--verify-key", "cosign/cosign.pub="+keyFile,
			"--cache-dir", t.TempDir(), "--crossplane-version", "v2.0.0", ref)
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
	pushImage(t, name, "v1", xpkgtest.NewProvider("provider-unsigned").MustImage(t))
	if code, out := run(name + ":v1"); code != 2 || !strings.Contains(out, "no signature") {
		t.Errorf("re-tagged package: exit %d, want 2 and \"no signature\"\n%s", code, out)
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

// attachKeyedBundle signs subject as cosign v3 does (a DSSE in-toto
// statement of predicate type https://sigstore.dev/cosign/sign/v1, in a
// bundle) with k, and attaches it as a referrer.
func attachKeyedBundle(t *testing.T, repo *remote.Repository, subject ocispec.Descriptor, k *ecdsa.PrivateKey) {
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
	sig, _ := base64Decode(env.Signatures[0].Sig)
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

func base64Decode(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }
