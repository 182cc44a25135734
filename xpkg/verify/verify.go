package verify

import (
	"cmp"
	"context"
	"crypto"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

// Media types and names of the signature formats.
const (
	// bundleArtifactType is the artifact type of a cosign v3 bundle
	// referrer, and the media type of its one layer.
	bundleArtifactType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// cosignSignPredicateType is the predicate type of the in-toto
	// statement a cosign v3 image signature signs.
	cosignSignPredicateType = "https://sigstore.dev/cosign/sign/v1"
)

// Limits bound what a verification reads.
// They follow the convention of package limit: a zero field means its
// default (DefaultLimits), so that a partly filled Limits never lifts the
// limits it does not mention; limit.Unlimited (any negative value) means no
// limit. A limit exceeded is a *limit.Error naming the field (it matches
// limit.ErrExceeded).
type Limits struct {
	// MaxSignatures bounds the signature artefacts fetched: referrers
	// that may be bundles plus layers of the legacy signature manifest
	// (default 64). Referrers of other artifact types are not fetched;
	// at most the client's remote.Limits.MaxReferrers are listed.
	MaxSignatures int
	// MaxManifestBytes bounds a referrer's or the legacy signature's
	// manifest (default 4 MiB, the distribution spec's floor).
	MaxManifestBytes int64
	// MaxBlobBytes bounds a bundle or a legacy payload (default 1 MiB; a
	// bundle is a few KiB).
	MaxBlobBytes int64
	// MaxTotalBytes bounds the bytes of all the signature manifests and
	// blobs one verification reads (default 16 MiB): without it, a
	// registry could make one verification read MaxSignatures artefacts
	// each as large as the bounds above allow (64 × (4 MiB + 1 MiB)).
	MaxTotalBytes int64
	// MaxFailures bounds the failures an Error keeps (default 64).
	MaxFailures int
}

// DefaultLimits returns the default Limits.
func DefaultLimits() Limits {
	return Limits{MaxSignatures: 64, MaxManifestBytes: 4 << 20, MaxBlobBytes: 1 << 20, MaxTotalBytes: 16 << 20, MaxFailures: 64}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	l.MaxSignatures = limitval.Or(l.MaxSignatures, d.MaxSignatures)
	l.MaxManifestBytes = limitval.Or(l.MaxManifestBytes, d.MaxManifestBytes)
	l.MaxBlobBytes = limitval.Or(l.MaxBlobBytes, d.MaxBlobBytes)
	l.MaxTotalBytes = limitval.Or(l.MaxTotalBytes, d.MaxTotalBytes)
	l.MaxFailures = limitval.Or(l.MaxFailures, d.MaxFailures)
	return l
}

// KeyFunc returns the PEM public key an authority's key.secretRef names:
// the Secret's name and the key in it. In a cluster the key lives in a
// Secret; outside one the caller maps the names to files or data.
type KeyFunc func(ctx context.Context, secret, key string) ([]byte, error)

// Option configures a Verifier. An option that reads a file or parses
// data (WithPublicKeyFile, WithTrustedRootFile) does
// so in New, which returns its error.
type Option func(*config)

type config struct {
	client  *remote.Client
	keys    map[string][]byte // resolved by New from keySrcs
	keySrcs []keySource       // in the order given: a later one for the same key wins
	keyFunc KeyFunc
	trust   trustSource // the last trusted-root option given
	trusted root.TrustedMaterial
	limits  Limits
}

// keySource is the public key of one key.secretRef: its PEM, or the file
// that holds it.
type keySource struct {
	id   string // "secret/key"
	pem  []byte
	path string
}

// trustSource is the trusted root as an option gave it: material, or the
// file that holds its JSON.
type trustSource struct {
	tm   root.TrustedMaterial
	path string
}

// WithClient reads registries through c (its credentials, transport,
// bounds). The default is a client with Docker's credentials.
func WithClient(c *remote.Client) Option {
	return func(cfg *config) { cfg.client = c }
}

// WithPublicKey gives the PEM public key that an authority's
// key.secretRef {name: secret, key: key} stands for.
func WithPublicKey(secret, key string, pem []byte) Option {
	return func(cfg *config) { cfg.keySrcs = append(cfg.keySrcs, keySource{id: secret + "/" + key, pem: pem}) }
}

// WithPublicKeyFile reads the PEM public key that an authority's
// key.secretRef {name: secret, key: key} stands for from path, in New.
func WithPublicKeyFile(secret, key, path string) Option {
	return func(cfg *config) { cfg.keySrcs = append(cfg.keySrcs, keySource{id: secret + "/" + key, path: path}) }
}

// WithKeyFunc looks up the public keys that WithPublicKey and
// WithPublicKeyFile did not give.
func WithKeyFunc(fn KeyFunc) Option {
	return func(cfg *config) { cfg.keyFunc = fn }
}

// WithTrustedRootFile sets the Sigstore trusted root (trusted_root.json:
// Fulcio certificate authorities, Rekor logs, CT logs, timestamp
// authorities) that keyless authorities verify against, read from path
// and parsed in New. Nothing is fetched: verification works offline.
// Without a trusted root, a keyless authority fails with ErrPolicy. Of the
// trusted-root options (this one and WithTrustedMaterial), the last one
// given applies.
func WithTrustedRootFile(path string) Option {
	return func(cfg *config) { cfg.trust = trustSource{path: path} }
}

// WithTrustedMaterial sets the trusted material of keyless authorities
// directly (a sigstore-go root.TrustedRoot, or a test's virtual Sigstore).
func WithTrustedMaterial(tm root.TrustedMaterial) Option {
	return func(cfg *config) { cfg.trust = trustSource{tm: tm} }
}

// WithLimits sets the limits (zero fields: defaults).
func WithLimits(l Limits) Option {
	return func(cfg *config) { cfg.limits = l }
}

// resolve reads the key files and the trusted root the options named, in
// the order they were given.
func (cfg *config) resolve() error {
	for _, k := range cfg.keySrcs {
		pem := k.pem
		if k.path != "" {
			b, err := readBounded(k.path, 1<<20)
			if err != nil {
				return fmt.Errorf("%w: public key %s: %w", ErrPolicy, safetext.QuotePath(k.path), err)
			}
			pem = b
		}
		if cfg.keys == nil {
			cfg.keys = map[string][]byte{}
		}
		cfg.keys[k.id] = pem
	}
	t := cfg.trust
	switch {
	case t.tm != nil:
		cfg.trusted = t.tm
	case t.path != "":
		b, err := readBounded(t.path, 16<<20)
		if err != nil {
			return fmt.Errorf("%w: trusted root %s: %w", ErrPolicy, safetext.QuotePath(t.path), err)
		}
		tr, err := root.NewTrustedRootFromJSON(b)
		if err != nil {
			return fmt.Errorf("%w: trusted root: %s", ErrPolicy, safetext.Reason(err))
		}
		cfg.trusted = tr
	}
	return nil
}

// readBounded reads a key or trusted-root file through the file layer: a
// regular file (never a FIFO or a device, which would block or never end),
// no link followed at its name, at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	return safefile.Read(context.Background(), path, limit)
}

