package parser

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/limit"
)

// Document is one document of a YAML stream, as a Splitter yields it.
type Document struct {
	// Pos is where the document's content starts: the first line that is not
	// blank, a comment, a directive or a bare `---` marker, and the column of
	// its first character. For an empty document it is where the document
	// starts (its `---` marker).
	Pos Position
	// DataPos is the position of the first byte of Data: column 1 of a line,
	// except for an empty last document whose `---` ends the stream without a
	// line end. It differs from Pos when the document opens with comments or
	// blank lines, or with directives and a `---` marker that Data keeps.
	DataPos Position
	// Data holds the document's bytes exactly as they are in the stream,
	// without the `---` line that starts it (kept only when the line carries
	// content, or when directives precede it) and without the `---` or `...`
	// line that ends it. It is nil when the document exceeded
	// Limits.MaxDocumentBytes.
	Data []byte
	// Empty reports that the document holds nothing but blank lines,
	// comments and markers. Parsers skip empty documents, as Crossplane does.
	Empty bool
}

// Splitter splits a YAML stream into documents without parsing them. It
// reads the stream line by line and buffers one document at a time, so its
// memory is bounded by Limits.MaxDocumentBytes.
//
// A line is a document start marker when it begins with `---` followed by
// a space, a tab, a line end or the end of the stream; likewise `...` ends
// a document. `%` lines between documents are directives and stay with the
// document they precede. A UTF-8 byte order mark at the start of the stream
// is skipped; CRLF line ends are kept in Data.
type Splitter struct {
	r     *bufio.Reader
	file  string
	lim   Limits
	total int64 // bytes consumed before this stream (ParseFS)
	docs  int   // documents counted before this stream (ParseFS)

	line   int   // number of the next line to read
	off    int64 // offset of the next line's first byte
	index  int   // index of the next document
	start  bool  // nothing read yet (byte order mark check)
	err    error // final error, returned by every later call
	long   []byte
	buf    []byte // data of the document being built
	marker []byte // a `---` line read while a document was open
	mline  int
	moff   int64
	hasMk  bool
	bomLen int             // bytes of the byte order mark skipped
	ctx    context.Context // checked while a long line is read; nil for NewSplitter
}

// NewSplitter returns a Splitter reading r (for a nil r, one whose Next
// returns an error). Of the options it honours
// WithFile (the name in positions) and WithLimits (MaxDocumentBytes,
// MaxTotalBytes and MaxDocuments); it ignores the others.
func NewSplitter(r io.Reader, opts ...Option) *Splitter {
	c := newConfig(opts)
	return newSplitter(r, c.file, c.limits, 0, 0)
}

func newSplitter(r io.Reader, file string, lim Limits, total int64, docs int) *Splitter {
	if r == nil {
		return &Splitter{file: file, lim: lim, err: errors.New("parser: nil reader")}
	}
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < splitBufSize {
		br = bufio.NewReaderSize(r, splitBufSize)
	}
	return &Splitter{
		r:     br,
		file:  file,
		lim:   lim,
		total: total,
		docs:  docs,
		line:  1,
		start: true,
	}
}

// Offset returns the number of bytes the splitter has consumed.
func (s *Splitter) Offset() int64 { return s.off }

// Next returns the next document. It returns io.EOF after the last one.
//
// When a document is larger than Limits.MaxDocumentBytes, Next returns it
// without Data together with a *limit.Error, and the following call goes on
// with the next document. A stream in UTF-16 or UTF-32 (it starts with
// their byte order mark) is one document without Data, returned with a
// *DocumentError wrapping ErrSyntax, followed by io.EOF. Any other error (a read error, or a
// MaxTotalBytes or MaxDocuments *limit.Error) is final: Next returns it
// again on every later call.
func (s *Splitter) Next() (Document, error) {
	if s.err != nil {
		return Document{}, s.err
	}
	if s.start {
		if err := s.checkEncoding(); err != nil {
			return Document{Pos: err.Pos, DataPos: err.Pos}, err
		}
	}
	b := builder{s: s}
	if s.hasMk {
		s.hasMk = false
		if err := b.openMarker(s.marker, s.mline, s.moff); err != nil {
			return Document{}, s.fail(err)
		}
	}
	for {
		line, num, off, err := s.readLine()
		if err != nil {
			// Checked only on an error: errors.As's target escapes, and
			// this loop runs once per line.
			var le *limit.Error
			switch {
			case errors.As(err, &le), s.ctx != nil && errors.Is(err, s.ctx.Err()):
				return Document{}, s.fail(err)
			case !errors.Is(err, io.EOF):
				return Document{}, s.fail(fmt.Errorf("parser: reading %s: %w", s.name(), err))
			}
		}
		if line == nil && err != nil { // end of stream
			if b.open {
				return b.finish()
			}
			s.err = io.EOF
			return Document{}, io.EOF
		}
		kind, col := classify(line, b.open)
		switch {
		case kind == lineStart && b.open:
			s.marker = append(s.marker[:0], line...)
			s.mline, s.moff, s.hasMk = num, off, true
			return b.finish()
		case kind == lineStart:
			if err := b.openMarker(line, num, off); err != nil {
				return Document{}, s.fail(err)
			}
		case kind == lineEnd:
			if b.open {
				return b.finish()
			}
			b.prefixReset()
		case !b.open && kind == lineDirective:
			b.addPrefix(line, num, off)
		case !b.open && kind == lineBlank:
			if b.prefixSet {
				b.addPrefix(line, num, off)
			}
		case !b.open: // content: a bare document
			if err := b.openBare(num, off); err != nil {
				return Document{}, s.fail(err)
			}
			b.content(num, off, col)
			b.append(line)
		default:
			if kind == lineContent && !b.hasContent {
				b.content(num, off, col)
			}
			b.append(line)
		}
		if err != nil { // io.EOF after a final line without a line end
			if b.open {
				return b.finish()
			}
			s.err = io.EOF
			return Document{}, io.EOF
		}
	}
}

