package parser

import "github.com/klauspost/compress/s2"

// Objects keep their documents' bytes for Raw, Unstructured and
// FieldPosition. Most of a package's bytes are CRD schemas that few callers
// read again, so documents above compressMin bytes are kept S2-compressed
// (about a sixth of their size; S2 decodes at several GB/s). That makes the
// raw bytes of a 102 MB package cost about 16 MB, instead of dominating the
// memory a parsed package holds.
const compressMin = 1 << 10

// rawBytes is a document's bytes, possibly compressed.
type rawBytes struct {
	data       []byte
	compressed bool
}

func newRawBytes(b []byte) rawBytes {
	if len(b) < compressMin {
		return rawBytes{data: b}
	}
	c := s2.Encode(nil, b)
	if len(c) >= len(b) {
		return rawBytes{data: b}
	}
	// s2.Encode sizes dst for the worst case; keep only what is used.
	return rawBytes{data: append([]byte(nil), c...), compressed: true}
}

// bytes returns the document's bytes, nil if none were kept.
func (r rawBytes) bytes() []byte {
	if !r.compressed {
		return r.data
	}
	b, err := s2.Decode(nil, r.data)
	if err != nil { // cannot happen: the data never leaves this package
		return nil
	}
	return b
}