// Verifier verifies package signatures against ImageConfig verification
// policies. It is safe for concurrent use.
type Verifier struct {
	cfg config

	mu      sync.Mutex
	pubKeys map[string]signature.Verifier // by "secret/key/hash"
}

// New returns a Verifier. Options: WithClient, WithPublicKey,
// WithPublicKeyFile, WithKeyFunc,
// WithTrustedRootFile, WithTrustedMaterial, WithLimits. Errors wrap
// ErrPolicy.
func New(opts ...Option) (*Verifier, error) {
	v := &Verifier{pubKeys: map[string]signature.Verifier{}}
	for _, o := range opts {
		if o != nil {
			o(&v.cfg)
		}
	}
	if err := v.cfg.resolve(); err != nil {
		return nil, err
	}
	v.cfg.limits = v.cfg.limits.withDefaults()
	if v.cfg.client == nil {
		c, err := remote.New()
		if err != nil {
			return nil, err
		}
		v.cfg.client = c
	}
	return v, nil
}

// Result is a successful verification.
type Result struct {
	// Reference is the reference as given.
	Reference string
	// Repository is the repository's name, "host[:port]/path".
	Repository string
	// Descriptor is what the reference resolved to; every read of the
	// verification was pinned to its digest, and so should every later
	// read of the package be (PinnedReference).
	Descriptor ocispec.Descriptor
	// ImageConfig is the name of the ImageConfig whose verification was
	// applied (VerifyWithSet); "" for Verify.
	ImageConfig string
	// Authority is the name of the authority that verified.
	Authority string
	// Signatures are the signatures that verified for Authority.
	Signatures []Signature
}

