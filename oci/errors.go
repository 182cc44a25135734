package oci

import (
	"errors"
	"fmt"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/limit"
)

// Sentinel errors, one per class of failure. Every error this package returns
// wraps exactly one of them, or a *limit.Error (a limit of Limits exceeded:
// it matches limit.ErrExceeded), usually inside an *Error that names the
// descriptor and the path being read, so callers test the class with
// errors.Is.
var (
	// ErrNotFound: a blob, file, reference or layout entry does not exist.
	// User Fetcher implementations must wrap it for unknown digests (see
	// package ocitest).
	ErrNotFound = errors.New("not found")
	// ErrDigestMismatch: the bytes read do not hash to the descriptor's digest.
	ErrDigestMismatch = errors.New("digest mismatch")
	// ErrSizeMismatch: the blob is shorter or longer than the descriptor's size.
	ErrSizeMismatch = errors.New("size mismatch")
	// ErrUnsupportedMediaType: a manifest, index or layer media type this
	// package cannot read.
	ErrUnsupportedMediaType = errors.New("unsupported media type")
	// ErrNoMatchingPlatform: an index has several manifests and none matches
	// the requested platform. The message lists the platforms present.
	ErrNoMatchingPlatform = errors.New("no manifest matches the platform")
	// ErrEmptyIndex: an index (or a docker archive's manifest.json) lists no
	// manifests.
	ErrEmptyIndex = errors.New("index has no manifests")
	// ErrInvalidDescriptor: a descriptor has a malformed digest, an
	// unavailable digest algorithm or a negative size.
	ErrInvalidDescriptor = errors.New("invalid descriptor")
	// ErrMalformed: JSON metadata, a tar stream or compressed data that cannot
	// be parsed, or an image layout or archive that breaks its format's rules.
	ErrMalformed = errors.New("malformed content")
	// ErrUnknownFormat: Open could not recognise the input as an OCI layout
	// directory, an OCI layout tar or a docker archive.
	ErrUnknownFormat = errors.New("unknown image format")
	// ErrUnsafePath: a tar entry whose name is absolute or contains "..".
	// Such entries never match a lookup; they are reported as warnings
	// (see File.Warnings) or passed as they are to WalkLayer callbacks.
	ErrUnsafePath = errors.New("unsafe path in tar entry")
	// ErrInvalidWhiteout: a bare ".wh." entry in a layer.
	ErrInvalidWhiteout = errors.New("invalid whiteout")
	// ErrDuplicateEntry: two entries with the same path in one layer or
	// archive.
	ErrDuplicateEntry = errors.New("duplicate tar entry")
	// ErrNotRegularFile: the requested path exists but is a directory,
	// symlink, hard link, device, FIFO, sparse file or other non-regular
	// entry.
	ErrNotRegularFile = errors.New("not a regular file")
	// ErrInUse: File.Close was called while a Read of the File was in
	// flight on another goroutine. The File is closed when that Read
	// returns, not before.
	ErrInUse = errors.New("file in use")
	// ErrInvalidArgument: a function was called with a nil context, a nil
	// reader, fetcher or store, or a negative size.
	ErrInvalidArgument = errors.New("invalid argument")
)

// Error is the structured error returned by this package: what was being done,
// to which descriptor and which path, and why. Err wraps one of the sentinel
// errors above.
type Error struct {
	// Op says what was being done: "fetch", "verify", "resolve",
	// "open layer", "read file", "walk layer", "open", "index".
	Op string
	// Descriptor is the blob concerned; zero when there is none.
	Descriptor ocispec.Descriptor
	// Path is the file inside the layer, layout or archive concerned; empty
	// when there is none.
	Path string
	// Err is the cause.
	Err error
	// Format is, for an error of Open or OpenReaderAt, the format the
	// input was recognised as before reading it failed (a docker archive
	// whose manifest.json is broken is FormatDockerArchive); zero when the
	// format was not recognised, and for the errors of other functions.
	Format Format
}

// Error implements error. The descriptor's digest and media type, the path
// and the cause come from untrusted input: they are escaped (no control
// character or terminal escape reaches the text raw) and shortened (see
// package internal/safetext), so the message is short whatever the input.
//
// A cause that is an *Error of the same operation (an archive opened
// inside the one being opened, say) is written without the "oci: OP
// FORMAT" that would repeat this error's own.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("oci: ")
	b.WriteString(e.Op)
	if e.Format != 0 {
		b.WriteString(" ")
		b.WriteString(e.Format.String())
	}
	e.writeRest(&b)
	return b.String()
}

// writeRest writes what follows the error's "oci: OP FORMAT": the
// descriptor, the path and the cause.
func (e *Error) writeRest(b *strings.Builder) {
	if e.Descriptor.Digest != "" {
		b.WriteString(" ")
		b.WriteString(safetext.Token(string(e.Descriptor.Digest)))
		if e.Descriptor.MediaType != "" {
			fmt.Fprintf(b, " (%s)", safetext.Token(e.Descriptor.MediaType))
		}
	}
	if e.Path != "" {
		b.WriteString(" ")
		b.WriteString(safetext.QuotePath(e.Path))
	}
	if e.Err != nil {
		b.WriteString(": ")
		inner, ok := e.Err.(*Error)
		switch {
		case ok && inner.Op == e.Op && (inner.Format == e.Format || inner.Format == 0):
			var ib strings.Builder
			inner.writeRest(&ib) // escaped and bounded already
			rest := strings.TrimPrefix(strings.TrimPrefix(ib.String(), " "), ": ")
			b.WriteString(rest)
		case ok:
			b.WriteString(inner.Error()) // escaped and bounded already
		default:
			b.WriteString(safetext.ReasonText(e.Err.Error()))
		}
	}
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func opError(op string, desc ocispec.Descriptor, path string, err error) error {
	var e *Error
	if errors.As(err, &e) && e.Op == op && e.Descriptor.Digest == desc.Digest && e.Path == path {
		return err
	}
	return &Error{Op: op, Descriptor: desc, Path: path, Err: err}
}

// withFormat returns err, an *Error of Open, saying which format the input
// was recognised as.
func withFormat(err error, f Format) error {
	e, ok := err.(*Error)
	if !ok || f == 0 {
		return err
	}
	c := *e
	c.Format = f
	return &c
}

// limitErr is the *limit.Error of the limit name of value max. Its Value is
// max+1: reading stops as soon as the input goes beyond max.
func limitErr[T int | int64](name limit.Name, max T) error {
	return &limit.Error{Limit: name, Value: int64(max) + 1, Max: int64(max)}
}
