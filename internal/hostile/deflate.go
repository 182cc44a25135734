package hostile

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"math/bits"
)

// The entry bombs hold millions of tar headers that differ from the one
// before in a few bytes. A general compressor spends seconds on the GiB of
// headers (a minute under the race detector); this encoder knows where the
// differences are. It writes one deflate block with the fixed Huffman codes
// of RFC 1951: the bytes of a header equal to those of the header before
// become matches at distance 512, the few changed digits literals.

// bitWriter writes deflate's LSB-first bit stream.
type bitWriter struct {
	w    io.Writer
	acc  uint64
	n    uint
	buf  []byte
	werr error
}

func (b *bitWriter) bits(v uint64, n uint) {
	b.acc |= v << b.n
	b.n += n
	for b.n >= 8 {
		b.buf = append(b.buf, byte(b.acc))
		b.acc >>= 8
		b.n -= 8
	}
	if len(b.buf) >= 64<<10 {
		b.flushBuf()
	}
}

// code writes a Huffman code of n bits, which deflate stores MSB first.
func (b *bitWriter) code(c uint64, n uint) {
	b.bits(uint64(bits.Reverse16(uint16(c)))>>(16-n), n)
}

func (b *bitWriter) flushBuf() {
	if b.werr == nil && len(b.buf) > 0 {
		_, b.werr = b.w.Write(b.buf)
	}
	b.buf = b.buf[:0]
}

// align pads to a byte boundary and flushes.
func (b *bitWriter) align() error {
	if b.n > 0 {
		b.bits(0, 8-b.n)
	}
	b.flushBuf()
	return b.werr
}

// literal writes the fixed code of a literal byte or end-of-block (256).
func (b *bitWriter) literal(v int) {
	switch {
	case v < 144:
		b.code(uint64(0x30+v), 8)
	case v < 256:
		b.code(uint64(0x190+v-144), 9)
	default: // 256..279
		b.code(uint64(v-256), 7)
	}
}

// Length codes 257..285: base lengths and extra bits (RFC 1951, 3.2.5).
var (
	lengthBase  = [...]int{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [...]uint{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
)

// match writes a match of length 3..258 at distance 512.
func (b *bitWriter) match(length int) {
	i := len(lengthBase) - 1
	for lengthBase[i] > length {
		i--
	}
	sym := 257 + i
	if sym < 280 {
		b.code(uint64(sym-256), 7)
	} else {
		b.code(uint64(0xc0+sym-280), 8)
	}
	b.bits(uint64(length-lengthBase[i]), lengthExtra[i])
	// Distance 512: code 17 (base 385, 7 extra bits).
	b.code(17, 5)
	b.bits(512-385, 7)
}

// repeatPrev writes run bytes copied from 512 back, as matches (a run
// under 3 bytes cannot be a match: the caller writes literals).
func (b *bitWriter) repeatPrev(run int) {
	for run > 0 {
		l := min(run, 258)
		if r := run - l; r > 0 && r < 3 {
			l = run - 3 // leave a match of at least 3
		}
		b.match(l)
		run -= l
	}
}

// literals writes p as literals.
func (b *bitWriter) literals(p []byte) {
	for _, c := range p {
		b.literal(int(c))
	}
}

// bombHeader writes a bomb header whose first same bytes, and every byte
// from bombNameEnd on, equal those of the header before it.
func (b *bitWriter) bombHeader(h []byte, same int) {
	if same >= 3 {
		b.repeatPrev(same)
	} else {
		b.literals(h[:same])
	}
	b.literals(h[same:bombNameEnd])
	b.repeatPrev(len(h) - bombNameEnd)
}

// gzipEntryBomb returns a generator of the gzip of what entryBomb(n,
// last...) writes, in one member, using the fixed-code encoder.
func gzipEntryBomb(n int, last ...tarEntry) func(io.Writer) error {
	return func(w io.Writer) error {
		if _, err := w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}); err != nil {
			return err
		}
		bw := &bitWriter{w: w, buf: make([]byte, 0, 80<<10)}
		bw.bits(1, 1) // BFINAL: the only block
		bw.bits(1, 2) // BTYPE 01: fixed Huffman codes
		var (
			crc  uint32
			size int64
		)
		err := bombStream(n, last, func(block []byte, same int) error {
			crc = crc32.Update(crc, crc32.IEEETable, block)
			size += int64(len(block))
			if same >= 0 {
				bw.bombHeader(block, same)
			} else {
				bw.literals(block)
			}
			return bw.werr
		})
		if err != nil {
			return err
		}
		bw.literal(256)
		if err := bw.align(); err != nil {
			return err
		}
		var trailer [8]byte
		binary.LittleEndian.PutUint32(trailer[0:4], crc)
		binary.LittleEndian.PutUint32(trailer[4:8], uint32(size))
		_, err = w.Write(trailer[:])
		return err
	}
}
