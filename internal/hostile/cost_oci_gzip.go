package hostile

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
)

// pieceGzip writes one gzip member as a series of independently compressed
// deflate pieces (see bombs.go): the pieces of long runs of one byte are
// compressed once and written again, so archives that decompress to a GiB
// are written in a second, with constant memory.
type pieceGzip struct {
	w     io.Writer
	fw    *flate.Writer
	buf   bytes.Buffer
	crc   uint32
	n     int64
	fills map[fillKey][]byte // compressed pieces of fill bytes
	chunk []byte
}

// newPieceGzip writes the gzip header to w and returns the writer of the
// member's content.
func newPieceGzip(w io.Writer) (*pieceGzip, error) {
	// The gzip header: magic, deflate, no flags, no mtime, unknown OS.
	if _, err := w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}); err != nil {
		return nil, err
	}
	fw, err := flate.NewWriter(nil, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	return &pieceGzip{w: w, fw: fw, fills: map[fillKey][]byte{}}, nil
}

// piece compresses p with a fresh compressor state, ended by a sync flush.
func (g *pieceGzip) piece(p []byte) ([]byte, error) {
	g.buf.Reset()
	g.fw.Reset(&g.buf)
	if _, err := g.fw.Write(p); err != nil {
		return nil, err
	}
	if err := g.fw.Flush(); err != nil {
		return nil, err
	}
	return g.buf.Bytes(), nil
}

// Write compresses p as one piece.
func (g *pieceGzip) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c, err := g.piece(p)
	if err != nil {
		return 0, err
	}
	if _, err := g.w.Write(c); err != nil {
		return 0, err
	}
	g.crc = crc32.Update(g.crc, crc32.IEEETable, p)
	g.n += int64(len(p))
	return len(p), nil
}

// fillKey names a piece of n fill bytes b.
type fillKey struct {
	b byte
	n int
}

// fill writes n bytes of b, in pieces of at most bombChunk bytes, each
// compressed once.
func (g *pieceGzip) fill(b byte, n int64) error {
	if g.chunk == nil || g.chunk[0] != b {
		g.chunk = bytes.Repeat([]byte{b}, bombChunk)
	}
	for n > 0 {
		k := fillKey{b: b, n: int(min(n, bombChunk))}
		p, ok := g.fills[k]
		if !ok {
			c, err := g.piece(g.chunk[:k.n])
			if err != nil {
				return err
			}
			p = bytes.Clone(c)
			g.fills[k] = p
		}
		if _, err := g.w.Write(p); err != nil {
			return err
		}
		g.crc = crc32.Update(g.crc, crc32.IEEETable, g.chunk[:k.n])
		g.n += int64(k.n)
		n -= int64(k.n)
	}
	return nil
}

// Close ends the member: a final empty block, the CRC and the size.
func (g *pieceGzip) Close() error {
	g.buf.Reset()
	g.fw.Reset(&g.buf)
	if err := g.fw.Close(); err != nil {
		return err
	}
	if _, err := g.w.Write(g.buf.Bytes()); err != nil {
		return err
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[0:4], g.crc)
	binary.LittleEndian.PutUint32(trailer[4:8], uint32(g.n))
	_, err := g.w.Write(trailer[:])
	return err
}
