package lintcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
)

// errDependencyUnreadable is the class of the error a checker gives a
// package whose dependencies could not be read (a network failure, a
// registry that refuses or fails, an unreadable directory): exit 2, never a
// lint verdict on the package.
var errDependencyUnreadable = errors.New("dependencies could not be read")

// maxSourceErrors bounds the causes an unreadable graph names.
const maxSourceErrors = 3

// watchedSource is a dependency source that records its failures that are
// no verdict on a package: a package that does not exist, or whose content
// is broken, is a finding (XP601); a registry that cannot be reached,
// refuses, or answers with a server error is not, and must not pass for
// one.
type watchedSource struct {
	deps.Source
	mu    sync.Mutex
	n     int
	first []string
}

func (s *watchedSource) Tags(ctx context.Context, name string) ([]string, error) {
	tags, err := s.Source.Tags(ctx, name)
	s.note(ctx, name, err)
	return tags, err
}

func (s *watchedSource) Fetch(ctx context.Context, name, version string, opts ...deps.SummaryOption) (*deps.Package, error) {
	p, err := s.Source.Fetch(ctx, name, version, opts...)
	what := name
	if version != "" {
		what += ":" + version
	}
	s.note(ctx, what, err)
	return p, err
}

func (s *watchedSource) note(ctx context.Context, what string, err error) {
	if err == nil || ctx.Err() != nil || isVerdict(err) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if len(s.first) < maxSourceErrors {
		s.first = append(s.first, safetext.Token(what)+": "+safetext.Reason(err))
	}
}

// err returns the error of the failures recorded, nil if none.
func (s *watchedSource) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == 0 {
		return nil
	}
	msg := strings.Join(s.first, "; ")
	if s.n > len(s.first) {
		msg += fmt.Sprintf("; and %d more", s.n-len(s.first))
	}
	reads := "1 failed read"
	if s.n > 1 {
		reads = fmt.Sprintf("%d failed reads", s.n)
	}
	return fmt.Errorf("%w (%s): %s", errDependencyUnreadable, reads, msg)
}

// isVerdict reports whether err says something about a package (it does
// not exist, it holds no versions, its content is broken or over a limit)
// rather than about reaching it.
func isVerdict(err error) bool {
	for _, class := range []error{
		limit.ErrExceeded,
		deps.ErrNotFound, deps.ErrUnversioned, deps.ErrAmbiguous,
		oci.ErrNotFound, oci.ErrMalformed, oci.ErrDigestMismatch, oci.ErrSizeMismatch,
		oci.ErrUnsupportedMediaType, oci.ErrNoMatchingPlatform, oci.ErrEmptyIndex, oci.ErrInvalidDescriptor,
		oci.ErrUnknownFormat, oci.ErrUnsafePath, oci.ErrInvalidWhiteout, oci.ErrDuplicateEntry, oci.ErrNotRegularFile,
		xpkg.ErrUnknownSource, xpkg.ErrEmpty, oci.ErrInvalidReference,
		parser.ErrSyntax, parser.ErrNotObject, parser.ErrMissingType, parser.ErrUnknownKind, parser.ErrDecode,
		context.Canceled,
	} {
		if errors.Is(err, class) {
			return true
		}
	}
	return false
}
