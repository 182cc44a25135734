package parser

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"testing"
	"testing/fstest"
	"time"
)

// slowFS serves crossplane.yaml as a file whose Read blocks until released
// and whose Close, unlike os.File's, must not run during a Read: it writes
// what Read reads without a lock (the race detector reports a Close under
// a Read).
type slowFS struct {
	fstest.MapFS
	reading chan struct{} // closed when the Read has started
	release chan struct{} // closed to let the Read return
	closed  chan struct{} // closed by Close
}

type slowFile struct {
	fs.File
	fsys   *slowFS
	closed bool // unguarded on purpose
}

func (s *slowFS) Open(name string) (fs.File, error) {
	f, err := s.MapFS.Open(name)
	if err != nil || name != "crossplane.yaml" {
		return f, err
	}
	return &slowFile{File: f, fsys: s}, nil
}

func (f *slowFile) Read(p []byte) (int, error) {
	close(f.fsys.reading)
	<-f.fsys.release
	if f.closed {
		return 0, fs.ErrClosed
	}
	return 0, io.EOF
}

func (f *slowFile) Close() error {
	f.closed = true
	close(f.fsys.closed)
	return nil
}

// TestParseFSCancelledReadIsClosedAfter cancels ParseFS while a file's
// Read is blocked: ParseFS returns at once, and closes the file only once
// that Read has returned.
func TestParseFSCancelledReadIsClosedAfter(t *testing.T) {
	t.Parallel()
	fsys := &slowFS{
		MapFS:   fstest.MapFS{"crossplane.yaml": {Data: []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\n")}},
		reading: make(chan struct{}), release: make(chan struct{}), closed: make(chan struct{}),
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-fsys.reading
		cancel()
	}()
	_, err := ParseFS(ctx, fsys)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("ParseFS: %v, want context.Canceled", err)
	}
	select {
	case <-fsys.closed:
		t.Fatal("the file was closed while its Read was in flight")
	case <-time.After(20 * time.Millisecond):
	}
	close(fsys.release)
	select {
	case <-fsys.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the file was not closed after its Read returned")
	}
}
