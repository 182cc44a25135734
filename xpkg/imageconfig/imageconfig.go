// Package imageconfig reads Crossplane's ImageConfig objects
// (pkg.crossplane.io/v1beta1) as data, outside a cluster, and answers the
// questions Crossplane's package manager asks of them: which reference an
// image is pulled from (spec.rewriteImage), which pull secret it is pulled
// with (spec.registry.authentication), and which verification an image is
// subject to (spec.verification).
//
// The semantics are those of Crossplane v2.3 (crossplane-runtime
// pkg/xpkg/config.go, ImageConfigStore.bestMatch and RewritePath, at
// v2.3.3, which Crossplane v2.3.4 uses):
//
//   - For each purpose, only the ImageConfigs that serve it are candidates:
//     rewriteImage set for a rewrite; a non-empty
//     registry.authentication.pullSecretRef.name for a pull secret;
//     verification set for verification.
//   - Among the candidates, the one with the longest matchImages prefix
//     that is a plain string prefix of the whole reference (tag or digest
//     included) wins. An empty prefix never matches (Crossplane keeps only
//     strictly longer matches, starting from length 0).
//   - A rewrite replaces the longest matching prefix of the winning
//     ImageConfig by rewriteImage.prefix.
//   - Ties between ImageConfigs: Crossplane's API says "an arbitrary one
//     will be selected". Its code keeps the first one listed, and it lists
//     through the controller manager's cached client (Crossplane v2.3.4
//     cmd/crossplane/core/core.go, mgr.GetClient()), whose order is not
//     defined, so a cluster may pick either. xpkgkit keeps the first by
//     metadata.name (the order in which the API server itself lists
//     cluster-scoped objects), so its answer is deterministic.
//
// Verification is parsed and exposed (VerificationFor); package xpkg/verify
// enforces it (checks signatures), for the programs that import it.
//
// Pull secrets live in a cluster, so a Set cannot read them: Credentials
// maps an ImageConfig's secret name to a credential through a function the
// caller supplies.
//
// Reading is bounded (Limits): bytes and documents per stream, ImageConfigs
// per Set, matchImages entries per ImageConfig and the length of a prefix.
// Errors are *Error values with a file:line position, wrapping ErrInvalid or
// a *limit.Error (it matches limit.ErrExceeded). No input makes this package
// panic.
package imageconfig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/parser"
)

// The group, version and kind of the objects this package reads.
const (
	imageConfigGroup = "pkg.crossplane.io"
	version          = "v1beta1"
	apiVersion       = imageConfigGroup + "/" + version
	kind             = "ImageConfig"
)

// Classes of errors; test with errors.Is.
var (
	// ErrInvalid: an ImageConfig the API server would reject, or that
	// Crossplane cannot use (a rewriteImage with an empty prefix).
	ErrInvalid = errors.New("imageconfig: invalid ImageConfig")
)

// Error is an error about one document of an input, with its position.
type Error struct {
	// Pos is where the document (or the stream, for a read error) is.
	Pos parser.Position
	// Field is the field at fault ("spec.matchImages[2].prefix"), or "".
	Field string
	// Msg says what is wrong.
	Msg string
	// Err is ErrInvalid, a *limit.Error naming the limit of Limits exceeded
	// (or of the parser's, for a document over its default size), or an
	// underlying error.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	pos := posString(e.Pos)
	if e.Field != "" {
		return fmt.Sprintf("imageconfig: %s: %s: %s", pos, e.Field, e.Msg)
	}
	return fmt.Sprintf("imageconfig: %s: %s", pos, e.Msg)
}

// posString formats p as file:line (or "line N" for an unnamed stream).
func posString(p parser.Position) string {
	if p.File != "" {
		return fmt.Sprintf("%s:%d", safetext.Token(p.File), p.Line)
	}
	return fmt.Sprintf("line %d", p.Line)
}

// Unwrap returns the class of the error.
func (e *Error) Unwrap() error { return e.Err }

