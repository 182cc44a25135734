// Package ctxio makes reads of an io.Reader honour a context.
//
// A Reader reads its source on one goroutine of its own, so that a Read
// blocked in the source (a pipe, a FIFO that nobody writes, a network
// stream) never blocks cancellation: once the context is done, Read returns
// its error at once. The read in flight is left behind: it ends when the
// source's Read returns, and what it read is dropped. Until then the source
// is still in use, so its owner closes it only once Stopped is closed (or
// closes it during that Read when the source allows that, as *os.File does).
//
// One goroutine serves all the reads of a Reader, not one per read; it ends
// at the first error of the source (io.EOF included), when the context is
// done, or at Close. A Reader whose context can never be done reads its
// source directly, on the caller's goroutine.
//
// Check is the light form for sources whose reads never block for long
// (regular files, decompressors over them, memory): it checks the context
// before each read and starts no goroutine.
package ctxio

import (
	"context"
	"io"
	"sync"
)

// BufSize is the most bytes one read of the source asks for.
const BufSize = 64 << 10

// Reader is an io.Reader over a source that returns the context's error as
// soon as the context is done, even while a read of the source is blocked.
// A Reader is used by one goroutine at a time (Read and Close); Stopped may
// be watched from any goroutine.
type Reader struct {
	ctx context.Context
	src io.Reader

	req     chan int      // the size of the next read, to the goroutine
	res     chan result   // its result, back (buffered: the goroutine never waits)
	stop    chan struct{} // closed by Close
	stopped chan struct{} // closed when no read of src is in flight, nor will be
	once    sync.Once     // closes stop
	buf     []byte        // owned by the goroutine while busy
	pending []byte        // read and not yet returned
	started bool          // the goroutine runs, or ran
	busy    bool          // a read of src is in flight
	direct  bool          // ctx is never done: read src on the caller's goroutine
	err     error         // the source's error, final
	closed  bool
}

type result struct {
	n   int
	err error
}

// NewReader returns a Reader of src that honours ctx. Close it when done
// with it, so that its goroutine ends.
func NewReader(ctx context.Context, src io.Reader) *Reader {
	r := &Reader{ctx: ctx, src: src, stopped: make(chan struct{})}
	if ctx.Done() == nil {
		r.direct = true
		close(r.stopped)
		return r
	}
	r.req = make(chan int)
	r.res = make(chan result, 1)
	r.stop = make(chan struct{})
	return r
}

// Read reads from the source. Once the context is done it returns the
// context's error, at once, whether or not a read of the source is in
// flight. After Close it returns io.ErrClosedPipe.
func (r *Reader) Read(p []byte) (int, error) {
	if len(r.pending) > 0 {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		return n, nil
	}
	switch {
	case r.closed:
		return 0, io.ErrClosedPipe
	case r.err != nil:
		return 0, r.err
	case len(p) == 0:
		return 0, nil
	case r.direct:
		n, err := r.src.Read(p)
		r.err = err
		return n, err
	}
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	if !r.busy {
		if !r.started {
			r.started = true
			r.buf = make([]byte, BufSize)
			go r.loop()
		}
		select {
		case r.req <- min(len(p), len(r.buf)):
			r.busy = true
		case <-r.ctx.Done(): // the goroutine may have ended on it
			return 0, r.ctx.Err()
		}
	}
	select {
	case <-r.ctx.Done():
		return 0, r.ctx.Err()
	case rr := <-r.res:
		r.busy = false
		r.err = rr.err
		n := copy(p, r.buf[:rr.n])
		r.pending = r.buf[n:rr.n]
		if len(r.pending) > 0 {
			return n, nil
		}
		return n, rr.err
	}
}

// loop reads src for Read, one request at a time, until src fails, the
// context is done or the Reader is closed.
func (r *Reader) loop() {
	defer close(r.stopped)
	for {
		select {
		case n := <-r.req:
			m, err := r.src.Read(r.buf[:n])
			r.res <- result{m, err}
			if err != nil {
				return
			}
		case <-r.stop:
			return
		case <-r.ctx.Done():
			return
		}
	}
}

// Close stops the Reader; it does not close the source. It returns at once:
// when no read of the source is in flight, Stopped is closed when Close
// returns; otherwise (a Read returned the context's error during it)
// Stopped is closed when that read of the source returns. Close always
// returns nil.
func (r *Reader) Close() error {
	r.closed = true
	r.pending = nil
	if r.direct {
		return nil
	}
	r.once.Do(func() { close(r.stop) })
	if !r.started {
		r.started = true
		close(r.stopped)
		return nil
	}
	if !r.busy {
		<-r.stopped // the goroutine is idle: it ends at once
	}
	return nil
}

// Stopped returns a channel closed once the source is no longer read by
// the Reader: after Close, or after the source failed or the context was
// done, once the read in flight (if any) has returned. The source's owner
// may then close it.
func (r *Reader) Stopped() <-chan struct{} { return r.stopped }

// Check returns a reader of src that returns the context's error, instead
// of reading, once ctx is done. A read of src in progress is not
// interrupted: use it only for sources whose reads never block for long.
func Check(ctx context.Context, src io.Reader) io.Reader {
	if ctx.Done() == nil {
		return src
	}
	return checkReader{ctx, src}
}

type checkReader struct {
	ctx context.Context
	src io.Reader
}

func (c checkReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.src.Read(p)
}
