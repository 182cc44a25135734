package hostile

import (
	"fmt"
	"io"
	"strconv"
)

// The corpus writes tar by hand rather than through archive/tar, whose
// Writer refuses exactly what the corpus needs: headers whose size lies,
// content shorter than the header says, names that escape, duplicate
// entries. Every header is USTAR with a fixed mtime, owner and mode, so the
// output is byte-for-byte deterministic.

const blockSize = 512

// Tar type flags used by the corpus (the values of archive/tar's Type*).
const (
	typeReg     = '0'
	typeLink    = '1'
	typeSymlink = '2'
	typeChar    = '3'
	typeBlock   = '4'
	typeDir     = '5'
	typeFifo    = '6'
)

// tarEntry is one entry as the corpus writes it.
type tarEntry struct {
	name     string
	typeflag byte   // 0 means typeReg
	linkname string // for links
	data     []byte // content written after the header
	// size is the size the header claims; -1 means len(data). When it
	// differs from len(data) the archive lies.
	size int64
	// devMajor and devMinor are the device numbers of char and block
	// devices.
	devMajor, devMinor int64
}

// file returns a regular-file entry holding data.
func file(name string, data []byte) tarEntry {
	return tarEntry{name: name, typeflag: typeReg, data: data, size: -1}
}

// special returns an entry of the given type with no content.
func special(name string, typeflag byte, linkname string) tarEntry {
	return tarEntry{name: name, typeflag: typeflag, linkname: linkname, size: -1}
}

// header builds the 512-byte USTAR header of e.
func header(name string, typeflag byte, linkname string, size, devMajor, devMinor int64) ([blockSize]byte, error) {
	var h [blockSize]byte
	if len(name) > 100 || len(linkname) > 100 {
		return h, fmt.Errorf("hostile: tar name %.20q… longer than 100 bytes", name)
	}
	if size < 0 || size > 077777777777 {
		return h, fmt.Errorf("hostile: tar size %d does not fit an octal field", size)
	}
	if typeflag == 0 {
		typeflag = typeReg
	}
	mode := int64(0o644)
	if typeflag == typeDir {
		mode = 0o755
	}
	copy(h[0:100], name)
	octal(h[100:108], mode)
	octal(h[108:116], 0) // uid
	octal(h[116:124], 0) // gid
	octal(h[124:136], size)
	octal(h[136:148], 0) // mtime: the epoch, as Crossplane's build writes it
	h[156] = typeflag
	copy(h[157:257], linkname)
	copy(h[257:263], "ustar\x00")
	copy(h[263:265], "00")
	if typeflag == typeChar || typeflag == typeBlock {
		octal(h[329:337], devMajor)
		octal(h[337:345], devMinor)
	}
	// The checksum is the sum of all bytes with the checksum field read
	// as spaces, written as six octal digits, NUL, space.
	for i := 148; i < 156; i++ {
		h[i] = ' '
	}
	var sum int64
	for _, b := range h {
		sum += int64(b)
	}
	octal(h[148:155], sum)
	h[155] = ' '
	return h, nil
}

// octal writes v as zero-padded octal digits filling all but the last byte
// of field, which is NUL.
func octal(field []byte, v int64) {
	s := strconv.FormatInt(v, 8)
	n := len(field) - 1
	for i := range n {
		field[i] = '0'
	}
	copy(field[n-len(s):n], s)
	field[n] = 0
}

// zeroBlocks holds the padding and end-of-archive bytes.
var zeroBlocks [2 * blockSize]byte

// writeEntry writes e's header, its data, and the padding that rounds the
// data up to a block.
func writeEntry(w io.Writer, e tarEntry) error {
	size := e.size
	if size < 0 {
		size = int64(len(e.data))
	}
	h, err := header(e.name, e.typeflag, e.linkname, size, e.devMajor, e.devMinor)
	if err != nil {
		return err
	}
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	if _, err := w.Write(e.data); err != nil {
		return err
	}
	return pad(w, int64(len(e.data)))
}

// pad writes the zeros that round n bytes of content up to a block.
func pad(w io.Writer, n int64) error {
	if r := n % blockSize; r != 0 {
		_, err := w.Write(zeroBlocks[:blockSize-r])
		return err
	}
	return nil
}

// writeEnd writes the end-of-archive marker: two zero blocks.
func writeEnd(w io.Writer) error {
	_, err := w.Write(zeroBlocks[:])
	return err
}

// tarOf returns a generator of a complete tar holding entries, ended.
func tarOf(entries ...tarEntry) func(io.Writer) error {
	return func(w io.Writer) error {
		for _, e := range entries {
			if err := writeEntry(w, e); err != nil {
				return err
			}
		}
		return writeEnd(w)
	}
}