// PinnedReference returns "repository@digest", the reference every later
// read of the verified package must use.
func (r *Result) PinnedReference() string { return r.Repository + "@" + r.Descriptor.Digest.String() }

// Signature is one verified signature or attestation.
type Signature struct {
	// Format is "bundle" (a cosign v3 bundle referrer) or "legacy" (a
	// layer of the "sha256-<hex>.sig" manifest).
	Format string
	// Source says where it is: "referrer sha256:..." or
	// "sha256-<hex>.sig layer N".
	Source string
	// PredicateType is the in-toto predicate type of a bundle's
	// statement ("" for a legacy signature).
	PredicateType string
	// Subject and Issuer are the certificate's identity (keyless); empty
	// for a key.
	Subject, Issuer string
}

// Verify verifies the package at ref ("host/repo:tag" or "...@sha256:...")
// against policy (an ImageConfig's spec.verification): ref is resolved
// once to a digest and every later read is pinned to it; the signatures
// attached to that digest (cosign v3 bundle referrers, through the
// referrers API or its tag fallback, and the legacy "sha256-<hex>.sig"
// manifest) are read within the Limits; the package verifies when one
// authority, in order, verifies: a key authority by a signature made with
// its key; a keyless one by a signature whose certificate chains to the
// trusted root and names one of its identities; an authority with
// attestations by verified attestations of every predicate type it lists
// (its signatures are then not required, as in Crossplane). A failure is
// an *Error.
func (v *Verifier) Verify(ctx context.Context, ref string, policy *imageconfig.Verification) (*Result, error) {
	fail := func(d digest.Digest, class, err error) (*Result, error) {
		return nil, &Error{Reference: ref, Digest: d, Class: class, Err: err}
	}
	auths, err := v.authorities(ctx, policy)
	if err != nil {
		return fail("", ErrPolicy, err)
	}
	parsed, err := oci.ParseReference(ref)
	if err != nil {
		return fail("", ErrPolicy, err)
	}
	name, reference := parsed.Name(), parsed.Digest
	if reference == "" {
		reference = parsed.Tag
	}
	if reference == "" {
		return fail("", ErrPolicy, fmt.Errorf("%w: no tag or digest", oci.ErrInvalidReference))
	}
	repo, err := v.cfg.client.Repository(name)
	if err != nil {
		return fail("", ErrPolicy, err)
	}
	desc, err := repo.Resolve(ctx, reference)
	if errors.Is(err, oci.ErrDigestMismatch) {
		return fail("", ErrSubjectMismatch, err) // the registry answered another digest
	}
	if err != nil {
		return fail("", nil, err)
	}
	if d, perr := digest.Parse(reference); perr == nil && d != desc.Digest {
		return fail(desc.Digest, ErrSubjectMismatch, fmt.Errorf("the registry resolved %s to %s", d, desc.Digest))
	}
	wantAtt := false
	for _, a := range auths {
		wantAtt = wantAtt || len(a.attestations) > 0
	}
	sigs, err := v.collect(ctx, repo, desc, wantAtt)
	if err != nil {
		return fail(desc.Digest, nil, err)
	}
	if len(sigs) == 0 {
		return fail(desc.Digest, ErrNoSignature, nil)
	}
	e := &Error{Reference: ref, Digest: desc.Digest, Class: ErrNoMatchingAuthority}
	for _, a := range auths {
		if err := ctx.Err(); err != nil {
			return fail(desc.Digest, nil, err)
		}
		ok, failures := v.verifyAuthority(ctx, a, sigs, desc.Digest)
		if ok != nil {
			return &Result{Reference: ref, Repository: name, Descriptor: desc, Authority: a.name, Signatures: ok}, nil
		}
		for _, f := range failures {
			if len(e.Failures) < v.cfg.limits.MaxFailures {
				e.Failures = append(e.Failures, f)
			}
		}
	}
	return nil, e
}

