package verdictcache

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
	"strings"
)

// A pack is one file of entries, written whole and renamed into place,
// never changed after:
//
//	magic     8 bytes, packMagic
//	records   each entry's value, one after another
//	table     for each entry: its key's length (1 byte), the key, the
//	          record's offset (8 bytes) and length (4 bytes), and the
//	          CRC-32C of the key followed by the record (4 bytes)
//	footer    the table's offset (8 bytes), length (4 bytes), entry count
//	          (4 bytes) and CRC-32C (4 bytes), 4 bytes of zero, packMagic
//
// Integers are little-endian. A reader trusts none of it: a pack whose
// magic, footer, table checksum or any table entry does not hold (a key
// that is not one, a record outside the records, larger than an entry may
// be, a count the table cannot hold) is read as no pack; a record whose
// checksum does not hold is a miss.
const (
	// packMagic starts and ends every pack.
	packMagic = "xpkgvpk1"
	// footerSize is the footer's size.
	footerSize = 32
	// entryFixed is a table entry's size beside its key.
	entryFixed = 1 + 8 + 4 + 4
	// maxTableBytes bounds a pack's table: a pack with a larger one is
	// not read.
	maxTableBytes = 16 << 20
	// packPrefix and packSuffix frame a pack's name, around the hex of
	// its creation time and 8 random bytes.
	packPrefix = "v1-"
	packSuffix = ".pack"
)

// castagnoli is the CRC-32C table.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errBadPack is the class of a pack that does not hold.
var errBadPack = errors.New("verdictcache: not a pack")

// recordSum is the checksum of key's record value.
func recordSum(key []byte, value []byte) uint32 {
	return crc32.Update(crc32.Update(0, castagnoli, key), castagnoli, value)
}

// tableEntry is one entry of a pack's table; key is a slice of the table.
type tableEntry struct {
	key []byte
	off int64
	n   uint32
	sum uint32
}

// appendTableEntry appends e's table entry to b.
func appendTableEntry(b []byte, e tableEntry) []byte {
	b = append(b, byte(len(e.key)))
	b = append(b, e.key...)
	b = binary.LittleEndian.AppendUint64(b, uint64(e.off))
	b = binary.LittleEndian.AppendUint32(b, e.n)
	return binary.LittleEndian.AppendUint32(b, e.sum)
}

// appendFooter appends the footer of a table of count entries, which
// starts at tableOff and is table, to b.
func appendFooter(b []byte, tableOff int64, table []byte, count int) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(tableOff))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(table)))
	b = binary.LittleEndian.AppendUint32(b, uint32(count))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(table, castagnoli))
	b = binary.LittleEndian.AppendUint32(b, 0)
	return append(b, packMagic...)
}

