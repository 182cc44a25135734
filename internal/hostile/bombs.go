package hostile

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Compression bombs are written without compressing their payload: the
// compressed form of one chunk of repeated bytes is computed once and
// written again and again. For gzip this works because a deflate stream
// may be cut into independently compressed pieces, each ended by a sync
// flush (pigz does the same); for zstd a stream may hold many frames. The
// result is one valid gzip member (or zstd stream) whose decompressed size
// is arbitrary, written in milliseconds with constant memory.

const bombChunk = 1 << 20 // bytes of fill compressed per repeated piece

// deflatePiece compresses data with a fresh compressor, so the piece refers
// to nothing before it, and ends it with a sync flush (or as the final
// block).
func deflatePiece(data []byte, final bool) ([]byte, error) {
	var buf bytes.Buffer
	fw, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := fw.Write(data); err != nil {
		return nil, err
	}
	if final {
		err = fw.Close()
	} else {
		err = fw.Flush()
	}
	return buf.Bytes(), err
}

// gzipBomb returns a generator of one gzip member decompressing to prefix,
// unit repeated count times, then suffix.
func gzipBomb(prefix, unit []byte, count int64, suffix []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		if len(unit) == 0 || len(unit) > bombChunk {
			return fmt.Errorf("hostile: bomb unit of %d bytes", len(unit))
		}
		per := int64(bombChunk / len(unit)) // units per repeated piece
		chunk := bytes.Repeat(unit, int(per))
		head, err := deflatePiece(prefix, false)
		if err != nil {
			return err
		}
		body, err := deflatePiece(chunk, false)
		if err != nil {
			return err
		}
		tail, err := deflatePiece(suffix, true)
		if err != nil {
			return err
		}
		// The gzip header: magic, deflate, no flags, no mtime, unknown OS.
		if _, err := w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}); err != nil {
			return err
		}
		if _, err := w.Write(head); err != nil {
			return err
		}
		crc := crc32.Update(0, crc32.IEEETable, prefix)
		for left := count; left > 0; left -= per {
			piece, data := body, chunk
			if left < per {
				data = chunk[:left*int64(len(unit))]
				if piece, err = deflatePiece(data, false); err != nil {
					return err
				}
			}
			crc = crc32.Update(crc, crc32.IEEETable, data)
			if _, err := w.Write(piece); err != nil {
				return err
			}
		}
		if _, err := w.Write(tail); err != nil {
			return err
		}
		crc = crc32.Update(crc, crc32.IEEETable, suffix)
		var trailer [8]byte
		binary.LittleEndian.PutUint32(trailer[0:4], crc)
		binary.LittleEndian.PutUint32(trailer[4:8], uint32(int64(len(prefix))+count*int64(len(unit))+int64(len(suffix))))
		_, err = w.Write(trailer[:])
		return err
	}
}

const zstdChunk = 4 << 20 // bytes of fill per repeated zstd frame

// zstdBomb returns a generator of a zstd stream of frames decompressing to
// prefix, n bytes of fill, then suffix.
func zstdBomb(prefix []byte, fill byte, n int64, suffix []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
		if err != nil {
			return err
		}
		defer enc.Close()
		chunk := bytes.Repeat([]byte{fill}, zstdChunk)
		body := enc.EncodeAll(chunk, nil)
		if _, err := w.Write(enc.EncodeAll(prefix, nil)); err != nil {
			return err
		}
		for left := n; left > 0; left -= zstdChunk {
			piece := body
			if left < zstdChunk {
				piece = enc.EncodeAll(chunk[:left], nil)
			}
			if _, err := w.Write(piece); err != nil {
				return err
			}
		}
		_, err = w.Write(enc.EncodeAll(suffix, nil))
		return err
	}
}

// paddedTarBomb returns the prefix and suffix that make a bomb's content a
// tar: a regular file named padName of n fill bytes (n a multiple of the
// block size), followed by last and the end of the archive.
func paddedTarBomb(padName string, n int64, last ...tarEntry) (prefix, suffix []byte, err error) {
	if n%blockSize != 0 {
		return nil, nil, fmt.Errorf("hostile: padding %d is not a multiple of %d", n, blockSize)
	}
	h, err := header(padName, typeReg, "", n, 0, 0)
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	if err := tarOf(last...)(&buf); err != nil {
		return nil, nil, err
	}
	return h[:], buf.Bytes(), nil
}

