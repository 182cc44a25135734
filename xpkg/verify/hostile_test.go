package verify_test

import (
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/verify"
)

// pushIndex uploads an image index listing descs and tags it.
func pushIndex(t *testing.T, r *remote.Repository, descs []ocispec.Descriptor, tag string) {
	t.Helper()
	idx := ocispec.Index{MediaType: ocispec.MediaTypeImageIndex, Manifests: descs}
	idx.SchemaVersion = 2
	pushJSON(t, r, ocispec.MediaTypeImageIndex, idx, tag)
}

// putManifest uploads a manifest of any size under tag with a plain PUT
// (the client refuses to push one over its bound).
func putManifest(t *testing.T, e *env, repo, tag, mediaType string, v any) ocispec.Descriptor {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPut, "http://"+e.host+"/v2/"+repo+"/manifests/"+tag, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mediaType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT %s: %s", tag, resp.Status)
	}
	return ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(b), Size: int64(len(b))}
}

// referrersTag is the referrers tag schema's tag of d.
func referrersTag(d digest.Digest) string { return strings.Replace(d.String(), ":", "-", 1) }

// TestHostileBundleForAnotherDigest: a registry (without the referrers API,
// so its listing is a tag anyone who may push can write) lists, as a
// referrer of an unsigned package, the genuine bundle referrer of another,
// signed package. The bundle verifies, but for the other digest:
// ErrSubjectMismatch, never a verified package.
func TestHostileBundleForAnotherDigest(t *testing.T) {
	t.Parallel()
	e := newInProcess(t, false)
	k := newKey(t)
	v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
	r := e.repo(t, "hostile/another")
	signed, _ := pushImage(t, r, "signed", "signed")
	ref := attachBundle(t, r, signed, keyedBundle(t, k, signed.Digest, verify.CosignSignPredicateType), verify.CosignSignPredicateType)
	if _, err := v.Verify(context.Background(), e.host+"/hostile/another:signed", keyPolicy()); err != nil {
		t.Fatalf("the signed package: %v", err)
	}
	unsigned, _ := pushImage(t, r, "unsigned", "unsigned")
	ref.ArtifactType = verify.BundleArtifactType
	pushIndex(t, r, []ocispec.Descriptor{ref}, referrersTag(unsigned.Digest))
	_, err := v.Verify(context.Background(), e.host+"/hostile/another:unsigned", keyPolicy())
	if !errors.Is(err, verify.ErrNoMatchingAuthority) || !errors.Is(err, verify.ErrSubjectMismatch) {
		t.Fatalf("%v, want ErrNoMatchingAuthority and ErrSubjectMismatch", err)
	}
}