// readTable reads the table of the pack f, of size bytes, when it holds
// at most maxKeys entries, and checks it whole.
func readTable(f io.ReaderAt, size int64, maxKeys int) ([]tableEntry, error) {
	if size < int64(len(packMagic)+footerSize) {
		return nil, fmt.Errorf("%w: %d bytes", errBadPack, size)
	}
	var head [len(packMagic)]byte
	if _, err := f.ReadAt(head[:], 0); err != nil || string(head[:]) != packMagic {
		return nil, fmt.Errorf("%w: no magic", errBadPack)
	}
	var foot [footerSize]byte
	if _, err := f.ReadAt(foot[:], size-footerSize); err != nil || string(foot[24:]) != packMagic {
		return nil, fmt.Errorf("%w: no footer", errBadPack)
	}
	tableOff := binary.LittleEndian.Uint64(foot[0:])
	tableLen := int64(binary.LittleEndian.Uint32(foot[8:]))
	count := int64(binary.LittleEndian.Uint32(foot[12:]))
	sum := binary.LittleEndian.Uint32(foot[16:])
	end := size - footerSize
	switch {
	case tableOff < uint64(len(packMagic)) || tableOff > uint64(end) || int64(tableOff)+tableLen != end:
		return nil, fmt.Errorf("%w: a table outside the file", errBadPack)
	case tableLen > maxTableBytes || count > int64(maxKeys):
		return nil, fmt.Errorf("%w: a table past the bounds", errBadPack)
	case count < 1 || tableLen < count*(entryFixed+1) || tableLen > count*(entryFixed+maxKeyLen):
		return nil, fmt.Errorf("%w: %d entries in a table of %d bytes", errBadPack, count, tableLen)
	}
	table := make([]byte, tableLen)
	if _, err := f.ReadAt(table, int64(tableOff)); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadPack, err)
	}
	if crc32.Checksum(table, castagnoli) != sum {
		return nil, fmt.Errorf("%w: the table's checksum", errBadPack)
	}
	out := make([]tableEntry, 0, count)
	p := table
	for range count {
		if len(p) < 1 {
			return nil, fmt.Errorf("%w: a short table", errBadPack)
		}
		kl := int(p[0])
		if kl < 1 || len(p) < kl+entryFixed {
			return nil, fmt.Errorf("%w: a short table", errBadPack)
		}
		key := p[1 : 1+kl : 1+kl]
		rest := p[1+kl:]
		e := tableEntry{
			key: key,
			off: int64(binary.LittleEndian.Uint64(rest)),
			n:   binary.LittleEndian.Uint32(rest[8:]),
			sum: binary.LittleEndian.Uint32(rest[12:]),
		}
		if !validKey(key) || e.off < int64(len(packMagic)) || e.n > maxEntrySize || e.off > int64(tableOff) || int64(e.n) > int64(tableOff)-e.off {
			return nil, fmt.Errorf("%w: a table entry that does not hold", errBadPack)
		}
		out = append(out, e)
		p = rest[16:]
	}
	if len(p) != 0 {
		return nil, fmt.Errorf("%w: bytes past the table's entries", errBadPack)
	}
	return out, nil
}

// packName is the name of a new pack: the hex of the time and of 8
// random bytes.
func packName(nanos int64, rnd uint64) string {
	return fmt.Sprintf("%s%016x-%016x%s", packPrefix, uint64(nanos), rnd, packSuffix)
}

// isPackName reports whether name is one packName makes.
func isPackName(name string) bool {
	if len(name) != len(packPrefix)+16+1+16+len(packSuffix) || !strings.HasPrefix(name, packPrefix) || !strings.HasSuffix(name, packSuffix) {
		return false
	}
	mid := name[len(packPrefix) : len(name)-len(packSuffix)]
	if mid[16] != '-' {
		return false
	}
	_, err1 := strconv.ParseUint(mid[:16], 16, 64)
	_, err2 := strconv.ParseUint(mid[17:], 16, 64)
	return err1 == nil && err2 == nil
}

// openPack opens the pack name under the root of d for reading, when it
// is a regular file: opened without blocking (a FIFO in its place
// returns at once) and checked once open.
func (d *Dir) openPack(name string) (*os.File, int64, error) {
	f, err := d.root.OpenFile(name, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%w: %s is not a regular file", errBadPack, name)
	}
	return f, fi.Size(), nil
}

// packWriter writes a pack to a file, one record at a time.
type packWriter struct {
	w     *bufio.Writer
	off   int64 // the next record's offset
	table []byte
	count int
	size  int64 // the pack's size, once finished
	err   error
}

func newPackWriter(f io.Writer) *packWriter {
	w := bufio.NewWriterSize(f, 64<<10)
	_, err := w.WriteString(packMagic)
	return &packWriter{w: w, off: int64(len(packMagic)), err: err}
}

// fits reports whether the pack can take e within the bounds a reader
// reads.
func (p *packWriter) fits(e tableEntry) bool {
	return p.count < maxKeysRead && len(p.table)+len(e.key)+entryFixed <= maxTableBytes
}

// add writes key's record value.
func (p *packWriter) add(key, value []byte) {
	if p.err != nil {
		return
	}
	if _, p.err = p.w.Write(value); p.err != nil {
		return
	}
	p.table = appendTableEntry(p.table, tableEntry{key: key, off: p.off, n: uint32(len(value)), sum: recordSum(key, value)})
	p.off += int64(len(value))
	p.count++
}

// finish writes the table and the footer.
func (p *packWriter) finish() error {
	if p.err != nil {
		return p.err
	}
	n := len(p.table)
	tail := appendFooter(p.table, p.off, p.table[:n:n], p.count)
	if _, err := p.w.Write(tail); err != nil {
		return err
	}
	p.size = p.off + int64(len(tail))
	return p.w.Flush()
}