// VerifyWithSet verifies ref against the verification that set selects
// for it (imageconfig.Set.VerificationFor; ref is the reference after any
// rewrite). applied is false, and nothing is fetched, when no ImageConfig
// states a verification for ref.
func (v *Verifier) VerifyWithSet(ctx context.Context, ref string, set *imageconfig.Set) (res *Result, applied bool, err error) {
	pol, icName, ok := set.VerificationFor(ref)
	if !ok {
		return nil, false, nil
	}
	res, err = v.Verify(ctx, ref, pol)
	if err != nil {
		return nil, true, err
	}
	res.ImageConfig = icName
	return res, true, nil
}

// authority is a policy authority ready to verify.
type authority struct {
	name         string
	verifier     *sgverify.Verifier
	keyed        bool
	identities   sgverify.CertificateIdentities
	attestations []string // predicate types
}

// authorities prepares the policy's authorities.
func (v *Verifier) authorities(ctx context.Context, p *imageconfig.Verification) ([]authority, error) {
	if p == nil {
		return nil, errors.New("no verification policy")
	}
	if p.Provider != "" && p.Provider != "Cosign" {
		return nil, fmt.Errorf("unsupported provider %s", safetext.Quote(p.Provider))
	}
	if p.Cosign == nil || len(p.Cosign.Authorities) == 0 {
		return nil, errors.New("no cosign authorities")
	}
	var out []authority
	for i, a := range p.Cosign.Authorities {
		an := cmp.Or(a.Name, fmt.Sprintf("authorities[%d]", i))
		au := authority{name: an}
		for _, att := range a.Attestations {
			if att.PredicateType == "" {
				return nil, fmt.Errorf("authority %s: attestation %s has no predicateType", safetext.Quote(an), safetext.Quote(att.Name))
			}
			au.attestations = append(au.attestations, att.PredicateType)
		}
		switch {
		case a.Key != nil && a.Keyless != nil:
			return nil, fmt.Errorf("authority %s: both key and keyless", safetext.Quote(an))
		case a.Key != nil:
			sv, err := v.publicKey(ctx, a.Key)
			if err != nil {
				return nil, fmt.Errorf("authority %s: %w", safetext.Quote(an), err)
			}
			tm := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
				return &anyTimeKey{sv}, nil
			})
			ver, err := sgverify.NewVerifier(tm, sgverify.WithNoObserverTimestamps())
			if err != nil {
				return nil, fmt.Errorf("authority %s: %s", safetext.Quote(an), safetext.Reason(err))
			}
			au.verifier, au.keyed = ver, true
		case a.Keyless != nil:
			if v.cfg.trusted == nil {
				return nil, fmt.Errorf("authority %s: keyless verification needs a trusted root (WithTrustedRootFile)", safetext.Quote(an))
			}
			if len(a.Keyless.Identities) == 0 {
				return nil, fmt.Errorf("authority %s: keyless without identities", safetext.Quote(an))
			}
			for j, id := range a.Keyless.Identities {
				ci, err := identity(id)
				if err != nil {
					return nil, fmt.Errorf("authority %s: identities[%d]: %s", safetext.Quote(an), j, safetext.Reason(err))
				}
				au.identities = append(au.identities, ci)
			}
			vopts := []sgverify.VerifierOption{sgverify.WithTransparencyLog(1), sgverify.WithObserverTimestamps(1)}
			if !a.Keyless.InsecureIgnoreSCT {
				vopts = append(vopts, sgverify.WithSignedCertificateTimestamps(1))
			}
			ver, err := sgverify.NewVerifier(v.cfg.trusted, vopts...)
			if err != nil {
				return nil, fmt.Errorf("authority %s: %s", safetext.Quote(an), safetext.Reason(err))
			}
			au.verifier = ver
		default:
			return nil, fmt.Errorf("authority %s: neither key nor keyless", safetext.Quote(an))
		}
		out = append(out, au)
	}
	return out, nil
}

