package oci

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/limit"
)

type compression int

const (
	compressionNone compression = iota
	compressionGzip
	compressionZstd
	compressionSniff
)

// compressionOf maps a layer media type to its compression. Only media types
// that say nothing (empty, application/octet-stream) are sniffed.
func compressionOf(mt string) (compression, error) {
	// The non-distributable types are deprecated, but images still use them.
	switch mt {
	//lint:ignore SA1019 deprecated, but images still use the non-distributable types
	case ocispec.MediaTypeImageLayer, ocispec.MediaTypeImageLayerNonDistributable, mediaTypeDockerLayerTar:
		return compressionNone, nil
	//lint:ignore SA1019 deprecated, but images still use the non-distributable types
	case ocispec.MediaTypeImageLayerGzip, ocispec.MediaTypeImageLayerNonDistributableGzip, mediaTypeDockerLayer, mediaTypeDockerForeignLayer:
		return compressionGzip, nil
	//lint:ignore SA1019 deprecated, but images still use the non-distributable types
	case ocispec.MediaTypeImageLayerZstd, ocispec.MediaTypeImageLayerNonDistributableZstd:
		return compressionZstd, nil
	case "", "application/octet-stream":
		return compressionSniff, nil
	}
	return 0, fmt.Errorf("%w: layer media type %s", ErrUnsupportedMediaType, safetext.Quote(mt))
}

// budget is the decompressed bytes left for one image read.
type budget struct{ left, limit int64 }

// layerStream is a layer's decompressed tar stream, verified underneath.
type layerStream struct {
	desc       ocispec.Descriptor
	v          *verifyReader
	dec        io.Reader
	closeDec   func()
	n, limit   int64
	zstdWindow int64
	budget     *budget
	err        error
}

// openLayer returns the decompressed tar stream of the layer desc. The
// decompression follows the media type (OCI tar, tar+gzip, tar+zstd, their
// non-distributable variants, Docker rootfs.diff.tar.gzip and
// rootfs.diff.tar); content is sniffed only for an empty or
// application/octet-stream media type, and any other type is
// ErrUnsupportedMediaType. The compressed blob is verified while it streams:
// Read returns the digest or size mismatch instead of the final io.EOF. More
// than MaxLayerBytes decompressed bytes fail with limit.ErrExceeded. Options: WithLimits.
func openLayer(ctx context.Context, f Fetcher, desc ocispec.Descriptor, opts ...Option) (io.ReadCloser, error) {
	o := newOptions(opts)
	l, err := openLayerStream(ctx, f, desc, o.limits, nil)
	if err != nil {
		return nil, err // not a nil *layerStream in a non-nil interface
	}
	return l, nil
}

func openLayerStream(ctx context.Context, f Fetcher, desc ocispec.Descriptor, lim Limits, b *budget) (*layerStream, error) {
	comp, err := compressionOf(desc.MediaType)
	if err != nil {
		return nil, opError("open layer", desc, "", err)
	}
	v, err := fetchVerified(ctx, f, desc, "MaxBlobBytes", lim.MaxBlobBytes)
	if err != nil {
		return nil, err
	}
	l := &layerStream{desc: desc, v: v, limit: lim.MaxLayerBytes, zstdWindow: lim.MaxZstdWindow, budget: b, closeDec: func() {}}
	br := bufio.NewReaderSize(v, 64<<10)
	if comp == compressionSniff {
		head, _ := br.Peek(4)
		switch {
		case bytes.HasPrefix(head, gzipMagic):
			comp = compressionGzip
		case bytes.HasPrefix(head, zstdMagic):
			comp = compressionZstd
		default:
			comp = compressionNone
		}
	}
	switch comp {
	case compressionNone:
		l.dec = br
	case compressionGzip:
		zr, err := gzip.NewReader(br)
		if err != nil {
			err = l.wrap(err) // before closing: wrap drains the blob to verify it
			v.Close()
			return nil, err
		}
		l.dec, l.closeDec = zr, func() { zr.Close() }
	case compressionZstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(min(uint64(lim.MaxZstdWindow), zstd.MaxWindowSize)), zstd.WithDecoderLowmem(true))
		if err != nil {
			err = l.wrap(err)
			v.Close()
			return nil, err
		}
		l.dec, l.closeDec = zr, zr.Close
	}
	return l, nil
}

// wrap turns an error met while decompressing into this package's errors,
// preferring the verifier's verdict: a truncated or corrupted blob shows up
// as a decompression error before the verifier sees the end.
func (l *layerStream) wrap(err error) error {
	if l.v.err == nil && !isCtxErr(err) {
		// Let the verifier see the rest of the blob (at most desc.Size
		// bytes): corruption is then reported as a digest mismatch, and
		// ErrMalformed means a verified blob with bad content.
		_ = l.v.drain()
	}
	if l.v.err != nil && l.v.err != io.EOF {
		return l.v.err
	}
	if errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return opError("open layer", l.desc, "", fmt.Errorf("%v: %w", err, limitErr(limitval.MaxZstdWindow, l.zstdWindow)))
	}
	var e *Error
	if errors.As(err, &e) || errors.Is(err, limit.ErrExceeded) || isCtxErr(err) {
		return opError("open layer", l.desc, "", err)
	}
	return opError("open layer", l.desc, "", fmt.Errorf("%w: %v", ErrMalformed, err))
}

