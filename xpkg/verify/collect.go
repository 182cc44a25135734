package verify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// Annotations of a legacy signature manifest's layers (cosign's
// "sha256-<hex>.sig" format).
const (
	annSignature = "dev.cosignproject.cosign/signature"
	annCert      = "dev.sigstore.cosign/certificate"
	annBundle    = "dev.sigstore.cosign/bundle"
	annRFC3161   = "dev.sigstore.cosign/rfc3161timestamp"
)

// simpleSigningMediaType is the media type of a legacy signature manifest's
// layers: the simple-signing payload that was signed.
const simpleSigningMediaType = "application/vnd.dev.cosign.simplesigning.v1+json"

// dsseMediaType is the media type of a legacy attestation manifest's
// layers ("sha256-<hex>.att"): a DSSE envelope of an in-toto statement.
const dsseMediaType = "application/vnd.dsse.envelope.v1+json"

// candidate is one signature artefact found for the package.
type candidate struct {
	format  string // "bundle" or "legacy"
	source  string
	entity  sgverify.SignedEntity
	payload []byte // legacy: the simple-signing payload that was signed
	dsse    bool   // bundle: a DSSE envelope (an in-toto statement)
	cert    bool   // signed with a certificate, not a key
	err     error  // the artefact could not be read: a failure for every authority
}

// budget is what one verification has read of Limits.MaxTotalBytes.
type budget struct {
	used, max int64
}

// spend charges a read of n bytes, unless it would go beyond
// MaxTotalBytes.
func (b *budget) spend(n int64) error {
	if b.used+n > b.max {
		return &limit.Error{Limit: limitval.MaxTotalBytes, Value: b.used + n, Max: b.max}
	}
	b.used += n
	return nil
}

// overBudget reports whether err is the budget's: it ends the
// verification, as MaxSignatures does.
func overBudget(err error) bool {
	var le *limit.Error
	return errors.As(err, &le) && le.Limit == limitval.MaxTotalBytes
}

