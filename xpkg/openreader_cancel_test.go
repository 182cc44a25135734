package xpkg_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/xpkg"
)

// TestOpenReaderCancelDuringBlockedRead gives OpenReader an image stream
// (gzip) whose reader then blocks, as a pipe nobody writes does: cancelling
// ctx returns OpenReader's context error at once, without waiting for the
// blocked read.
func TestOpenReaderCancelDuringBlockedRead(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() }) // ends the read left behind
	go func() {
		// Enough for detection to see a gzip stream, then nothing.
		pw.Write(append([]byte{0x1f, 0x8b, 8, 0}, bytes.Repeat([]byte{0}, 64<<10)...))
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := xpkg.OpenReader(ctx, pr)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // let it block on the pipe (no harm if not yet)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("OpenReader = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OpenReader still blocked on its reader after cancel")
	}
}
