package parser

import (
	"sync"

	"github.com/klauspost/compress/s2"
)

// Objects keep their documents' bytes for Raw, Unstructured and
// FieldPosition. Most of a package's bytes are CRD schemas that few callers
// read again, and consecutive CRDs repeat one another's text, so one parse
// keeps its documents' bytes in groups of consecutive documents of about
// rawGroupSize bytes, each group S2-compressed as one block once it is full:
// the compressor then finds what a document repeats of its neighbours.
// That makes the raw bytes of the 102 MB monolith cost about 4 MB (S2
// decodes at several GB/s), where compressing each document alone kept
// 14 MB. Reading a document decodes its group; the last few groups decoded
// are kept, so reading the objects in order decodes each group once.
const rawGroupSize = 1 << 20

// rawCacheGroups is how many decoded groups a store keeps.
const rawCacheGroups = 4

// rawBytes is a document's bytes: a slice of its group.
type rawBytes struct {
	g      *rawGroup
	off, n int
}

// rawGroup is consecutive documents' bytes, compressed once sealed.
type rawGroup struct {
	store      *rawStore
	data       []byte
	compressed bool
}

// rawStore holds the raw bytes of one parse's documents. add and seal are
// called by the goroutine that splits the streams; bytes by anyone once the
// parse is over.
type rawStore struct {
	open *rawGroup
	buf  []byte // the open group's bytes, reused from group to group
	enc  []byte // seal's encoding buffer

	mu    sync.Mutex
	cache [rawCacheGroups]struct {
		g    *rawGroup
		data []byte
	}
	next int
}

// add stores a copy of doc and returns its reference.
func (s *rawStore) add(doc []byte) rawBytes {
	if g := s.open; g != nil && len(g.data)+len(doc) > rawGroupSize {
		s.seal()
	}
	if s.open == nil {
		if cap(s.buf) < rawGroupSize {
			s.buf = make([]byte, 0, rawGroupSize)
		}
		s.open = &rawGroup{store: s, data: s.buf[:0]}
	}
	g := s.open
	r := rawBytes{g: g, off: len(g.data), n: len(doc)}
	g.data = append(g.data, doc...)
	return r
}

// seal compresses the open group, if any.
func (s *rawStore) seal() {
	g := s.open
	if g == nil {
		return
	}
	s.open = nil
	// The open group's buffer is used again for the next group (unless a
	// large document grew it): the group keeps a copy of its bytes,
	// compressed when that is smaller.
	if cap(g.data) <= 2*rawGroupSize {
		s.buf = g.data[:0]
	} else {
		s.buf = nil
	}
	if len(g.data) >= compressMin {
		// s2.Encode needs dst sized for the worst case.
		if n := s2.MaxEncodedLen(len(g.data)); cap(s.enc) < n {
			s.enc = make([]byte, n)
		}
		if c := s2.Encode(s.enc[:cap(s.enc)], g.data); len(c) < len(g.data) {
			g.data, g.compressed = append([]byte(nil), c...), true
			s.dropLargeEnc()
			return
		}
	}
	g.data = append([]byte(nil), g.data...)
	s.dropLargeEnc()
}

// close seals the open group and lets the collector have the buffers add
// and seal reuse (2.2 MiB): the store itself lives as long as the objects
// that refer to it, and no document is added once the parse is over.
func (s *rawStore) close() {
	s.seal()
	s.buf, s.enc = nil, nil
}

// dropLargeEnc lets the collector have an encoding buffer grown for a
// large document.
func (s *rawStore) dropLargeEnc() {
	if cap(s.enc) > 2*rawGroupSize {
		s.enc = nil
	}
}

// compressMin is the size under which a group is not compressed.
const compressMin = 1 << 10

// bytes returns a new copy of the document's bytes, nil if none were kept.
func (r rawBytes) bytes() []byte {
	g := r.g
	if g == nil {
		return nil
	}
	if !g.compressed {
		return append([]byte(nil), g.data[r.off:r.off+r.n]...)
	}
	if r.off == 0 && len(g.data) > 0 && r.n > rawGroupSize {
		// A group of one large document: decoded for this call alone, not
		// kept.
		b, err := s2.Decode(nil, g.data)
		if err != nil { // cannot happen: the data never leaves this package
			return nil
		}
		return b[:r.n]
	}
	return g.store.copyOut(r)
}

// copyOut returns a copy of r's bytes out of its group decoded, from the
// cache or decoded into it (reusing the buffer of the group it replaces).
func (s *rawStore) copyOut(r rawBytes) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.cache {
		if c.g == r.g {
			return append([]byte(nil), c.data[r.off:r.off+r.n]...)
		}
	}
	c := &s.cache[s.next]
	s.next = (s.next + 1) % rawCacheGroups
	b, err := s2.Decode(c.data[:0], r.g.data)
	if err != nil || len(b) < r.off+r.n { // cannot happen: the data never leaves this package
		c.g, c.data = nil, nil
		return nil
	}
	c.g, c.data = r.g, b
	return append([]byte(nil), b[r.off:r.off+r.n]...)
}
