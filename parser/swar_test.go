package parser

import (
	"encoding/binary"
	"testing"
)

// TestPrintableASCII checks printableASCII against the byte-by-byte
// definition for every byte value at every position of a word, the rest
// of the word printable, and for pairs of bytes that could interact
// through a borrow or a carry.
func TestPrintableASCII(t *testing.T) {
	t.Parallel()
	printable := func(c byte) bool { return c >= 0x20 && c < 0x7F }
	word := func(b [8]byte) uint64 { return binary.LittleEndian.Uint64(b[:]) }
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			b := [8]byte{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}
			b[pos] = byte(c)
			if got, want := printableASCII(word(b)), printable(byte(c)); got != want {
				t.Errorf("byte %#x at %d: got %v, want %v", c, pos, got, want)
			}
		}
	}
	edges := []byte{0x00, 0x01, 0x1F, 0x20, 0x21, 0x7E, 0x7F, 0x80, 0xFE, 0xFF}
	for lo := 0; lo < 7; lo++ {
		for _, x := range edges {
			for _, y := range edges {
				b := [8]byte{' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}
				b[lo], b[lo+1] = x, y
				want := printable(x) && printable(y)
				if got := printableASCII(word(b)); got != want {
					t.Errorf("bytes %#x %#x at %d: got %v, want %v", x, y, lo, got, want)
				}
			}
		}
	}
}