// TestHostileSignatureManifest: a legacy ".sig" manifest with more
// signature layers than MaxSignatures fails with limit.ErrExceeded after
// at most MaxSignatures payloads; layers of other media types, however
// many fit in the manifest bound, are skipped without a request; a ".sig"
// manifest larger than MaxManifestBytes is not read.
func TestHostileSignatureManifest(t *testing.T) {
	t.Parallel()
	k := newKey(t)
	sigManifest := func(t *testing.T, r *remote.Repository, subject digest.Digest, layers []ocispec.Descriptor) ocispec.Descriptor {
		t.Helper()
		cfg := pushBlob(t, r, ocispec.MediaTypeImageConfig, []byte(`{}`))
		m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, Config: cfg, Layers: layers}
		m.SchemaVersion = 2
		return pushManifest(t, r, m, referrersTag(subject)+".sig")
	}
	blobGets := func(reqs []string) int {
		n := 0
		for _, rq := range reqs {
			if strings.HasPrefix(rq, "GET ") && strings.Contains(rq, "/blobs/") {
				n++
			}
		}
		return n
	}
	signatureLayer := func(t *testing.T, r *remote.Repository, s legacyLayer) ocispec.Descriptor {
		d := pushBlob(t, r, simpleSigningMediaType, s.payload)
		d.Annotations = s.annotations
		return d
	}

	t.Run("many signature layers", func(t *testing.T) {
		t.Parallel()
		e := newInProcess(t, true)
		v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
		r := e.repo(t, "hostile/many")
		img, _ := pushImage(t, r, "v1", "a")
		var layers []ocispec.Descriptor
		for i := range 200 {
			layers = append(layers, signatureLayer(t, r, keyedLegacy(t, k, simpleSigning(fmt.Sprint("copy ", i), img.Digest))))
		}
		sigManifest(t, r, img.Digest, layers)
		e.count.take()
		_, err := v.Verify(context.Background(), e.host+"/hostile/many:v1", keyPolicy())
		var le *limit.Error
		if !errors.As(err, &le) || le.Limit != limitval.MaxSignatures {
			t.Fatalf("%v, want limit %s", err, limitval.MaxSignatures)
		}
		if n, max := blobGets(e.count.take()), verify.DefaultLimits().MaxSignatures; n > max {
			t.Errorf("%d payloads read, want at most %d", n, max)
		}
	})
	t.Run("many layers of other media types", func(t *testing.T) {
		t.Parallel()
		e := newInProcess(t, true)
		v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
		r := e.repo(t, "hostile/foreign")
		img, _ := pushImage(t, r, "v1", "a")
		foreign := pushBlob(t, r, "application/vnd.example.noise", []byte("noise"))
		layers := make([]ocispec.Descriptor, 20_000, 20_001)
		for i := range layers {
			layers[i] = foreign
		}
		layers = append(layers, signatureLayer(t, r, keyedLegacy(t, k, simpleSigning("x", img.Digest))))
		sm := sigManifest(t, r, img.Digest, layers)
		if sm.Size > verify.DefaultLimits().MaxManifestBytes {
			t.Fatalf("the manifest is %d bytes, over the bound", sm.Size)
		}
		e.count.take()
		if _, err := v.Verify(context.Background(), e.host+"/hostile/foreign:v1", keyPolicy()); err != nil {
			t.Fatal(err)
		}
		if n := blobGets(e.count.take()); n != 1 {
			t.Errorf("%d blobs read, want the one signature payload", n)
		}
	})
	t.Run("manifest over the bound", func(t *testing.T) {
		t.Parallel()
		e := newInProcess(t, true)
		v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
		r := e.repo(t, "hostile/large")
		img, _ := pushImage(t, r, "v1", "a")
		foreign := pushBlob(t, r, "application/vnd.example.noise", []byte("noise"))
		layers := make([]ocispec.Descriptor, 40_000)
		for i := range layers {
			layers[i] = foreign
		}
		cfg := pushBlob(t, r, ocispec.MediaTypeImageConfig, []byte(`{}`))
		m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, Config: cfg, Layers: layers}
		m.SchemaVersion = 2
		sm := putManifest(t, e, "hostile/large", referrersTag(img.Digest)+".sig", ocispec.MediaTypeImageManifest, m)
		if sm.Size <= verify.DefaultLimits().MaxManifestBytes {
			t.Fatalf("the manifest is %d bytes, within the bound", sm.Size)
		}
		e.count.take()
		_, err := v.Verify(context.Background(), e.host+"/hostile/large:v1", keyPolicy())
		var le *limit.Error
		if !errors.As(err, &le) || le.Limit != limitval.MaxManifestBytes || !errors.Is(err, verify.ErrNoMatchingAuthority) {
			t.Fatalf("%v, want ErrNoMatchingAuthority for limit %s", err, limitval.MaxManifestBytes)
		}
		for _, rq := range e.count.take() {
			if rq == "GET /v2/hostile/large/manifests/"+sm.Digest.String() {
				t.Errorf("the oversized manifest was read")
			}
		}
	})
}

