package verify_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
	"github.com/xpkgkit/xpkgkit/xpkg/verify"
)

// Verify packages as a set of ImageConfigs says, outside a cluster: one
// ImageConfig rewrites xpkg.crossplane.io/ to a mirror (here a registry on
// a loopback port), another states that packages of the mirror must be
// signed with the release key. The package is verified at the rewritten
// reference, and read afterwards only at Result.PinnedReference: the
// digest verified, whatever the tag says by then. A package without a
// signature fails with ErrNoSignature; one no ImageConfig states a
// verification for is not verified (applied is false) and nothing is
// fetched.
func Example_imageConfigs() {
	ctx := context.Background()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	mirror := strings.TrimPrefix(srv.URL, "http://")
	client, _ := remote.New(remote.WithAnonymous())

	set, err := imageconfig.ParseAll(ctx, []imageconfig.Input{{Name: "imageconfigs.yaml", Reader: strings.NewReader(`apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata: {name: mirror}
spec:
  matchImages: [{prefix: xpkg.crossplane.io/}]
  rewriteImage: {prefix: ` + mirror + `/}
---
apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata: {name: signed-mirror}
spec:
  matchImages: [{prefix: ` + mirror + `/}]
  verification:
    provider: Cosign
    cosign:
      authorities:
      - name: release-key
        key: {secretRef: {name: cosign, key: cosign.pub}, hashAlgorithm: sha256}
`)}})
	if err != nil {
		fmt.Println(err)
		return
	}

	// The release key; in practice, cosign's key pair, and the public key
	// read with verify.WithPublicKeyFile.
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pub, _ := cryptoutils.MarshalPublicKeyToPEM(key.Public())
	v, err := verify.New(verify.WithClient(client), verify.WithPublicKey("cosign", "cosign.pub", pub))
	if err != nil {
		fmt.Println(err)
		return
	}

	// Two packages in the mirror, one signed (in cosign's legacy ".sig"
	// format, which the library also reads), one not.
	repo, _ := client.Repository(mirror + "/acme/provider-nop")
	signed := pushPackage(ctx, repo, "v1", "signed")
	signLegacy(ctx, repo, signed, key)
	pushPackage(ctx, repo, "v2", "unsigned")

	for _, ref := range []string{
		"xpkg.crossplane.io/acme/provider-nop:v1",
		"xpkg.crossplane.io/acme/provider-nop:v2",
		"index.docker.io/acme/provider-other:v1",
	} {
		target, _, _ := set.Rewrite(ref) // what Crossplane would pull
		res, applied, err := v.VerifyWithSet(ctx, target, set)
		switch {
		case !applied:
			fmt.Printf("%s: no ImageConfig states a verification\n", ref)
		case errors.Is(err, verify.ErrNoSignature):
			fmt.Printf("%s: no signature\n", ref)
		case err != nil:
			fmt.Printf("%s: %v\n", ref, err)
		default:
			fmt.Printf("%s: verified by %s/%s (%s signature), pinned to the signed digest: %v\n", ref, res.ImageConfig, res.Authority,
				res.Signatures[0].Format, res.PinnedReference() == mirror+"/acme/provider-nop@"+signed.String())
		}
	}
	// Output:
	// xpkg.crossplane.io/acme/provider-nop:v1: verified by signed-mirror/release-key (legacy signature), pinned to the signed digest: true
	// xpkg.crossplane.io/acme/provider-nop:v2: no signature
	// index.docker.io/acme/provider-other:v1: no ImageConfig states a verification
}

// pushPackage pushes a one-layer image tagged tag and returns its digest.
func pushPackage(ctx context.Context, repo *remote.Repository, tag, content string) digest.Digest {
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest,
		Config: pushBytes(ctx, repo, ocispec.MediaTypeImageConfig, []byte(`{}`)),
		Layers: []ocispec.Descriptor{pushBytes(ctx, repo, ocispec.MediaTypeImageLayer, []byte(content))}}
	m.SchemaVersion = 2
	b, _ := json.Marshal(m)
	d := pushBytes(ctx, repo, ocispec.MediaTypeImageManifest, b)
	if err := repo.Tag(ctx, d, tag); err != nil {
		log.Fatal(err)
	}
	return d.Digest
}

func pushBytes(ctx context.Context, repo *remote.Repository, mediaType string, b []byte) ocispec.Descriptor {
	d := ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(b), Size: int64(len(b))}
	if err := repo.Push(ctx, d, bytes.NewReader(b)); err != nil {
		log.Fatal(err)
	}
	return d
}

// signLegacy signs d as `cosign sign --key` did before bundles: a
// simple-signing payload naming the digest, pushed as the layer of the
// manifest tagged "sha256-<hex>.sig", its signature in an annotation.
func signLegacy(ctx context.Context, repo *remote.Repository, d digest.Digest, key *ecdsa.PrivateKey) {
	payload := fmt.Appendf(nil, `{"critical":{"identity":{"docker-reference":%q},"image":{"docker-manifest-digest":%q},"type":"cosign container image signature"},"optional":null}`, repo.Name(), d)
	signer, _ := signature.LoadECDSASigner(key, crypto.SHA256)
	sig, err := signer.SignMessage(bytes.NewReader(payload))
	if err != nil {
		log.Fatal(err)
	}
	layer := pushBytes(ctx, repo, "application/vnd.dev.cosign.simplesigning.v1+json", payload)
	layer.Annotations = map[string]string{"dev.cosignproject.cosign/signature": base64.StdEncoding.EncodeToString(sig)}
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest,
		Config: pushBytes(ctx, repo, ocispec.MediaTypeImageConfig, []byte(`{}`)), Layers: []ocispec.Descriptor{layer}}
	m.SchemaVersion = 2
	b, _ := json.Marshal(m)
	if err := repo.Tag(ctx, pushBytes(ctx, repo, ocispec.MediaTypeImageManifest, b), strings.Replace(d.String(), ":", "-", 1)+".sig"); err != nil {
		log.Fatal(err)
	}
}
