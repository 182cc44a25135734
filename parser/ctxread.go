package parser

import (
	"context"
	"io"
)

// ctxReader reads r on another goroutine, so that a Read blocked in r
// (a pipe, a network stream, a FIFO that nobody writes) does not block the
// parse once ctx is done: Read then returns ctx's error at once. The read
// in flight is left behind: its goroutine ends when r's Read returns, and
// what it read is dropped. Close r (when it can be closed) to end it.
type ctxReader struct {
	ctx     context.Context
	r       io.Reader
	buf     []byte // owned by the goroutine while a read is in flight
	pending []byte // read and not yet returned
	res     chan readResult
	busy    bool
	err     error
}

type readResult struct {
	n   int
	err error
}

// ctxReadSize is the size of one read of the underlying reader.
const ctxReadSize = 64 << 10

// newCtxReader returns r itself when ctx can never be done.
func newCtxReader(ctx context.Context, r io.Reader) io.Reader {
	if ctx.Done() == nil {
		return r
	}
	return &ctxReader{ctx: ctx, r: r, res: make(chan readResult, 1)}
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	if c.err != nil {
		return 0, c.err
	}
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if !c.busy {
		if c.buf == nil {
			c.buf = make([]byte, ctxReadSize)
		}
		c.busy = true
		buf, r, res := c.buf, c.r, c.res
		go func() {
			n, err := r.Read(buf)
			res <- readResult{n, err}
		}()
	}
	select {
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	case rr := <-c.res:
		c.busy = false
		c.err = rr.err
		n := copy(p, c.buf[:rr.n])
		c.pending = c.buf[n:rr.n]
		if len(c.pending) > 0 {
			return n, nil
		}
		return n, rr.err
	}
}