// entryBomb returns a generator of a tar holding a directory "bomb/" and n
// empty regular files, then last, then the end of the archive.
func entryBomb(n int, last ...tarEntry) func(io.Writer) error {
	return func(w io.Writer) error {
		const batch = 256 << 10
		buf := make([]byte, 0, batch+blockSize)
		err := bombStream(n, last, func(b []byte, _ int) error {
			buf = append(buf, b...)
			if len(buf) >= batch {
				_, err := w.Write(buf)
				buf = buf[:0]
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
		_, err = w.Write(buf)
		return err
	}
}

// Entry bomb names are "bomb/" and eight digits summing to bombDigitSum, in
// lexicographic order: every header has the same checksum, so one differs
// from the one before only in the last few digits of its name (there are
// 4,816,030 such names).
const (
	bombDigits   = 8
	bombDigitSum = 36
	bombMaxN     = 4_816_030
)

// bombNameEnd is the length of an entry bomb file name: past it, every
// header of the bomb is the same.
const bombNameEnd = len("bomb/") + bombDigits

// bombStream calls emit with the blocks of an entry bomb in order: the
// directory entry, n empty-file headers, the entries of last, the end of
// the archive. For the file headers after the first, same is the number
// of leading bytes equal to the header before, and every byte from
// bombNameEnd on is equal too; for the other blocks same is -1. The slice
// passed is reused.
func bombStream(n int, last []tarEntry, emit func(block []byte, same int) error) error {
	if n > bombMaxN {
		return fmt.Errorf("hostile: an entry bomb holds at most %d entries", bombMaxN)
	}
	var head bytes.Buffer
	if err := writeEntry(&head, special("bomb/", typeDir, "")); err != nil {
		return err
	}
	if err := emit(head.Bytes(), -1); err != nil {
		return err
	}
	// The smallest name: the sum packed to the right, "00009999".
	digits := make([]byte, bombDigits)
	for i, left := bombDigits-1, bombDigitSum; i >= 0; i-- {
		d := min(left, 9)
		digits[i] = byte(d)
		left -= d
	}
	// Every name has the same digit sum, hence every header the same
	// checksum: the template is patched, never re-summed.
	name := []byte("bomb/00000000")
	for k, d := range digits {
		name[len("bomb/")+k] = '0' + d
	}
	h, err := header(string(name), typeReg, "", 0, 0, 0)
	if err != nil {
		return err
	}
	for i := range n {
		same := -1
		if i > 0 {
			first, ok := nextDigitsFrom(digits)
			if !ok {
				return errors.New("hostile: entry bomb names exhausted")
			}
			for k := first; k < bombDigits; k++ {
				h[len("bomb/")+k] = '0' + digits[k]
			}
			same = len("bomb/") + first
		}
		if err := emit(h[:], same); err != nil {
			return err
		}
	}
	var tail bytes.Buffer
	if err := tarOf(last...)(&tail); err != nil {
		return err
	}
	return emit(tail.Bytes(), -1)
}

// nextDigitsFrom is nextDigits that also returns the first index changed.
func nextDigitsFrom(d []byte) (int, bool) {
	right := 0
	for i := len(d) - 1; i >= 0; i-- {
		if i < len(d)-1 && d[i] < 9 && right > 0 {
			d[i]++
			right--
			for k := len(d) - 1; k > i; k-- {
				v := byte(min(right, 9))
				d[k] = v
				right -= int(v)
			}
			return i, true
		}
		right += int(d[i])
	}
	return 0, false
}

// nextDigits advances d to the lexicographically next digit string with the
// same sum, reporting false when d was the last.
func nextDigits(d []byte) bool {
	_, ok := nextDigitsFrom(d)
	return ok
}

// repeatEntry returns a generator of a tar entry named name whose content
// is prefix, then unit repeated count times, then suffix, streamed.
func repeatEntry(name string, prefix, unit []byte, count int64, suffix []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		size := int64(len(prefix)) + int64(len(unit))*count + int64(len(suffix))
		h, err := header(name, typeReg, "", size, 0, 0)
		if err != nil {
			return err
		}
		if _, err := w.Write(h[:]); err != nil {
			return err
		}
		if err := repeatContent(w, prefix, unit, count, suffix); err != nil {
			return err
		}
		return pad(w, size)
	}
}

// repeatContent writes prefix, unit repeated count times, then suffix, in
// chunks of about 1 MiB.
func repeatContent(w io.Writer, prefix, unit []byte, count int64, suffix []byte) error {
	if _, err := w.Write(prefix); err != nil {
		return err
	}
	per := int64(1)
	if len(unit) > 0 && len(unit) < bombChunk {
		per = int64(bombChunk / len(unit))
	}
	chunk := bytes.Repeat(unit, int(min(per, count)))
	for left := count; left > 0; left -= per {
		part := chunk
		if left < per {
			part = chunk[:int(left)*len(unit)]
		}
		if _, err := w.Write(part); err != nil {
			return err
		}
	}
	_, err := w.Write(suffix)
	return err
}