// TestHostileReferrersIndex: a referrers tag schema index larger than a
// manifest may be (4 MiB) is not read to its end; the verification fails
// with limit.ErrExceeded.
func TestHostileReferrersIndex(t *testing.T) {
	t.Parallel()
	e := newInProcess(t, false)
	k := newKey(t)
	v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
	r := e.repo(t, "hostile/index")
	img, _ := pushImage(t, r, "v1", "a")
	noise := img // the registry wants an index's manifests to exist
	noise.ArtifactType = "application/spdx+json"
	descs := make([]ocispec.Descriptor, 40_000)
	for i := range descs {
		descs[i] = noise
	}
	idx := ocispec.Index{MediaType: ocispec.MediaTypeImageIndex, Manifests: descs}
	idx.SchemaVersion = 2
	putManifest(t, e, "hostile/index", referrersTag(img.Digest), ocispec.MediaTypeImageIndex, idx)
	_, err := v.Verify(context.Background(), e.host+"/hostile/index:v1", keyPolicy())
	if !errors.Is(err, limit.ErrExceeded) {
		t.Fatalf("%v, want limit.ErrExceeded", err)
	}
}

// TestHostileManyFailures: many signatures that all fail keep at most
// MaxFailures failures, and the error's text stays bounded.
func TestHostileManyFailures(t *testing.T) {
	t.Parallel()
	e := newInProcess(t, true)
	k, other := newKey(t), newKey(t)
	r := e.repo(t, "hostile/failures")
	img, _ := pushImage(t, r, "v1", "a")
	for range 30 {
		attachBundle(t, r, img, keyedBundle(t, other, img.Digest, verify.CosignSignPredicateType), verify.CosignSignPredicateType)
	}
	v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem), verify.WithLimits(verify.Limits{MaxFailures: 5}))
	_, err := v.Verify(context.Background(), e.host+"/hostile/failures:v1", keyPolicy())
	var ve *verify.Error
	if !errors.As(err, &ve) || !errors.Is(err, verify.ErrInvalidSignature) {
		t.Fatalf("%v, want a *verify.Error of ErrInvalidSignature", err)
	}
	if len(ve.Failures) != 5 {
		t.Errorf("%d failures kept, want MaxFailures (5)", len(ve.Failures))
	}
	if n := len(err.Error()); n > 4096+len("…") {
		t.Errorf("the error's text is %d bytes", n)
	}
}

// TestSwappedLayerBlob: the signature covers the manifest's digest, and the
// manifest the digest of each layer: a registry that serves another layer
// under a verified manifest is caught when the layer is read through the
// pinned reference (oci.ErrDigestMismatch), and the verification itself
// never reads a layer.
func TestSwappedLayerBlob(t *testing.T) {
	t.Parallel()
	var swap atomic.Bool
	var layer atomic.Value // the layer's path
	reg := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, _ := layer.Load().(string); swap.Load() && r.Method == http.MethodGet && r.URL.Path == p {
			io.WriteString(w, "a swapped layer, same length")
			return
		}
		reg.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e := newEnv(t, strings.TrimPrefix(srv.URL, "http://"))
	k := newKey(t)
	r := e.repo(t, "acme/provider")
	img, m := pushImage(t, r, "v1", "the original layer, same len")
	layer.Store("/v2/acme/provider/blobs/" + m.Layers[0].Digest.String())
	attachBundle(t, r, img, keyedBundle(t, k, img.Digest, verify.CosignSignPredicateType), verify.CosignSignPredicateType)
	v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
	swap.Store(true)
	res, err := v.Verify(context.Background(), e.host+"/acme/provider:v1", keyPolicy())
	if err != nil {
		t.Fatalf("the manifest is the signed one: %v", err)
	}
	pinned, err := e.client.Repository(strings.Split(res.PinnedReference(), "@")[0])
	if err != nil {
		t.Fatal(err)
	}
	desc, err := pinned.Resolve(context.Background(), res.Descriptor.Digest.String())
	if err != nil || desc.Digest != img.Digest {
		t.Fatalf("resolve %s: %v %v", res.PinnedReference(), desc, err)
	}
	rc, err := oci.FetchVerified(context.Background(), pinned, m.Layers[0])
	if err == nil {
		_, err = io.ReadAll(rc)
		rc.Close()
	}
	if !errors.Is(err, oci.ErrDigestMismatch) {
		t.Fatalf("reading the swapped layer: %v, want oci.ErrDigestMismatch", err)
	}
}