func (s *Splitter) name() string {
	if s.file == "" {
		return "stream"
	}
	return s.file
}

func (s *Splitter) fail(err error) error {
	s.err = err
	return err
}

// overTotal returns the MaxTotalBytes *limit.Error when the n bytes of the
// line starting at offset off (number num) take the parse past the limit,
// positioned at the first byte past it; otherwise nil.
func (s *Splitter) overTotal(num int, off, n int64) error {
	maxTotal := s.lim.MaxTotalBytes
	if maxTotal <= 0 || s.total+off+n <= maxTotal {
		return nil
	}
	k := maxTotal - s.total - off // index in the line of the first byte past the limit
	if k < 0 {
		k = 0
	}
	pos := Position{File: s.file, Document: s.index, Line: num, Column: int(k) + 1, Offset: off + k}
	if num == 1 && s.bomLen > 0 { // columns of line 1 start after the byte order mark
		pos.Column = max(1, pos.Column-s.bomLen)
	}
	return limitErr(limitval.MaxTotalBytes, maxTotal, pos)
}

// readLine returns the next line with its line end, its number and the
// offset of its first byte. A line longer than MaxDocumentBytes is
// truncated (the document it belongs to is too large anyway). At the end of
// the stream it returns a nil line and io.EOF; a last line without a line
// end comes with io.EOF. A line that takes the stream past MaxTotalBytes is
// a *limit.Error, returned as soon as the limit is passed, however long the
// line; so is the context's error when it is done while a long line is
// read.
func (s *Splitter) readLine() (line []byte, num int, off int64, err error) {
	num, off = s.line, s.off
	chunk, err := s.r.ReadSlice('\n')
	n := int64(len(chunk))
	if s.start && bytes.HasPrefix(chunk, bom) {
		s.bomLen = len(bom)
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], chunk...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if lerr := s.overTotal(num, off, n); lerr != nil {
				return nil, num, off, lerr
			}
			if s.ctx != nil {
				if cerr := s.ctx.Err(); cerr != nil {
					return nil, num, off, cerr
				}
			}
			chunk, err = s.r.ReadSlice('\n')
			n += int64(len(chunk))
			if max := s.lim.MaxDocumentBytes; max <= 0 || int64(len(s.long)) <= max {
				s.long = append(s.long, chunk...)
			}
		}
		chunk = s.long
	}
	if lerr := s.overTotal(num, off, n); lerr != nil {
		return nil, num, off, lerr
	}
	s.off += n
	if n == 0 {
		if err == nil {
			err = io.EOF
		}
		return nil, num, off, err
	}
	s.line++
	if s.start {
		s.start = false
		if s.bomLen > 0 {
			chunk = chunk[len(bom):]
			off += int64(len(bom))
		}
	}
	return chunk, num, off, err
}

// splitBufSize is the size of the splitter's read buffer.
const splitBufSize = 64 << 10

var bom = []byte("\xef\xbb\xbf")

// checkEncoding refuses a stream that starts with the byte order mark of
// UTF-16 or UTF-32. The YAML decoder would read it, but a line-based
// splitter cannot split it (Kubernetes' YAML reader, which Crossplane
// splits package.yaml with, passes the whole stream on as one document, of
// which only the first is read): the whole stream is one document error,
// and the splitter reads no further.
func (s *Splitter) checkEncoding() *DocumentError {
	head, _ := s.r.Peek(4)
	if !(bytes.HasPrefix(head, utf16LE) || bytes.HasPrefix(head, utf16BE) || bytes.HasPrefix(head, utf32BE)) {
		return nil
	}
	s.start = false
	s.err = io.EOF
	pos := Position{File: s.file, Document: s.index, Line: 1, Column: 1}
	s.index++
	return &DocumentError{Pos: pos, Err: errUTF16}
}