// collect finds the signature artefacts attached to desc: cosign bundle
// referrers (the referrers API, or the referrers tag schema) and the
// legacy "sha256-<hex>.sig" manifest (and, when attestations is true, the
// legacy "sha256-<hex>.att" manifest of DSSE attestations). Only the
// listing, the signature manifests and the blobs they point to are
// fetched, each within the Limits and verified against its descriptor,
// and all of them within MaxTotalBytes.
func (v *Verifier) collect(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor, attestations bool) ([]*candidate, error) {
	l := v.cfg.limits
	b := &budget{max: l.MaxTotalBytes}
	var out []*candidate
	fetched := 0 // signature artefacts fetched
	// All referrers are listed, not those the registry says are bundles:
	// some registries (go-containerregistry's) report a referrer's config
	// media type as its artifact type, which for a bundle is the empty
	// descriptor's. The manifest's own artifactType decides.
	// At most the client's remote.Limits.MaxReferrers are listed (an image may have
	// many referrers of other kinds); at most MaxSignatures are fetched.
	refs, err := repo.Referrers(ctx, desc, "")
	if err != nil && !errors.Is(err, oci.ErrNotFound) {
		return nil, err
	}
	for _, r := range refs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.ArtifactType != "" && r.ArtifactType != bundleArtifactType && r.ArtifactType != ocispec.MediaTypeEmptyJSON {
			continue
		}
		if fetched++; fetched > l.MaxSignatures {
			return nil, &limit.Error{Limit: limitval.MaxSignatures, Value: int64(fetched), Max: int64(l.MaxSignatures)}
		}
		c := v.bundleCandidate(ctx, repo, b, desc, r)
		if c != nil && overBudget(c.err) {
			return nil, c.err
		}
		if c != nil {
			out = append(out, c)
		}
	}
	suffixes := []string{".sig"}
	if attestations {
		suffixes = append(suffixes, ".att")
	}
	for _, suffix := range suffixes {
		tag := strings.Replace(desc.Digest.String(), ":", "-", 1) + suffix
		sd, err := repo.Resolve(ctx, tag)
		switch {
		case errors.Is(err, oci.ErrNotFound):
			continue
		case err != nil:
			return nil, err
		}
		m, err := v.fetchManifest(ctx, repo, b, sd)
		if overBudget(err) {
			return nil, err
		}
		if err != nil {
			out = append(out, &candidate{format: "legacy", source: tag, err: err})
			continue
		}
		for i, layer := range m.Layers {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if layer.MediaType != simpleSigningMediaType && layer.MediaType != dsseMediaType {
				continue
			}
			if fetched++; fetched > l.MaxSignatures {
				return nil, &limit.Error{Limit: limitval.MaxSignatures, Value: int64(fetched), Max: int64(l.MaxSignatures)}
			}
			c := v.legacyCandidate(ctx, repo, b, layer, fmt.Sprintf("%s layer %d", tag, i))
			if overBudget(c.err) {
				return nil, c.err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// fetchManifest reads and decodes a signature manifest within the limit.
func (v *Verifier) fetchManifest(ctx context.Context, repo *remote.Repository, b *budget, d ocispec.Descriptor) (*ocispec.Manifest, error) {
	if d.MediaType != ocispec.MediaTypeImageManifest && d.MediaType != "application/vnd.docker.distribution.manifest.v2+json" {
		return nil, classed(ErrMalformedSignature, "manifest media type %s", safetext.Quote(d.MediaType))
	}
	data, err := v.fetch(ctx, repo, b, d, v.cfg.limits.MaxManifestBytes, limitval.MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, classed(ErrMalformedSignature, "manifest %s: %s", d.Digest, safetext.Reason(err))
	}
	return &m, nil
}

// fetch reads blob d, at most max bytes and within the budget, verified
// against d.
func (v *Verifier) fetch(ctx context.Context, repo *remote.Repository, b *budget, d ocispec.Descriptor, max int64, name limit.Name) ([]byte, error) {
	if d.Size < 0 || d.Size > max {
		return nil, fmt.Errorf("%s: %d bytes: %w", safetext.Token(d.Digest.String()), d.Size, &limit.Error{Limit: name, Value: d.Size, Max: max})
	}
	if err := b.spend(d.Size); err != nil {
		return nil, fmt.Errorf("%s: %d bytes: %w", safetext.Token(d.Digest.String()), d.Size, err)
	}
	rc, err := oci.FetchVerified(ctx, repo, d)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// bundleCandidate reads one bundle referrer.
func (v *Verifier) bundleCandidate(ctx context.Context, repo *remote.Repository, b *budget, subject, r ocispec.Descriptor) *candidate {
	c := &candidate{format: "bundle", source: "referrer " + r.Digest.String()}
	m, err := v.fetchManifest(ctx, repo, b, r)
	if err != nil {
		c.err = err
		return c
	}
	if m.ArtifactType != bundleArtifactType {
		return nil // another kind of referrer
	}
	if m.Subject == nil || m.Subject.Digest != subject.Digest {
		c.err = classed(ErrSubjectMismatch, "the referrer's subject is not %s", subject.Digest)
		return c
	}
	var layer *ocispec.Descriptor
	for i := range m.Layers {
		if m.Layers[i].MediaType == bundleArtifactType {
			layer = &m.Layers[i]
			break
		}
	}
	if layer == nil {
		c.err = classed(ErrMalformedSignature, "no layer of media type %s", bundleArtifactType)
		return c
	}
	data, err := v.fetch(ctx, repo, b, *layer, v.cfg.limits.MaxBlobBytes, limitval.MaxBlobBytes)
	if err != nil {
		c.err = err
		return c
	}
	var bun bundle.Bundle
	if err := bun.UnmarshalJSON(data); err != nil {
		c.err = classed(ErrMalformedSignature, "bundle %s: %s", layer.Digest, safetext.Reason(err))
		return c
	}
	c.entity = &bun
	c.dsse = bun.GetDsseEnvelope() != nil
	if vc, err := bun.VerificationContent(); err == nil && vc.Certificate() != nil {
		c.cert = true
	}
	return c
}

// legacyCandidate reads one layer of a legacy signature manifest: the
// payload blob, and the signature, certificate, Rekor bundle and RFC 3161
// timestamp from its annotations.
func (v *Verifier) legacyCandidate(ctx context.Context, repo *remote.Repository, b *budget, layer ocispec.Descriptor, source string) *candidate {
	c := &candidate{format: "legacy", source: source}
	sig, err := base64.StdEncoding.DecodeString(layer.Annotations[annSignature])
	if layer.MediaType == simpleSigningMediaType && (err != nil || len(sig) == 0) {
		c.err = classed(ErrMalformedSignature, "no base64 %s annotation", annSignature)
		return c
	}
	payload, err := v.fetch(ctx, repo, b, layer, v.cfg.limits.MaxBlobBytes, limitval.MaxBlobBytes)
	if err != nil {
		c.err = err
		return c
	}
	sum := sha256.Sum256(payload)
	e := &legacyEntity{sig: sig, digest: sum[:]}
	if layer.MediaType == dsseMediaType {
		// An attestation: the blob is the DSSE envelope, which holds
		// its own signature.
		var env dsse.Envelope
		if err := json.Unmarshal(payload, &env); err != nil || len(env.Signatures) != 1 {
			c.err = classed(ErrMalformedSignature, "DSSE envelope: not JSON with one signature")
			return c
		}
		e.envelope = &env
		c.dsse = true
		payload = nil
	}
	if p := layer.Annotations[annCert]; p != "" {
		certs, err := cryptoutils.UnmarshalCertificatesFromPEM([]byte(p))
		if err != nil || len(certs) == 0 {
			c.err = classed(ErrMalformedSignature, "%s annotation: not a PEM certificate", annCert)
			return c
		}
		e.cert = certs[0]
		c.cert = true
	}
	if p := layer.Annotations[annBundle]; p != "" {
		entry, err := rekorBundleEntry([]byte(p))
		if err != nil {
			c.err = classed(ErrMalformedSignature, "%s annotation: %s", annBundle, safetext.Reason(err))
			return c
		}
		e.entries = []*tlog.Entry{entry}
	}
	if p := layer.Annotations[annRFC3161]; p != "" {
		var ts struct {
			SignedRFC3161Timestamp []byte `json:"SignedRFC3161Timestamp"`
		}
		if err := json.Unmarshal([]byte(p), &ts); err != nil || len(ts.SignedRFC3161Timestamp) == 0 {
			c.err = classed(ErrMalformedSignature, "%s annotation: not a timestamp", annRFC3161)
			return c
		}
		e.timestamps = [][]byte{ts.SignedRFC3161Timestamp}
	}
	c.entity = e
	c.payload = payload
	return c
}

// rekorBundleEntry reads cosign's Rekor bundle annotation: the signed
// entry timestamp and the log entry it signs.
func rekorBundleEntry(data []byte) (*tlog.Entry, error) {
	var rb struct {
		SignedEntryTimestamp []byte `json:"SignedEntryTimestamp"`
		Payload              struct {
			Body           string `json:"body"`
			IntegratedTime int64  `json:"integratedTime"`
			LogIndex       int64  `json:"logIndex"`
			LogID          string `json:"logID"`
		} `json:"Payload"`
	}
	if err := json.Unmarshal(data, &rb); err != nil {
		return nil, err
	}
	body, err := base64.StdEncoding.DecodeString(rb.Payload.Body)
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	logID, err := hex.DecodeString(rb.Payload.LogID)
	if err != nil {
		return nil, fmt.Errorf("logID: %w", err)
	}
	var kind struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal(body, &kind); err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	return tlog.NewTlogEntry(&protorekor.TransparencyLogEntry{
		LogIndex:          rb.Payload.LogIndex,
		LogId:             &protocommon.LogId{KeyId: logID},
		KindVersion:       &protorekor.KindVersion{Kind: kind.Kind, Version: kind.APIVersion},
		IntegratedTime:    rb.Payload.IntegratedTime,
		InclusionPromise:  &protorekor.InclusionPromise{SignedEntryTimestamp: rb.SignedEntryTimestamp},
		CanonicalizedBody: body,
	})
}

// legacyEntity is a legacy cosign signature as a sigstore-go SignedEntity:
// a message signature over the simple-signing payload, made with a key or
// a certificate, with the Rekor entry and timestamp cosign attached.
type legacyEntity struct {
	envelope   *dsse.Envelope // an attestation; nil for a signature
	sig        []byte
	digest     []byte // sha256 of the payload
	cert       *x509.Certificate
	entries    []*tlog.Entry
	timestamps [][]byte
}

var _ sgverify.SignedEntity = (*legacyEntity)(nil)

func (e *legacyEntity) HasInclusionPromise() bool {
	for _, en := range e.entries {
		if en.HasInclusionPromise() {
			return true
		}
	}
	return false
}

func (e *legacyEntity) HasInclusionProof() bool { return false }

func (e *legacyEntity) SignatureContent() (sgverify.SignatureContent, error) {
	if e.envelope != nil {
		return &bundle.Envelope{Envelope: e.envelope}, nil
	}
	return bundle.NewMessageSignature(e.digest, "SHA2_256", e.sig), nil
}

func (e *legacyEntity) Timestamps() ([][]byte, error) { return e.timestamps, nil }

func (e *legacyEntity) TlogEntries() ([]*tlog.Entry, error) { return e.entries, nil }

func (e *legacyEntity) VerificationContent() (sgverify.VerificationContent, error) {
	if e.cert != nil {
		return bundle.NewCertificate(e.cert), nil
	}
	return &bundle.PublicKey{}, nil
}

func (e *legacyEntity) Version() (string, error) { return "v0.3", nil }

// cosignSignatureType is the critical.type of cosign's simple-signing
// payload; sigstore's payload package, which cosign verifies with, rejects
// any other.
const cosignSignatureType = "cosign container image signature"

// simpleSigningDigest returns the image digest a simple-signing payload
// names (critical.image.docker-manifest-digest), when it is cosign's
// (critical.type): a payload of another type (an "atomic container
// signature" made with the same key) signs something else.
func simpleSigningDigest(payload []byte) (digest.Digest, error) {
	var p struct {
		Critical struct {
			Image struct {
				Digest string `json:"docker-manifest-digest"`
			} `json:"image"`
			Type string `json:"type"`
		} `json:"critical"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return "", classed(ErrMalformedSignature, "simple-signing payload: %s", safetext.Reason(err))
	}
	if p.Critical.Type != cosignSignatureType {
		return "", classed(ErrMalformedSignature, "simple-signing payload of type %s, not %q", safetext.Quote(p.Critical.Type), cosignSignatureType)
	}
	d, err := digest.Parse(p.Critical.Image.Digest)
	if err != nil {
		return "", classed(ErrMalformedSignature, "simple-signing payload: docker-manifest-digest %s", safetext.Quote(p.Critical.Image.Digest))
	}
	return d, nil
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