// TestHostileDigestAnswer: a registry that answers another digest for a
// digest reference fails with ErrSubjectMismatch, after that one request.
func TestHostileDigestAnswer(t *testing.T) {
	t.Parallel()
	other := digest.FromString("another manifest")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/manifests/") {
			w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
			w.Header().Set("Docker-Content-Digest", other.String())
			w.Header().Set("Content-Length", "100")
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	e := newEnv(t, strings.TrimPrefix(srv.URL, "http://"))
	k := newKey(t)
	v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem))
	_, err := v.Verify(context.Background(), e.host+"/acme/p@"+digest.FromString("asked for").String(), keyPolicy())
	var ve *verify.Error
	if !errors.As(err, &ve) || ve.Class != verify.ErrSubjectMismatch || !errors.Is(err, oci.ErrDigestMismatch) {
		t.Fatalf("%v, want the class ErrSubjectMismatch", err)
	}
	if n := len(e.count.take()); n != 1 {
		t.Errorf("%d requests, want the one HEAD", n)
	}
}

// TestHostileTotalBytes: a registry whose signature referrers are each as
// large as the per-artefact bounds allow (manifests padded to near
// MaxManifestBytes, bundles of MaxBlobBytes that never verify) makes a
// verification read at most MaxTotalBytes of them in all, and fail with
// that limit. Without it, 64 such referrers were 319 MiB and 13 s.
func TestHostileTotalBytes(t *testing.T) {
	t.Parallel()
	const (
		manifestBytes = 256 << 10
		total         = 1 << 20
	)
	pkg := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[]}`)
	pd := digest.FromBytes(pkg)
	manifests := map[string][]byte{pd.String(): pkg, "v1": pkg}
	var listing []ocispec.Descriptor
	pad := strings.Repeat("x", manifestBytes-1000)
	for i := range 64 {
		m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: verify.BundleArtifactType,
			Config:      ocispec.Descriptor{MediaType: ocispec.MediaTypeEmptyJSON, Digest: digest.FromString("{}"), Size: 2},
			Layers:      []ocispec.Descriptor{{MediaType: verify.BundleArtifactType, Digest: digest.FromString(fmt.Sprint(i)), Size: 64 << 10}},
			Subject:     &ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: pd, Size: int64(len(pkg))},
			Annotations: map[string]string{"pad": pad}}
		m.SchemaVersion = 2
		b, _ := json.Marshal(m)
		manifests[digest.FromBytes(b).String()] = b
		listing = append(listing, ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: verify.BundleArtifactType,
			Digest: digest.FromBytes(b), Size: int64(len(b))})
	}
	idx := ocispec.Index{MediaType: ocispec.MediaTypeImageIndex, Manifests: listing}
	idx.SchemaVersion = 2
	index, _ := json.Marshal(idx)
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case strings.Contains(p, "/referrers/"):
			w.Header().Set("Content-Type", ocispec.MediaTypeImageIndex)
			w.Write(index)
		case strings.Contains(p, "/manifests/"):
			b, ok := manifests[p[strings.LastIndex(p, "/")+1:]]
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
			w.Header().Set("Docker-Content-Digest", digest.FromBytes(b).String())
			w.Header().Set("Content-Length", fmt.Sprint(len(b)))
			if r.Method == http.MethodGet { // the package's manifest is only resolved (HEAD)
				n, _ := w.Write(b)
				served.Add(int64(n))
			}
		case strings.Contains(p, "/blobs/"):
			n, _ := w.Write(make([]byte, 64<<10)) // not the bundle its digest names
			served.Add(int64(n))
		default:
			w.WriteHeader(http.StatusOK)
		}
	}))
	t.Cleanup(srv.Close)
	e := newEnv(t, strings.TrimPrefix(srv.URL, "http://"))
	k := newKey(t)
	v := newVerifier(t, e, verify.WithPublicKey("cosign", "cosign.pub", k.pem), verify.WithLimits(verify.Limits{MaxTotalBytes: total}))
	_, err := v.Verify(context.Background(), e.host+"/acme/p:v1", keyPolicy())
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != limitval.MaxTotalBytes {
		t.Fatalf("%v, want limit %s", err, limitval.MaxTotalBytes)
	}
	if n := served.Load(); n > total {
		t.Errorf("%d bytes of signature artefacts served, want at most %d", n, total)
	}
}
