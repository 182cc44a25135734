package ctxio

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// goPerRead is the design Reader replaced (a goroutine per read of the
// source), kept here to compare against.
type goPerRead struct {
	ctx context.Context
	src io.Reader
	buf []byte
}

func (g *goPerRead) Read(p []byte) (int, error) {
	if err := g.ctx.Err(); err != nil {
		return 0, err
	}
	if g.buf == nil {
		g.buf = make([]byte, BufSize)
	}
	res := make(chan result, 1)
	buf := g.buf[:min(len(p), len(g.buf))]
	go func() {
		n, err := g.src.Read(buf)
		res <- result{n, err}
	}()
	select {
	case <-g.ctx.Done():
		return 0, g.ctx.Err()
	case rr := <-res:
		return copy(p, buf[:rr.n]), rr.err
	}
}

// BenchmarkRead reads 16 MiB in reads of 32 KiB, as the parser's bufio
// reader does, through a cancellable context.
func BenchmarkRead(b *testing.B) {
	data := bytes.Repeat([]byte("apiVersion: v1\n"), 16<<20/15)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	buf := make([]byte, 32<<10)
	for _, bc := range []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"direct", func(r io.Reader) io.Reader { return r }},
		{"Reader", func(r io.Reader) io.Reader { return NewReader(ctx, r) }},
		{"goroutine-per-read", func(r io.Reader) io.Reader { return &goPerRead{ctx: ctx, src: r} }},
		{"Check", func(r io.Reader) io.Reader { return Check(ctx, r) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				r := bc.wrap(bytes.NewReader(data))
				if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf); err != nil {
					b.Fatal(err)
				}
				if c, ok := r.(io.Closer); ok {
					c.Close()
				}
			}
		})
	}
}