func (l *layerStream) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.dec.Read(p)
	l.n += int64(n)
	if l.n > l.limit {
		l.err = opError("open layer", l.desc, "", limitErr(limitval.MaxLayerBytes, l.limit))
		return 0, l.err
	}
	if l.budget != nil {
		l.budget.left -= int64(n)
		if l.budget.left < 0 {
			l.err = opError("open layer", l.desc, "", limitErr(limitval.MaxImageBytes, l.budget.limit))
			return 0, l.err
		}
	}
	switch {
	case err == io.EOF:
		l.finish()
		return n, l.err
	case err != nil:
		l.err = l.wrap(err)
	}
	return n, l.err
}

// finish reads the rest of the compressed blob without decompressing it, so
// that it is verified, and leaves in l.err the verdict: io.EOF when all is
// well.
func (l *layerStream) finish() error {
	if l.err != nil && l.err != io.EOF {
		return l.err
	}
	if err := l.v.drain(); err != nil {
		l.err = l.wrap(err)
		return l.err
	}
	l.err = io.EOF
	return nil
}

func (l *layerStream) Close() error {
	l.closeDec()
	if l.err == nil {
		l.err = fs.ErrClosed
	}
	return l.v.Close()
}

// WalkLayer calls fn for every entry of the layer desc, in tar order, with
// the header as written (names are not cleaned) and a reader of
// the entry's content, valid until fn returns. Returning fs.SkipAll from fn
// stops the walk without error; any other error stops it and is returned as
// it is. Even when stopped early, the rest of the compressed blob is read
// (not decompressed) so that the layer is verified; a verification failure is
// returned instead of nil. Limits: MaxLayerBytes (the expanded sizes of
// sparse entries count, before they are read), MaxTarEntries. Options:
// WithLimits.
func WalkLayer(ctx context.Context, f Fetcher, desc ocispec.Descriptor, fn func(hdr *tar.Header, r io.Reader) error, opts ...Option) error {
	if fn == nil {
		return opError("walk layer", desc, "", fmt.Errorf("%w: nil callback", ErrInvalidArgument))
	}
	o := newOptions(opts)
	l, err := openLayerStream(ctx, f, desc, o.limits, nil)
	if err != nil {
		return err
	}
	defer l.Close()
	tr := tar.NewReader(l)
	var (
		count  int
		sparse int64
	)
	for {
		hdr, err := nextHeader(tr, l)
		if err == io.EOF {
			return l.finish()
		}
		if err != nil {
			return opError("walk layer", desc, "", err)
		}
		if count++; count > o.limits.MaxTarEntries {
			return opError("walk layer", desc, "", limitErr(limitval.MaxTarEntries, o.limits.MaxTarEntries))
		}
		if isSparse(hdr) {
			sparse += hdr.Size
		}
		if sparse > 0 && sparse > l.limit-l.n {
			// Reading them would expand their holes: count their
			// expanded sizes against MaxLayerBytes before they are read.
			return opError("walk layer", desc, "", fmt.Errorf("sparse entry %s of %d bytes: %w", safetext.Quote(hdr.Name), hdr.Size, limitErr(limitval.MaxLayerBytes, l.limit)))
		}
		if err := fn(hdr, entryReader{tr, l}); err != nil {
			if errors.Is(err, fs.SkipAll) {
				return l.finish()
			}
			return err
		}
	}
}

// entryReader is the reader WalkLayer hands to its callback: the tar
// reader's content of one entry, with this package's errors, so that a
// truncated or corrupt entry reads as an *Error (ErrMalformed, a digest
// mismatch, a limit) rather than the tar reader's bare io.ErrUnexpectedEOF.
type entryReader struct {
	tr *tar.Reader
	l  *layerStream
}

func (e entryReader) Read(p []byte) (int, error) {
	n, err := e.tr.Read(p)
	switch {
	case err == nil || err == io.EOF:
		return n, err
	case e.l.err != nil && e.l.err != io.EOF:
		return n, e.l.err
	}
	return n, e.l.wrap(err)
}

// nextHeader is tr.Next with this package's errors: io.EOF at the end of the
// archive, else the stream's own error or ErrMalformed.
func nextHeader(tr *tar.Reader, l *layerStream) (*tar.Header, error) {
	hdr, err := tr.Next()
	switch {
	case err == nil:
		return hdr, nil
	case errors.Is(err, tar.ErrInsecurePath) && hdr != nil:
		return hdr, nil // unsafe names are this package's business
	case err == io.EOF:
		return nil, io.EOF
	case l.err != nil && l.err != io.EOF:
		return nil, l.err
	}
	return nil, l.wrap(err)
}

func isCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