// Limits bound what a Set reads.
// They follow the convention of package limit: a zero field means its
// default (DefaultLimits), so that a partly filled Limits never lifts the
// limits it does not mention; limit.Unlimited (any negative value) means no
// limit. A limit exceeded is a *limit.Error naming the field (it matches
// limit.ErrExceeded).
type Limits struct {
	// MaxBytes bounds the bytes read, over all the streams of a ParseAll
	// (default 4 MiB).
	MaxBytes int64
	// MaxDocuments bounds the documents of one stream, ImageConfigs or not
	// (default 10 000).
	MaxDocuments int
	// MaxConfigs bounds the ImageConfigs of a Set (default 1 000).
	MaxConfigs int
	// MaxMatchImages bounds the matchImages entries of one ImageConfig
	// (default 100).
	MaxMatchImages int
	// MaxPrefixBytes bounds a matchImages or rewriteImage prefix (default
	// 1 024; a full reference is at most a few hundred bytes).
	MaxPrefixBytes int64
}

// DefaultLimits returns the default Limits.
func DefaultLimits() Limits {
	return Limits{MaxBytes: 4 << 20, MaxDocuments: 10000, MaxConfigs: 1000, MaxMatchImages: 100, MaxPrefixBytes: 1024}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	l.MaxBytes = limitval.Or(l.MaxBytes, d.MaxBytes)
	l.MaxDocuments = limitval.Or(l.MaxDocuments, d.MaxDocuments)
	l.MaxConfigs = limitval.Or(l.MaxConfigs, d.MaxConfigs)
	l.MaxMatchImages = limitval.Or(l.MaxMatchImages, d.MaxMatchImages)
	l.MaxPrefixBytes = limitval.Or(l.MaxPrefixBytes, d.MaxPrefixBytes)
	return l
}

// imageConfig is one ImageConfig object.
type imageConfig struct {
	// Name is metadata.name.
	Name string
	// Pos is where the object's document starts.
	Pos parser.Position
	// MatchImages are spec.matchImages, in file order.
	MatchImages []match
	// RewritePrefix is spec.rewriteImage.prefix; "" when the object has no
	// rewriteImage.
	RewritePrefix string
	// PullSecret is spec.registry.authentication.pullSecretRef.name; ""
	// when there is none.
	PullSecret string
	// Verification is spec.verification; nil when there is none
	// (enforced by package xpkg/verify).
	Verification *Verification
	// RuntimeConfig is spec.runtime.configRef; nil when there is none.
	RuntimeConfig *runtimeConfigRef
}

// match is one spec.matchImages entry.
type match struct {
	// Type is the match type; only "Prefix" exists (the default).
	Type string `json:"type,omitempty"`
	// Prefix is matched against the start of a whole reference.
	Prefix string `json:"prefix"`
}

// Verification is spec.verification, as the CRD defines it.
type Verification struct {
	Provider string  `json:"provider"`
	Cosign   *Cosign `json:"cosign,omitempty"`
}

// Cosign is spec.verification.cosign.
type Cosign struct {
	Authorities []CosignAuthority `json:"authorities"`
}

// CosignAuthority is one authority: a key, or keyless identities, and the
// attestations it requires.
type CosignAuthority struct {
	Name         string        `json:"name"`
	Key          *KeyRef       `json:"key,omitempty"`
	Keyless      *Keyless      `json:"keyless,omitempty"`
	Attestations []Attestation `json:"attestations,omitempty"`
}

// KeyRef is a public key in a Secret.
type KeyRef struct {
	SecretRef     SecretKeySelector `json:"secretRef"`
	HashAlgorithm string            `json:"hashAlgorithm,omitempty"`
}

// SecretKeySelector names a key of a Secret.
type SecretKeySelector struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

// Keyless is a keyless (Fulcio) authority.
type Keyless struct {
	Identities        []Identity `json:"identities"`
	InsecureIgnoreSCT bool       `json:"insecureIgnoreSCT,omitempty"`
}

