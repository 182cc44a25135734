package oci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"

	"github.com/xpkgkit/xpkgkit/internal/ctxio"
	"github.com/xpkgkit/xpkgkit/limit"
)

// spoolMemMax is how many decompressed bytes of a gzip-compressed archive
// are kept in memory; a larger archive is spooled to a temporary file.
const spoolMemMax = 16 << 20

// spool holds the decompressed content of a gzip-compressed archive, so
// that it is decompressed once and then read at any offset, in any order:
// in memory up to spoolMemMax bytes, else in a temporary file, removed at
// once where the system allows it (the open file stays readable), else when
// the spool is closed.
type spool struct {
	mem  []byte
	f    *os.File
	name string // of the temporary file, when it could not be removed at once
}

// spoolGzip decompresses the gzip stream in ra (size bytes) into a spool,
// checking ctx as it goes: a read of ra that blocks (ra is the caller's)
// does not block cancellation, and is left behind (see package ctxio). More than MaxImageBytes decompressed bytes fail
// with limit.ErrExceeded before they are written. It returns the spool and the size
// of its content.
func spoolGzip(ctx context.Context, ra io.ReaderAt, size int64, lim Limits) (*spool, int64, error) {
	zr, err := gzip.NewReader(bufio.NewReaderSize(io.NewSectionReader(ra, 0, size), 64<<10))
	if err != nil {
		return nil, 0, fmt.Errorf("%w: gzip: %v", ErrMalformed, err)
	}
	r := ctxio.NewReader(ctx, &countingReader{r: zr, limit: lim.MaxImageBytes, limitName: "MaxImageBytes"})
	defer func() {
		r.Close()
		select {
		case <-r.Stopped():
			zr.Close()
		default: // a read left behind still uses zr
		}
	}()
	s := &spool{}
	mem, err := io.ReadAll(io.LimitReader(r, spoolMemMax+1))
	if err != nil {
		return nil, 0, spoolErr(err)
	}
	if len(mem) <= spoolMemMax {
		s.mem = mem
		return s, int64(len(mem)), nil
	}
	if s.f, err = os.CreateTemp("", "xpkgkit-spool-*.tar"); err != nil {
		return nil, 0, fmt.Errorf("spooling the decompressed archive: %w", err)
	}
	if err := os.Remove(s.f.Name()); err != nil {
		s.name = s.f.Name()
	}
	n, err := s.f.Write(mem)
	if err == nil {
		var m int64
		m, err = io.CopyBuffer(s.f, r, make([]byte, 1<<20)) // few large writes
		n += int(m)
	}
	if err != nil {
		s.Close()
		return nil, 0, spoolErr(err)
	}
	return s, int64(n), nil
}

// spoolErr classifies an error met while decompressing into a spool.
func spoolErr(err error) error {
	if errors.Is(err, limit.ErrExceeded) || isCtxErr(err) {
		return err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("spooling the decompressed archive: %w", err)
	}
	return fmt.Errorf("%w: gzip: %v", ErrMalformed, err)
}

// ReadAt implements io.ReaderAt.
func (s *spool) ReadAt(p []byte, off int64) (int, error) {
	if s.f != nil {
		return s.f.ReadAt(p, off)
	}
	if off < 0 {
		return 0, errors.New("oci: negative offset")
	}
	if off >= int64(len(s.mem)) {
		return 0, io.EOF
	}
	n := copy(p, s.mem[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Close releases the temporary file, if any.
func (s *spool) Close() error {
	s.mem = nil
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	if s.name != "" {
		if rerr := os.Remove(s.name); err == nil {
			err = rerr
		}
	}
	return err
}
