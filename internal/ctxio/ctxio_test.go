package ctxio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// bound is how long a Read may take to return once its context is done:
// generous, so the test never flakes on a loaded machine; a blocked read
// that ignored cancellation would never return at all.
const bound = 10 * time.Second

// blockingReader blocks in Read until released, then returns io.EOF.
type blockingReader struct {
	reading chan struct{} // closed when Read has started
	release chan struct{} // closed to let Read return
}

func newBlockingReader() *blockingReader {
	return &blockingReader{reading: make(chan struct{}), release: make(chan struct{})}
}

func (b *blockingReader) Read(p []byte) (int, error) {
	close(b.reading)
	<-b.release
	p[0] = 'x' // writes the Reader's own buffer, never the caller's
	return 1, io.EOF
}

// TestReadAll reads sources through a Reader, in reads of every size,
// and gets their bytes and their error.
func TestReadAll(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("0123456789"), 10_000) // more than one BufSize read
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // after the parallel subtests
	for _, tc := range []struct {
		name string
		ctx  context.Context
		src  func() io.Reader
	}{
		{"cancellable", ctx, func() io.Reader { return bytes.NewReader(data) }},
		{"one byte at a time", ctx, func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) }},
		{"data with EOF", ctx, func() io.Reader { return iotest.DataErrReader(bytes.NewReader(data)) }},
		{"never done", context.Background(), func() io.Reader { return bytes.NewReader(data) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := NewReader(tc.ctx, tc.src())
			defer r.Close()
			if err := iotest.TestReader(r, data); err != nil {
				t.Fatal(err)
			}
			select {
			case <-r.Stopped(): // the source ended
			case <-time.After(bound):
				t.Fatal("Stopped not closed after the source's EOF")
			}
		})
	}
	errBad := errors.New("bad")
	r := NewReader(ctx, io.MultiReader(strings.NewReader("ab"), iotest.ErrReader(errBad)))
	defer r.Close()
	b, err := io.ReadAll(r)
	if string(b) != "ab" || !errors.Is(err, errBad) {
		t.Errorf("ReadAll = %q, %v; want \"ab\", the source's error", b, err)
	}
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, errBad) {
		t.Errorf("Read after the error = %v, want it again", err)
	}
}

// TestCancelDuringBlockedRead cancels while the source's Read is blocked:
// Read returns the context's error within the bound, Stopped stays open
// until the blocked read returns, and closes after it.
func TestCancelDuringBlockedRead(t *testing.T) {
	t.Parallel()
	src := newBlockingReader()
	ctx, cancel := context.WithCancel(context.Background())
	r := NewReader(ctx, src)
	go func() {
		<-src.reading
		cancel()
	}()
	done := make(chan error, 1)
	buf := make([]byte, 8)
	go func() {
		_, err := r.Read(buf)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Read = %v, want context.Canceled", err)
		}
	case <-time.After(bound):
		t.Fatal("Read still blocked after cancel")
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-r.Stopped():
		t.Fatal("Stopped closed while the source's Read is in flight")
	default:
	}
	if _, err := r.Read(buf); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Read after Close = %v, want io.ErrClosedPipe", err)
	}
	close(src.release)
	select {
	case <-r.Stopped():
	case <-time.After(bound):
		t.Fatal("Stopped not closed after the source's Read returned")
	}
	if buf[0] != 0 {
		t.Error("the left-behind read wrote the caller's buffer")
	}
}

// TestCloseIdle closes a Reader between reads and before any: Stopped is
// closed when Close returns.
func TestCloseIdle(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := NewReader(ctx, strings.NewReader("abc"))
	if _, err := r.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	r.Close()
	select {
	case <-r.Stopped():
	default:
		t.Fatal("Stopped open after Close of an idle Reader")
	}
	unused := NewReader(ctx, strings.NewReader("abc"))
	unused.Close()
	select {
	case <-unused.Stopped():
	default:
		t.Fatal("Stopped open after Close of an unused Reader")
	}
}

// TestNoGoroutineLeak makes many Readers, cancels some during a blocked
// read and closes the others idle: once the blocked reads are released,
// no goroutine of theirs is left.
func TestNoGoroutineLeak(t *testing.T) {
	// Not parallel: it counts the goroutines of the process.
	before := runtime.NumGoroutine()
	var srcs []*blockingReader
	var readers []*Reader
	for i := range 100 {
		ctx, cancel := context.WithCancel(context.Background())
		if i%2 == 0 {
			src := newBlockingReader()
			srcs = append(srcs, src)
			r := NewReader(ctx, src)
			readers = append(readers, r)
			go func() { <-src.reading; cancel() }()
			if _, err := r.Read(make([]byte, 4)); !errors.Is(err, context.Canceled) {
				t.Fatalf("Read = %v, want context.Canceled", err)
			}
			r.Close()
			continue
		}
		r := NewReader(ctx, strings.NewReader(strings.Repeat("x", 100)))
		readers = append(readers, r)
		if _, err := r.Read(make([]byte, 10)); err != nil {
			t.Fatal(err)
		}
		r.Close()
		cancel()
	}
	for _, s := range srcs {
		close(s.release)
	}
	for _, r := range readers {
		select {
		case <-r.Stopped():
		case <-time.After(bound):
			t.Fatal("a Reader's goroutine did not end")
		}
	}
	// A goroutine that closed Stopped may not have exited yet.
	deadline := time.Now().Add(bound)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines, %d before: the Readers leaked some", n, before)
	}
}

// TestOneGoroutinePerReader reads a long source in many reads through one
// Reader: the goroutines grow by one, not by one per read.
func TestOneGoroutinePerReader(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, w := io.Pipe()
	r := NewReader(ctx, src)
	defer r.Close()
	go func() {
		for range 1000 {
			w.Write([]byte("x"))
		}
		w.Close()
	}()
	before := runtime.NumGoroutine()
	peak := 0
	buf := make([]byte, 1)
	n := 0
	for {
		_, err := r.Read(buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		peak = max(peak, runtime.NumGoroutine())
	}
	if n != 1000 {
		t.Fatalf("read %d bytes, want 1000", n)
	}
	if peak > before+1 {
		t.Errorf("%d goroutines at the peak, %d before: more than one per Reader", peak, before)
	}
}

// TestCheck reads through Check until the context is done.
func TestCheck(t *testing.T) {
	t.Parallel()
	if r := Check(context.Background(), strings.NewReader("a")); r == nil {
		t.Fatal("nil reader")
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := Check(ctx, strings.NewReader("abc"))
	if b := make([]byte, 1); func() error { _, err := r.Read(b); return err }() != nil {
		t.Fatal("Read before cancel failed")
	}
	cancel()
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("Read after cancel = %v, want context.Canceled", err)
	}
}