// Identity is a certificate identity: issuer and subject, exact or as
// regular expressions (which take precedence).
type Identity struct {
	Issuer        string `json:"issuer,omitempty"`
	IssuerRegExp  string `json:"issuerRegExp,omitempty"`
	Subject       string `json:"subject,omitempty"`
	SubjectRegExp string `json:"subjectRegExp,omitempty"`
}

// Attestation is an attestation an authority requires.
type Attestation struct {
	Name          string `json:"name"`
	PredicateType string `json:"predicateType"`
}

// runtimeConfigRef is spec.runtime.configRef.
type runtimeConfigRef struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name"`
}

// Set is a set of ImageConfigs, as a cluster holds them: names are unique.
// A Set is immutable once built, and safe for concurrent use.
type Set struct {
	configs []imageConfig // sorted by name
	index   [numPurposes]prefixIndex
}

// prefixIndex finds, for one purpose, the ImageConfigs whose prefix is a
// given string: a lookup costs one map access per distinct prefix length
// no longer than the reference (at most MaxPrefixBytes of them), not a
// scan of every entry of every ImageConfig.
type prefixIndex struct {
	first   map[string]int // prefix -> first ImageConfig (by name) with it
	count   map[string]int // prefix -> ImageConfigs with it
	lengths []int          // distinct prefix lengths, longest first
}

func (s *Set) buildIndex() {
	for p := range purpose(numPurposes) {
		x := prefixIndex{first: map[string]int{}, count: map[string]int{}}
		for i := range s.configs {
			c := &s.configs[i]
			if !p.valid(c) {
				continue
			}
			for j, m := range c.MatchImages {
				if m.Prefix == "" || slices.ContainsFunc(c.MatchImages[:j], func(o match) bool { return o.Prefix == m.Prefix }) {
					continue
				}
				if _, ok := x.first[m.Prefix]; !ok {
					x.first[m.Prefix] = i
					x.lengths = append(x.lengths, len(m.Prefix))
				}
				x.count[m.Prefix]++
			}
		}
		slices.Sort(x.lengths)
		x.lengths = slices.Compact(x.lengths)
		slices.Reverse(x.lengths)
		s.index[p] = x
	}
}

// configList returns the ImageConfigs of the set, sorted by name.
func (s *Set) configList() []imageConfig {
	if s == nil {
		return nil
	}
	return slices.Clone(s.configs)
}

// Len returns the number of ImageConfigs.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.configs)
}

// Option configures ParseAll.
type Option func(*config)

type config struct {
	limits Limits
}

// WithLimits sets the limits (zero fields: defaults).
func WithLimits(l Limits) Option { return func(c *config) { c.limits = l } }

// object is the wire form.
type object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec *struct {
		MatchImages  []match `json:"matchImages"`
		RewriteImage *struct {
			Prefix string `json:"prefix"`
		} `json:"rewriteImage"`
		Registry *struct {
			Authentication *struct {
				PullSecretRef struct {
					Name string `json:"name"`
				} `json:"pullSecretRef"`
			} `json:"authentication"`
		} `json:"registry"`
		Verification *Verification `json:"verification"`
		Runtime      *struct {
			ConfigRef *runtimeConfigRef `json:"configRef"`
		} `json:"runtime"`
	} `json:"spec"`
}

// typeMeta is read first, to skip other kinds cheaply.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// Input is one named stream for ParseAll.
type Input struct {
	// Name is the stream's name in positions (a file path).
	Name string
	// Reader is the stream.
	Reader io.Reader
}

