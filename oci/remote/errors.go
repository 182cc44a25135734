package remote

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/oci"
)

// Classes of registry errors; test with errors.Is. A registry's "not found"
// (an unknown tag, manifest, blob or repository) matches oci.ErrNotFound; a
// string that is no reference with a registry host, oci.ErrInvalidReference.
var (
	// ErrUnauthorized: the registry asked for credentials (HTTP 401) and
	// none were given, or those given were refused. The message names the
	// registry and says how to log in.
	ErrUnauthorized = errors.New("registry requires authentication")
	// ErrDenied: the credentials were accepted but do not allow the
	// operation (HTTP 403).
	ErrDenied = errors.New("registry denied access")
	// ErrOffline: the client is offline (WithOffline) and the cache does not
	// hold what was asked for.
	ErrOffline = errors.New("offline and not in the cache")
	// ErrUnavailable: the registry kept answering HTTP 429 or 5xx, or
	// could not be reached, after the client's retries; or it did earlier,
	// and the client does not ask it again.
	ErrUnavailable = errors.New("registry unavailable")
	// ErrCredentials: the credentials for a registry could not be read
	// (a malformed Docker config entry, a failing credential helper). The
	// message never quotes the credentials.
	ErrCredentials = errors.New("cannot read registry credentials")
)

// Error is the error of a registry operation: what was done, to which
// registry and repository, with which reference, and why. Err wraps the
// cause: one of this package's sentinels, oci.ErrNotFound, a context error,
// or the registry's own error response.
type Error struct {
	// Op is the operation: "resolve", "fetch", "tags", "push", "tag".
	Op string
	// Registry is the registry host, with its port if any.
	Registry string
	// Repository is the repository path inside the registry.
	Repository string
	// Reference is the tag or digest concerned; empty when there is none.
	Reference string
	// Err is the cause.
	Err error

	redact []string // credentials the client sent, never shown
}

// maxMessageRunes bounds the cause's text in Error.
const maxMessageRunes = 1024

// Error implements error. The text is safe to print: the cause's text (a
// registry's or a token service's message among it) has its control
// characters escaped and is cut to a bounded length, and any credential
// the client sent is replaced by "[redacted]".
func (e *Error) Error() string {
	name := e.Registry + "/" + e.Repository
	if e.Reference != "" {
		name += refSep(e.Reference) + e.Reference
	}
	cause := "<nil>"
	if e.Err != nil {
		cause = e.Err.Error()
	}
	return e.clean("remote: " + e.Op + " " + truncate(name) + ": " + cause)
}

// clean redacts credentials from s, escapes it and bounds it.
func (e *Error) clean(s string) string {
	for _, secret := range e.redact {
		s = strings.ReplaceAll(s, secret, "[redacted]")
	}
	s, cut := safetext.Truncate(safetext.Escape(s), maxMessageRunes)
	if cut {
		s += safetext.Ellipsis
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// classify maps oras-go's errors onto this package's classes, keeping the
// original in the chain.
func classify(registry string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, errdef.ErrNotFound) {
		return fmt.Errorf("%w: %w", oci.ErrNotFound, err)
	}
	if errors.Is(err, auth.ErrBasicCredentialNotFound) {
		return unauthorized(registry, err)
	}
	if strings.Contains(err.Error(), "invalid response; digest mismatch in Docker-Content-Digest") {
		// oras-go (v2.7.0, registry/remote/repository.go) checks the
		// digest a registry answers for a digest reference, and says so
		// in text only.
		return fmt.Errorf("%w: %w", oci.ErrDigestMismatch, err)
	}
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) {
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			return unauthorized(registry, err)
		case http.StatusForbidden:
			return fmt.Errorf("%w: %s answered 403: %w", ErrDenied, registry, err)
		case http.StatusNotFound:
			return fmt.Errorf("%w: %w", oci.ErrNotFound, err)
		case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
	}
	return err
}

// unauthorized says which registry refused, and how to log in.
func unauthorized(registry string, err error) error {
	return fmt.Errorf("%w: %s asks for credentials (log in with `docker login %s`, or give a Docker config file or a credential function): %w", ErrUnauthorized, registry, registry, err)
}

// stripURLs removes the query and user parts of the URLs err's chain
// carries (a redirect to a signed URL holds a signature in its query), so
// that its text quotes no credential.
func stripURLs(err error) {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			ue.URL = bareURL(u).String()
		} else {
			ue.URL = "(unparsable URL)"
		}
	}
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) && resp.URL != nil {
		resp.URL = bareURL(resp.URL)
	}
}

func bareURL(u *url.URL) *url.URL {
	return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
}
