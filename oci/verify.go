package oci

import (
	"bytes"
	"context"

	// Register the hashes go-digest verifies with.
	_ "crypto/sha256"
	_ "crypto/sha512"
	"fmt"
	"hash"
	"io"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/limit"
)

// validateDescriptor checks that desc can be fetched and verified: a
// well-formed digest of an available algorithm and a size in [0, max].
func validateDescriptor(desc ocispec.Descriptor, maxName limit.Name, max int64) error {
	if err := desc.Digest.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidDescriptor, err)
	}
	if desc.Size < 0 {
		return fmt.Errorf("%w: negative size %d", ErrInvalidDescriptor, desc.Size)
	}
	if desc.Size > max {
		return fmt.Errorf("blob of %d bytes: %w", desc.Size, &limit.Error{Limit: maxName, Value: desc.Size, Max: max})
	}
	return nil
}

// FetchVerified fetches desc from f and returns a reader of its raw bytes that
// verifies them while they are read: more bytes than desc.Size fail at once
// with ErrSizeMismatch; at the end of the blob, a short blob fails with
// ErrSizeMismatch and a wrong digest with ErrDigestMismatch, returned by Read
// instead of io.EOF. A caller that stops reading early has verified nothing.
// desc.Size must not exceed the MaxBlobBytes limit. The context is checked on
// every Read.
func FetchVerified(ctx context.Context, f Fetcher, desc ocispec.Descriptor, opts ...Option) (io.ReadCloser, error) {
	o := newOptions(opts)
	v, err := fetchVerified(ctx, f, desc, "MaxBlobBytes", o.limits.MaxBlobBytes)
	if err != nil {
		return nil, err // not a nil *verifyReader in a non-nil interface
	}
	return v, nil
}

func fetchVerified(ctx context.Context, f Fetcher, desc ocispec.Descriptor, maxName limit.Name, max int64) (*verifyReader, error) {
	if f == nil {
		return nil, opError("fetch", desc, "", fmt.Errorf("%w: nil Fetcher", ErrInvalidArgument))
	}
	if err := validateDescriptor(desc, maxName, max); err != nil {
		return nil, opError("fetch", desc, "", err)
	}
	if err := ctxErr(ctx); err != nil {
		return nil, opError("fetch", desc, "", err)
	}
	rc, err := f.Fetch(ctx, desc)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Descriptor.Digest == desc.Digest {
			return nil, err // already says what and where
		}
		return nil, opError("fetch", desc, "", err)
	}
	if rc == nil {
		return nil, opError("fetch", desc, "", fmt.Errorf("%w: fetcher returned no reader", ErrNotFound))
	}
	return &verifyReader{
		ctx:  ctx,
		rc:   rc,
		r:    io.LimitReader(rc, desc.Size+1),
		desc: desc,
		h:    desc.Digest.Algorithm().Hash(),
	}, nil
}

// verifyReader verifies size and digest of a blob as it is read.
type verifyReader struct {
	ctx  context.Context
	rc   io.ReadCloser
	r    io.Reader
	desc ocispec.Descriptor
	h    hash.Hash
	n    int64
	err  error
}

func (v *verifyReader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	if err := v.ctx.Err(); err != nil {
		v.err = opError("fetch", v.desc, "", err)
		return 0, v.err
	}
	n, err := v.r.Read(p)
	if n > 0 {
		v.n += int64(n)
		if v.n > v.desc.Size {
			n -= int(v.n - v.desc.Size)
			v.err = opError("verify", v.desc, "", fmt.Errorf("%w: blob is longer than %d bytes", ErrSizeMismatch, v.desc.Size))
			v.h.Write(p[:n])
			return n, v.err
		}
		v.h.Write(p[:n])
	}
	switch {
	case err == io.EOF:
		v.err = v.check()
		return n, v.err
	case err != nil:
		v.err = opError("fetch", v.desc, "", err)
		return n, v.err
	}
	return n, nil
}

func (v *verifyReader) check() error {
	if v.n != v.desc.Size {
		return opError("verify", v.desc, "", fmt.Errorf("%w: got %d bytes, want %d", ErrSizeMismatch, v.n, v.desc.Size))
	}
	if got := digest.NewDigest(v.desc.Digest.Algorithm(), v.h); got != v.desc.Digest {
		return opError("verify", v.desc, "", fmt.Errorf("%w: got %s", ErrDigestMismatch, got))
	}
	return io.EOF
}

// drain reads the rest of the blob and returns nil if it verified.
func (v *verifyReader) drain() error {
	_, err := io.Copy(io.Discard, v)
	return err
}

func (v *verifyReader) Close() error { return v.rc.Close() }

// readBlob fetches a whole blob of at most max bytes into memory, verified.
func readBlob(ctx context.Context, f Fetcher, desc ocispec.Descriptor, maxName limit.Name, max int64) ([]byte, error) {
	v, err := fetchVerified(ctx, f, desc, maxName, max)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	var buf bytes.Buffer
	buf.Grow(int(desc.Size) + 1)
	if _, err := buf.ReadFrom(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readAllLimited reads r to its end, failing with a *limit.Error past max bytes.
func readAllLimited(r io.Reader, maxName limit.Name, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, limitErr(maxName, max)
	}
	return b, nil
}
