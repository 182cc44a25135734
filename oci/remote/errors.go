package remote

import (
	"errors"
	"fmt"
	"net/http"

	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/xpkgkit/xpkgkit/oci"
)

// Classes of registry errors; test with errors.Is. A registry's "not found"
// (an unknown tag, manifest, blob or repository) matches oci.ErrNotFound.
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
	// ErrInvalidReference: the string is not a reference with a registry
	// host and a repository.
	ErrInvalidReference = errors.New("invalid registry reference")
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
}

// Error implements error.
func (e *Error) Error() string {
	name := e.Registry + "/" + e.Repository
	if e.Reference != "" {
		name += refSep(e.Reference) + e.Reference
	}
	return fmt.Sprintf("remote: %s %s: %v", e.Op, truncate(name), e.Err)
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
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) {
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			return unauthorized(registry, err)
		case http.StatusForbidden:
			return fmt.Errorf("%w: %s answered 403: %w", ErrDenied, registry, err)
		case http.StatusNotFound:
			return fmt.Errorf("%w: %w", oci.ErrNotFound, err)
		}
	}
	return err
}

// unauthorized says which registry refused, and how to log in.
func unauthorized(registry string, err error) error {
	return fmt.Errorf("%w: %s asks for credentials (log in with `docker login %s`, or give a Docker config file or a credential function): %w", ErrUnauthorized, registry, registry, err)
}
