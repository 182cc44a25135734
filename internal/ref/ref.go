package ref

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Limits from the OCI distribution specification's reference grammar.
const (
	// MaxNameLength is the longest registry/repository name accepted.
	MaxNameLength = 255
	// MaxTagLength is the longest tag accepted.
	MaxTagLength = 128
)

// Sentinel errors classifying why a reference or version is rejected. The
// errors returned by this package wrap one of them.
var (
	// ErrInvalid says a string is not a valid image reference.
	ErrInvalid = errors.New("invalid image reference")
	// ErrNoRegistry says a reference names no registry host.
	ErrNoRegistry = errors.New("reference names no registry host")
	// ErrHasTag says a reference carries a tag where none is allowed.
	ErrHasTag = errors.New("reference carries a tag")
	// ErrHasDigest says a reference carries a digest where none is allowed.
	ErrHasDigest = errors.New("reference carries a digest")
	// ErrInvalidVersion says a dependency version is neither a semver
	// constraint nor a digest.
	ErrInvalidVersion = errors.New("invalid dependency version")
)

// Reference is a parsed image reference.
type Reference struct {
	// Registry is the registry host, with its port if any; empty when the
	// reference names none.
	Registry string
	// Repository is the path inside the registry, e.g. "crossplane/provider-aws".
	Repository string
	// Tag is the tag, without its ':'; empty when there is none.
	Tag string
	// Digest is the digest, "algorithm:hex"; empty when there is none.
	Digest string
}

// Name returns the registry and repository, joined by '/' when there is a
// registry.
func (r Reference) Name() string {
	if r.Registry == "" {
		return r.Repository
	}
	return r.Registry + "/" + r.Repository
}

// String returns the reference in its canonical text form.
func (r Reference) String() string {
	s := r.Name()
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}

// Parse parses s as an image reference. It never assumes a default registry
// or tag: Registry, Tag and Digest are empty when s does not give them. The
// error wraps ErrInvalid.
func Parse(s string) (Reference, error) {
	var r Reference
	if s == "" {
		return r, fmt.Errorf("%w: empty", ErrInvalid)
	}
	name := s
	if i := strings.IndexByte(name, '@'); i >= 0 {
		r.Digest = name[i+1:]
		name = name[:i]
		if err := checkDigest(r.Digest); err != nil {
			return Reference{}, fmt.Errorf("%w %q: %v", ErrInvalid, s, err)
		}
	}
	// A tag follows the last ':' that comes after the last '/': a ':'
	// before it belongs to the registry's port.
	if i := strings.LastIndexByte(name, ':'); i >= 0 && i > strings.LastIndexByte(name, '/') {
		r.Tag = name[i+1:]
		name = name[:i]
		if !validTag(r.Tag) {
			return Reference{}, fmt.Errorf("%w %q: bad tag %q", ErrInvalid, s, r.Tag)
		}
	}
	if len(name) > MaxNameLength {
		return Reference{}, fmt.Errorf("%w %q: name longer than %d characters", ErrInvalid, s, MaxNameLength)
	}
	repo := name
	if i := strings.IndexByte(name, '/'); i >= 0 && isRegistry(name[:i]) {
		r.Registry = name[:i]
		repo = name[i+1:]
		if !validRegistry(r.Registry) {
			return Reference{}, fmt.Errorf("%w %q: bad registry host %q", ErrInvalid, s, r.Registry)
		}
	}
	if repo == "" {
		return Reference{}, fmt.Errorf("%w %q: no repository", ErrInvalid, s)
	}
	for _, c := range strings.Split(repo, "/") {
		if !validComponent(c) {
			return Reference{}, fmt.Errorf("%w %q: bad repository component %q (lower-case letters, digits and separators '.', '_', '__', '-')", ErrInvalid, s, c)
		}
	}
	r.Repository = repo
	return r, nil
}

// isRegistry reports whether the first component of a name is a registry
// host: it has a '.' or a ':', or is "localhost".
func isRegistry(c string) bool {
	return strings.ContainsAny(c, ".:") || c == "localhost"
}

// validRegistry checks a registry host[:port] as Crossplane does: its
// references are parsed by go-containerregistry (name.ParseReference,
// NewRegistry), which takes as a registry any valid RFC 3986 URI authority,
// host[:port] where the host is a reg-name (letters in either case,
// digits, '-', '.', '_', '~' and the sub-delims), an IPv4 address or a
// bracketed IPv6 address: the authority of "//"+h must parse as h. So
// my_registry.example.com is a registry. (Crossplane v2's Package CRDs
// further want a dotted host: XP303 checks that at a v2 target.)
func validRegistry(h string) bool {
	u, err := url.Parse("//" + h)
	return err == nil && u.Host == h && u.User == nil
}

// validComponent checks [a-z0-9]+ ((\.|_|__|-+)[a-z0-9]+)*.
func validComponent(c string) bool {
	if c == "" || !isLowerAlnum(c[0]) || !isLowerAlnum(c[len(c)-1]) {
		return false
	}
	for i := 0; i < len(c); {
		if isLowerAlnum(c[i]) {
			i++
			continue
		}
		j := i
		for j < len(c) && !isLowerAlnum(c[j]) {
			j++
		}
		sep := c[i:j]
		switch {
		case sep == "." || sep == "_" || sep == "__":
		case strings.Trim(sep, "-") == "":
		default:
			return false
		}
		i = j
	}
	return true
}

// validTag checks [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}.
func validTag(t string) bool {
	if t == "" || len(t) > MaxTagLength || t[0] == '.' || t[0] == '-' {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(isLowerAlnum(c) || 'A' <= c && c <= 'Z' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// checkDigest checks algorithm:encoded, with the encodings of sha256 and
// sha512 checked exactly and other algorithms by the general grammar.
func checkDigest(d string) error {
	alg, enc, ok := strings.Cut(d, ":")
	if !ok || alg == "" || enc == "" {
		return fmt.Errorf("bad digest %q: want algorithm:hex", d)
	}
	want := 0
	switch alg {
	case "sha256":
		want = 64
	case "sha512":
		want = 128
	}
	if want > 0 {
		if len(enc) != want || !isLowerHex(enc) {
			return fmt.Errorf("bad digest %q: %s needs %d lower-case hex digits", d, alg, want)
		}
		return nil
	}
	for i := 0; i < len(alg); i++ {
		c := alg[i]
		if !(isLowerAlnum(c) || c == '+' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("bad digest algorithm %q", alg)
		}
	}
	for i := 0; i < len(enc); i++ {
		c := enc[i]
		if !(isLowerAlnum(c) || 'A' <= c && c <= 'Z' || c == '=' || c == '_' || c == '-') {
			return fmt.Errorf("bad digest encoding in %q", d)
		}
	}
	return nil
}

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