// identity maps an ImageConfig identity: a regular expression takes
// precedence over the exact value (Crossplane's API doc), and an empty
// field matches anything.
func identity(id imageconfig.Identity) (sgverify.CertificateIdentity, error) {
	issuer, issuerRE := id.Issuer, id.IssuerRegExp
	if issuerRE != "" {
		issuer = ""
	}
	subject, subjectRE := id.Subject, id.SubjectRegExp
	if subjectRE != "" {
		subject = ""
	}
	if issuer == "" && issuerRE == "" && subject == "" && subjectRE == "" {
		return sgverify.CertificateIdentity{}, errors.New("an identity with neither issuer nor subject matches any certificate")
	}
	return sgverify.NewShortCertificateIdentity(issuer, issuerRE, subject, subjectRE)
}

// publicKey returns the verifier of a key authority's public key.
func (v *Verifier) publicKey(ctx context.Context, k *imageconfig.KeyRef) (signature.Verifier, error) {
	h, err := hashAlgorithm(k.HashAlgorithm)
	if err != nil {
		return nil, err
	}
	id := k.SecretRef.Name + "/" + k.SecretRef.Key
	v.mu.Lock()
	sv, ok := v.pubKeys[id+"/"+k.HashAlgorithm]
	v.mu.Unlock()
	if ok {
		return sv, nil
	}
	pemData, ok := v.cfg.keys[id]
	if !ok {
		if v.cfg.keyFunc == nil {
			return nil, fmt.Errorf("no public key for secret %s key %s (WithPublicKey, WithPublicKeyFile, WithKeyFunc)", safetext.Quote(k.SecretRef.Name), safetext.Quote(k.SecretRef.Key))
		}
		pemData, err = v.cfg.keyFunc(ctx, k.SecretRef.Name, k.SecretRef.Key)
		if err != nil {
			return nil, err
		}
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(pemData)
	if err != nil || pub == nil {
		return nil, fmt.Errorf("secret %s key %s: not a PEM public key", safetext.Quote(k.SecretRef.Name), safetext.Quote(k.SecretRef.Key))
	}
	sv, err = signature.LoadVerifier(pub, h)
	if err != nil {
		return nil, fmt.Errorf("secret %s key %s: %s", safetext.Quote(k.SecretRef.Name), safetext.Quote(k.SecretRef.Key), safetext.Reason(err))
	}
	v.mu.Lock()
	v.pubKeys[id+"/"+k.HashAlgorithm] = sv
	v.mu.Unlock()
	return sv, nil
}

// hashAlgorithm maps key.hashAlgorithm (default sha256), as Crossplane
// does.
func hashAlgorithm(s string) (crypto.Hash, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "sha256":
		return crypto.SHA256, nil
	case "sha224":
		return crypto.SHA224, nil
	case "sha384":
		return crypto.SHA384, nil
	case "sha512":
		return crypto.SHA512, nil
	}
	return 0, fmt.Errorf("unsupported hashAlgorithm %s", safetext.Quote(s))
}

// anyTimeKey is a long-lived key: valid at any time, as cosign treats a
// key given on its command line.
type anyTimeKey struct{ signature.Verifier }

func (anyTimeKey) ValidAtTime(time.Time) bool { return true }

// verifyAuthority checks the signatures for one authority: the verified
// signatures when it is satisfied, else why each signature failed.
func (v *Verifier) verifyAuthority(ctx context.Context, a authority, sigs []*candidate, want digest.Digest) ([]Signature, []*Failure) {
	var ok []Signature
	var failures []*Failure
	found := map[string]bool{}
	for _, c := range sigs {
		if ctx.Err() != nil {
			failures = append(failures, &Failure{Authority: a.name, Err: ctx.Err()})
			return nil, failures
		}
		if c.err != nil {
			failures = append(failures, &Failure{Authority: a.name, Source: c.source, Err: c.err})
			continue
		}
		s, err := v.verifyOne(a, c, want)
		if err != nil {
			failures = append(failures, &Failure{Authority: a.name, Source: c.source, Err: err})
			continue
		}
		if len(a.attestations) == 0 {
			if s.PredicateType == "" || s.PredicateType == cosignSignPredicateType {
				ok = append(ok, s)
			}
			continue
		}
		found[s.PredicateType] = true
		ok = append(ok, s)
	}
	if len(a.attestations) == 0 {
		if len(ok) > 0 {
			return ok, nil
		}
		return nil, failures
	}
	var missing []string
	for _, pt := range a.attestations {
		if !found[pt] {
			missing = append(missing, pt)
		}
	}
	if len(missing) == 0 {
		return ok, nil
	}
	failures = append(failures, &Failure{Authority: a.name, Err: classed(ErrMissingAttestation, "no verified attestation of predicate type %s", strings.Join(missing, ", "))})
	return nil, failures
}