// ParseAll reads the ImageConfigs of YAML streams into one Set, as if
// their objects were applied to one cluster: a name used twice is an
// error. Documents of other kinds are skipped; an ImageConfig of another
// pkg.crossplane.io version, or one the API server would reject, is an
// error. The first error stops the read. An Input without a Name has no
// file name in positions.
func ParseAll(ctx context.Context, inputs []Input, opts ...Option) (*Set, error) {
	c := config{}
	for _, o := range opts {
		o(&c)
	}
	c.limits = c.limits.withDefaults()
	s := &Set{}
	seen := map[string]parser.Position{}
	budget := c.limits.MaxBytes
	for _, in := range inputs {
		name := in.Name
		n, err := s.read(ctx, in.Reader, name, c.limits, budget, seen)
		if err != nil {
			return nil, err
		}
		budget -= n
	}
	slices.SortFunc(s.configs, func(a, b imageConfig) int { return strings.Compare(a.Name, b.Name) })
	s.buildIndex()
	return s, nil
}

// read reads one stream within budget bytes, and returns the bytes read.
func (s *Set) read(ctx context.Context, r io.Reader, file string, l Limits, budget int64, seen map[string]parser.Position) (int64, error) {
	if budget <= 0 {
		return 0, &Error{Pos: parser.Position{File: file}, Msg: fmt.Sprintf("more than %d bytes over all inputs", l.MaxBytes), Err: &limit.Error{Limit: limitval.MaxBytes, Value: l.MaxBytes + 1, Max: l.MaxBytes}}
	}
	pl := parser.DefaultLimits()
	pl.MaxTotalBytes = budget
	pl.MaxDocuments = l.MaxDocuments
	pl.MaxDocumentBytes = min(pl.MaxDocumentBytes, budget)
	sp := parser.NewSplitter(r, parser.WithFile(file), parser.WithLimits(pl))
	err := s.readDocs(ctx, sp, l, seen)
	return sp.Offset(), err
}

// readDocs reads the documents of sp into s.
func (s *Set) readDocs(ctx context.Context, sp *parser.Splitter, l Limits, seen map[string]parser.Position) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		doc, err := sp.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			var le *limit.Error
			if errors.As(err, &le) {
				if le.Limit == limitval.MaxTotalBytes { // the budget left of MaxBytes
					msg := fmt.Sprintf("more than %d bytes over all inputs", l.MaxBytes)
					return &Error{Pos: le.Pos, Msg: msg, Err: &limit.Error{Limit: limitval.MaxBytes, Value: l.MaxBytes + 1, Max: l.MaxBytes, Pos: le.Pos}}
				}
				return &Error{Pos: le.Pos, Msg: le.Reason(), Err: le}
			}
			pos := doc.Pos
			var de *parser.DocumentError
			if errors.As(err, &de) {
				pos = de.Pos
			}
			return &Error{Pos: pos, Msg: safetext.Reason(err), Err: err}
		}
		if doc.Empty {
			continue
		}
		ic, ok, err := decode(doc, l)
		if err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		if p, dup := seen[ic.Name]; dup {
			return &Error{Pos: doc.Pos, Field: "metadata.name", Msg: fmt.Sprintf("ImageConfig %s is defined twice (first at %s)", safetext.Quote(ic.Name), posString(p)), Err: ErrInvalid}
		}
		if len(s.configs) >= l.MaxConfigs {
			return &Error{Pos: doc.Pos, Msg: fmt.Sprintf("more than %d ImageConfigs", l.MaxConfigs), Err: &limit.Error{Limit: limitval.MaxConfigs, Value: int64(l.MaxConfigs) + 1, Max: int64(l.MaxConfigs), Pos: doc.Pos}}
		}
		seen[ic.Name] = doc.Pos
		s.configs = append(s.configs, ic)
	}
}