var (
	utf16LE  = []byte{0xff, 0xfe} // also the start of UTF-32LE's
	utf16BE  = []byte{0xfe, 0xff}
	utf32BE  = []byte{0, 0, 0xfe, 0xff}
	errUTF16 = fmt.Errorf("%w: UTF-16 or UTF-32 byte order mark: a package's YAML must be UTF-8 "+
		"(Kubernetes' document splitter, which Crossplane uses, reads it as one document)", ErrSyntax)
)

type lineKind int

const (
	lineBlank     lineKind = iota // empty, white space or a comment
	lineContent                   // anything else
	lineStart                     // a `---` marker
	lineEnd                       // a `...` marker
	lineDirective                 // a `%` directive (outside documents)
)

// classify says what a line is and, for content (and a marker followed by
// content), the 1-based column where the content starts (0 if none).
func classify(line []byte, open bool) (lineKind, int) {
	if len(line) >= 3 && (line[0] == '-' || line[0] == '.') && line[1] == line[0] && line[2] == line[0] &&
		(len(line) == 3 || isSpace(line[3])) {
		if line[0] == '.' {
			return lineEnd, 0
		}
		col := firstContent(line, 3)
		return lineStart, col
	}
	if !open && len(line) > 0 && line[0] == '%' {
		return lineDirective, 1
	}
	if col := firstContent(line, 0); col > 0 {
		return lineContent, col
	}
	return lineBlank, 0
}

// firstContent returns the 1-based column of the first byte of line at or
// after from that is neither white space nor the start of a comment, or 0.
func firstContent(line []byte, from int) int {
	for i := from; i < len(line); i++ {
		switch line[i] {
		case ' ', '\t', '\r', '\n':
			continue
		case '#':
			return 0
		default:
			return i + 1
		}
	}
	return 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// builder accumulates one document.
type builder struct {
	s          *Splitter
	open       bool
	hasContent bool
	prefixSet  bool
	tooBig     bool
	size       int64
	pos        Position
	dataPos    Position
}

func (b *builder) position(num int, off int64, col int) Position {
	return Position{File: b.s.file, Document: b.s.index, Line: num, Column: col, Offset: off + int64(col-1)}
}

// begin opens a document. A prefix gathered before it (directives and the
// blank lines among them) stays in the buffer as the document's first lines.
func (b *builder) begin() error {
	s := b.s
	if max := s.lim.MaxDocuments; max > 0 && s.docs+s.index >= max {
		return limitErr(limitval.MaxDocuments, int64(max), b.pos)
	}
	b.open = true
	if !b.prefixSet {
		s.buf = s.buf[:0]
	}
	return nil
}

func (b *builder) addPrefix(line []byte, num int, off int64) {
	if !b.prefixSet {
		b.prefixSet = true
		b.s.buf = b.s.buf[:0]
		b.size = 0
		b.tooBig = false
		b.dataPos = b.position(num, off, 1)
	}
	b.append(line)
}

func (b *builder) prefixReset() {
	b.prefixSet, b.size, b.tooBig = false, 0, false
	b.s.buf = b.s.buf[:0]
}

func (b *builder) openMarker(line []byte, num int, off int64) error {
	b.pos = b.position(num, off, 1)
	prefix := b.prefixSet
	if err := b.begin(); err != nil {
		return err
	}
	_, col := classify(line, true)
	switch {
	case prefix:
		b.append(line)
	case col > 0:
		b.dataPos = b.position(num, off, 1)
		b.size = 0
		b.append(line)
	case len(line) > 0 && line[len(line)-1] != '\n': // the stream's last line
		b.dataPos = b.position(num, off, len(line)+1)
		b.size = 0
	default:
		b.dataPos = b.position(num+1, off+int64(len(line)), 1)
		b.size = 0
	}
	if col > 0 {
		b.content(num, off, col)
	}
	return nil
}

func (b *builder) openBare(num int, off int64) error {
	b.pos = b.position(num, off, 1)
	prefix := b.prefixSet
	if err := b.begin(); err != nil {
		return err
	}
	if !prefix {
		b.dataPos = b.position(num, off, 1)
		b.size = 0
	}
	return nil
}

func (b *builder) content(num int, off int64, col int) {
	b.hasContent = true
	b.pos = b.position(num, off, col)
}

func (b *builder) append(line []byte) {
	b.size += int64(len(line))
	if b.tooBig {
		return
	}
	if max := b.s.lim.MaxDocumentBytes; max > 0 && b.size > max {
		b.tooBig = true
		b.s.buf = b.s.buf[:0]
		return
	}
	b.s.buf = append(b.s.buf, line...)
}

func (b *builder) finish() (Document, error) {
	s := b.s
	d := Document{Pos: b.pos, DataPos: b.dataPos, Empty: !b.hasContent}
	s.index++
	if b.tooBig {
		// Keep the retained buffer small after a huge document.
		s.buf = nil
		return d, limitErr(limitval.MaxDocumentBytes, s.lim.MaxDocumentBytes, d.Pos)
	}
	if len(s.buf) > 0 {
		d.Data = bytes.Clone(s.buf)
	}
	if cap(s.buf) > 4<<20 {
		s.buf = nil
	}
	return d, nil
}