// verifyOne verifies one signature for one authority, and classifies its
// failure.
func (v *Verifier) verifyOne(a authority, c *candidate, want digest.Digest) (Signature, error) {
	var artifact sgverify.ArtifactPolicyOption
	switch {
	case c.payload != nil:
		artifact = sgverify.WithArtifact(bytesReader(c.payload))
	case c.dsse:
		artifact = sgverify.WithoutArtifactUnsafe()
	default:
		// A message-signature bundle signs the manifest's bytes: its
		// digest must be the package's.
		b, _ := hex.DecodeString(want.Encoded())
		artifact = sgverify.WithArtifactDigest(want.Algorithm().String(), b)
	}
	var pol sgverify.PolicyBuilder
	if a.keyed {
		pol = sgverify.NewPolicy(artifact, sgverify.WithKey())
	} else {
		pol = sgverify.NewPolicy(artifact, sgverify.WithoutIdentitiesUnsafe())
	}
	res, err := a.verifier.Verify(c.entity, pol)
	if err != nil {
		err = classifyVerify(err, a.keyed, c)
		if errors.Is(err, ErrUntrustedRoot) {
			if vc, verr := c.entity.VerificationContent(); verr == nil && vc.Certificate() != nil {
				cert := vc.Certificate()
				err = fmt.Errorf("%w (the certificate is valid from %s to %s)", err, cert.NotBefore.UTC().Format(time.RFC3339), cert.NotAfter.UTC().Format(time.RFC3339))
			}
		}
		return Signature{}, err
	}
	s := Signature{Format: c.format, Source: c.source}
	if !a.keyed {
		if res.Signature == nil || res.Signature.Certificate == nil {
			return Signature{}, classed(ErrInvalidSignature, "not signed with a certificate")
		}
		cert := res.Signature.Certificate
		s.Subject, s.Issuer = cert.SubjectAlternativeName, cert.Issuer
		if _, err := a.identities.Verify(*cert); err != nil {
			return Signature{}, classed(ErrIdentityMismatch, "certificate subject %s issuer %s", safetext.Quote(s.Subject), safetext.Quote(s.Issuer))
		}
	}
	// The signature is genuine; is it for this digest?
	switch {
	case c.payload != nil:
		got, err := simpleSigningDigest(c.payload)
		if err != nil {
			return Signature{}, err
		}
		if got != want {
			return Signature{}, classed(ErrSubjectMismatch, "signs %s, not %s", got, want)
		}
	case c.dsse:
		if res.Statement == nil {
			return Signature{}, classed(ErrMalformedSignature, "DSSE envelope without an in-toto statement")
		}
		s.PredicateType = res.Statement.GetPredicateType()
		match := false
		for _, sub := range res.Statement.GetSubject() {
			if sub.GetDigest()[want.Algorithm().String()] == want.Encoded() {
				match = true
				break
			}
		}
		if !match {
			return Signature{}, classed(ErrSubjectMismatch, "the statement's subjects are not %s", want)
		}
	}
	return s, nil
}

// classifyVerify maps a sigstore-go verification error onto a class.
// sigstore-go's errors are text, so the class is read from the step that
// failed.
func classifyVerify(err error, keyed bool, c *candidate) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "failed to verify leaf certificate"),
		strings.Contains(msg, "failed to verify log inclusion"),
		strings.Contains(msg, "failed to verify timestamps"),
		strings.Contains(msg, "failed to verify signed certificate timestamp"):
		return classed(ErrUntrustedRoot, "%s", msg)
	case keyed && strings.Contains(msg, "expected key signature, not certificate"):
		return classed(ErrInvalidSignature, "signed with a certificate, not the authority's key")
	case !keyed && !c.cert && strings.Contains(msg, "must provide timestamp"):
		return classed(ErrInvalidSignature, "%s", msg)
	case strings.Contains(msg, "artifact") && strings.Contains(msg, "digest"):
		return classed(ErrSubjectMismatch, "%s", msg)
	}
	return classed(ErrInvalidSignature, "%s", msg)
}