func decode(doc parser.Document, l Limits) (imageConfig, bool, error) {
	bad := func(field, msg string, class error) (imageConfig, bool, error) {
		return imageConfig{}, false, &Error{Pos: doc.Pos, Field: field, Msg: msg, Err: class}
	}
	var tm typeMeta
	if err := sigsyaml.Unmarshal(doc.Data, &tm); err != nil {
		return bad("", "cannot parse YAML: "+safetext.Reason(err), ErrInvalid)
	}
	group, _, _ := strings.Cut(tm.APIVersion, "/")
	if tm.Kind != kind || group != imageConfigGroup {
		return imageConfig{}, false, nil
	}
	if tm.APIVersion != apiVersion {
		return bad("apiVersion", fmt.Sprintf("ImageConfig is served only at %s, not %s", apiVersion, safetext.Quote(tm.APIVersion)), ErrInvalid)
	}
	var o object
	if err := sigsyaml.Unmarshal(doc.Data, &o); err != nil {
		return bad("", "cannot decode ImageConfig: "+safetext.Reason(err), ErrInvalid)
	}
	if o.Metadata.Name == "" {
		return bad("metadata.name", "is required", ErrInvalid)
	}
	ic := imageConfig{Name: o.Metadata.Name, Pos: doc.Pos}
	if o.Spec == nil || o.Spec.MatchImages == nil {
		return bad("spec.matchImages", "is required", ErrInvalid)
	}
	if len(o.Spec.MatchImages) == 0 {
		return bad("spec.matchImages", "should have at least one element (the CRD's validation rule)", ErrInvalid)
	}
	if len(o.Spec.MatchImages) > l.MaxMatchImages {
		return bad("spec.matchImages", fmt.Sprintf("%d entries, more than %d", len(o.Spec.MatchImages), l.MaxMatchImages), limitErr(limitval.MaxMatchImages, len(o.Spec.MatchImages), l.MaxMatchImages, doc.Pos))
	}
	for i, m := range o.Spec.MatchImages {
		field := fmt.Sprintf("spec.matchImages[%d]", i)
		if m.Type == "" {
			m.Type = "Prefix"
		}
		if m.Type != "Prefix" {
			return bad(field+".type", fmt.Sprintf("unsupported value %s: only \"Prefix\"", safetext.Quote(m.Type)), ErrInvalid)
		}
		if int64(len(m.Prefix)) > l.MaxPrefixBytes {
			return bad(field+".prefix", fmt.Sprintf("%d bytes, more than %d", len(m.Prefix), l.MaxPrefixBytes), limitErr(limitval.MaxPrefixBytes, int64(len(m.Prefix)), l.MaxPrefixBytes, doc.Pos))
		}
		ic.MatchImages = append(ic.MatchImages, m)
	}
	if ri := o.Spec.RewriteImage; ri != nil {
		if ri.Prefix == "" {
			// Crossplane: RewritePath fails with "rewrite prefix is missing".
			return bad("spec.rewriteImage.prefix", "is empty: Crossplane fails every pull this ImageConfig matches (\"rewrite prefix is missing\")", ErrInvalid)
		}
		if int64(len(ri.Prefix)) > l.MaxPrefixBytes {
			return bad("spec.rewriteImage.prefix", fmt.Sprintf("%d bytes, more than %d", len(ri.Prefix), l.MaxPrefixBytes), limitErr(limitval.MaxPrefixBytes, int64(len(ri.Prefix)), l.MaxPrefixBytes, doc.Pos))
		}
		ic.RewritePrefix = ri.Prefix
	}
	if reg := o.Spec.Registry; reg != nil && reg.Authentication != nil {
		ic.PullSecret = reg.Authentication.PullSecretRef.Name
	}
	if v := o.Spec.Verification; v != nil {
		if v.Provider != "Cosign" {
			return bad("spec.verification.provider", fmt.Sprintf("unsupported value %s: only \"Cosign\"", safetext.Quote(v.Provider)), ErrInvalid)
		}
		ic.Verification = v
	}
	if rt := o.Spec.Runtime; rt != nil && rt.ConfigRef != nil {
		ic.RuntimeConfig = rt.ConfigRef
	}
	return ic, true, nil
}

// best returns the index of the ImageConfig serving purpose with the
// longest prefix of ref (the first by name among those of that length),
// the length of that prefix, and how many ImageConfigs have it; -1 when
// none matches. An empty prefix never matches.
func (s *Set) best(ref string, purpose purpose) (idx, length, ties int) {
	if s == nil || purpose < 0 || purpose >= numPurposes {
		return -1, 0, 0
	}
	x := &s.index[purpose]
	for _, l := range x.lengths {
		if l > len(ref) {
			continue
		}
		if i, ok := x.first[ref[:l]]; ok {
			return i, l, x.count[ref[:l]]
		}
	}
	return -1, 0, 0
}

// Rewrite returns the reference Crossplane pulls ref from: ref with the
// longest matching prefix of the winning ImageConfig (among those with a
// rewriteImage) replaced by its rewriteImage.prefix, and that
// ImageConfig's name. ok is false, and ref is returned as it is, when no
// ImageConfig rewrites ref.
func (s *Set) Rewrite(ref string) (rewritten, name string, ok bool) {
	i, n, _ := s.best(ref, purposeRewrite)
	if i < 0 {
		return ref, "", false
	}
	c := &s.configs[i]
	return c.RewritePrefix + ref[n:], c.Name, true
}

// PullSecretFor returns the pull secret Crossplane adds when it pulls ref
// (the reference after any rewrite), and the ImageConfig that names it.
func (s *Set) PullSecretFor(ref string) (secret, name string, ok bool) {
	i, _, _ := s.best(ref, purposePullSecret)
	if i < 0 {
		return "", "", false
	}
	return s.configs[i].PullSecret, s.configs[i].Name, true
}

// VerificationFor returns the verification Crossplane applies to ref (the
// reference after any rewrite) and the ImageConfig that states it; package
// xpkg/verify enforces it.
func (s *Set) VerificationFor(ref string) (v *Verification, name string, ok bool) {
	i, _, _ := s.best(ref, purposeVerification)
	if i < 0 {
		return nil, "", false
	}
	return s.configs[i].Verification, s.configs[i].Name, true
}

// purpose is what an ImageConfig is selected for.
type purpose int

// Purposes.
const (
	purposeRewrite purpose = iota
	purposePullSecret
	purposeVerification
	numPurposes
)

func (p purpose) valid(c *imageConfig) bool {
	switch p {
	case purposeRewrite:
		return c.RewritePrefix != ""
	case purposePullSecret:
		return c.PullSecret != ""
	case purposeVerification:
		return c.Verification != nil
	}
	return false
}

// SecretFunc returns the credential held in the pull secret secret for the
// registry host, as the caller finds it (a Docker config it exported from
// the cluster, a vault). ok false: the caller has no such secret.
type SecretFunc func(ctx context.Context, secret, host string) (cred remote.Credential, ok bool, err error)

// Credentials returns a remote.CredentialFunc that gives, for a registry
// host, the credential of the pull secret that PullSecretFor selects for
// the reference "host/" — that is, among the ImageConfigs whose prefix
// covers the whole host (such as "registry.example.com/" or "registry."),
// as a registry client asks for credentials per host and not per
// repository. When no ImageConfig names a secret for the host, or secrets
// has none, fallback answers (nil: anonymous).
func (s *Set) Credentials(secrets SecretFunc, fallback remote.CredentialFunc) remote.CredentialFunc {
	return func(ctx context.Context, host string) (remote.Credential, error) {
		if secret, _, ok := s.PullSecretFor(host + "/"); ok && secrets != nil {
			cred, found, err := secrets(ctx, secret, host)
			if err != nil {
				return remote.Credential{}, err
			}
			if found {
				return cred, nil
			}
		}
		if fallback != nil {
			return fallback(ctx, host)
		}
		return remote.Credential{}, nil
	}
}

// limitErr is the *limit.Error of a value over the limit name of value max.
func limitErr[T int | int64](name limit.Name, value, max T, pos parser.Position) *limit.Error {
	return &limit.Error{Limit: name, Value: int64(value), Max: int64(max), Pos: pos}
}
