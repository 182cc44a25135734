package parser

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/limit"
)

// doc is the expected shape of a split document: where its content starts
// (index, line, column, offset), where its data starts, and its data.
type doc struct {
	Index, Line, Col int
	Off              int64
	DataLine         int
	DataOff          int64
	Data             string
	Empty            bool
}

func splitAll(t *testing.T, in string, opts ...Option) ([]doc, error) {
	t.Helper()
	s := NewSplitter(strings.NewReader(in), opts...)
	var out []doc
	for {
		d, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, doc{
			Index: d.Pos.Document, Line: d.Pos.Line, Col: d.Pos.Column, Off: d.Pos.Offset,
			DataLine: d.DataPos.Line, DataOff: d.DataPos.Offset, Data: string(d.Data), Empty: d.Empty,
		})
		if len(out) > 1000 {
			t.Fatal("runaway splitter")
		}
	}
}

func TestSplitter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want []doc
	}{
		{
			name: "empty stream",
			in:   "",
		},
		{
			name: "single bare document",
			in:   "a: 1\nb: 2\n",
			want: []doc{{0, 1, 1, 0, 1, 0, "a: 1\nb: 2\n", false}},
		},
		{
			name: "final document without newline",
			in:   "a: 1\n---\nb: 2",
			want: []doc{
				{0, 1, 1, 0, 1, 0, "a: 1\n", false},
				{1, 3, 1, 9, 3, 9, "b: 2", false},
			},
		},
		{
			name: "leading marker starts the first document",
			in:   "---\na: 1\n",
			want: []doc{{0, 2, 1, 4, 2, 4, "a: 1\n", false}},
		},
		{
			name: "marker with trailing comment",
			in:   "a: 1\n--- # next\nb: 2\n",
			want: []doc{
				{0, 1, 1, 0, 1, 0, "a: 1\n", false},
				{1, 3, 1, 16, 3, 16, "b: 2\n", false},
			},
		},
		{
			name: "marker with content on its line",
			in:   "--- {a: 1}\n--- !!map\nb: 2\n",
			want: []doc{
				{0, 1, 5, 4, 1, 0, "--- {a: 1}\n", false},
				{1, 2, 5, 15, 2, 11, "--- !!map\nb: 2\n", false},
			},
		},
		{
			name: "dashes that are not a marker",
			in:   "a: |\n  ---x\n---x: 1\n",
			want: []doc{{0, 1, 1, 0, 1, 0, "a: |\n  ---x\n---x: 1\n", false}},
		},
		{
			name: "empty documents are counted",
			in:   "a: 1\n---\n---\nb: 2\n---\n",
			want: []doc{
				{0, 1, 1, 0, 1, 0, "a: 1\n", false},
				{1, 2, 1, 5, 3, 9, "", true},
				{2, 4, 1, 13, 4, 13, "b: 2\n", false},
				{3, 5, 1, 18, 6, 22, "", true},
			},
		},
		{
			name: "comment-only document",
			in:   "a: 1\n---\n# only a comment\n\n---\nb: 2\n",
			want: []doc{
				{0, 1, 1, 0, 1, 0, "a: 1\n", false},
				{1, 2, 1, 5, 3, 9, "# only a comment\n\n", true},
				{2, 6, 1, 31, 6, 31, "b: 2\n", false},
			},
		},
		{
			name: "comments before the first marker belong to no document",
			in:   "# header\n\n---\n# lead\na: 1\n",
			want: []doc{{0, 5, 1, 21, 4, 14, "# lead\na: 1\n", false}},
		},
		{
			name: "comment lines before a bare document are dropped",
			in:   "# header\na: 1\n",
			want: []doc{{0, 2, 1, 9, 2, 9, "a: 1\n", false}},
		},
		{
			name: "document end marker",
			in:   "a: 1\n...\n---\nb: 2\n...\n",
			want: []doc{
				{0, 1, 1, 0, 1, 0, "a: 1\n", false},
				{1, 4, 1, 13, 4, 13, "b: 2\n", false},
			},
		},
		{
			name: "bare document after a document end",
			in:   "a: 1\n... # end\nb: 2\n",
			want: []doc{
				{0, 1, 1, 0, 1, 0, "a: 1\n", false},
				{1, 3, 1, 15, 3, 15, "b: 2\n", false},
			},
		},
		{
			name: "directives stay with their document",
			in:   "%YAML 1.2\n%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n",
			want: []doc{{0, 4, 1, 45, 1, 0, "%YAML 1.2\n%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n", false}},
		},
		{
			name: "directive after a document end",
			in:   "a: 1\n...\n%YAML 1.2\n---\nb: 2\n",
			want: []doc{
				{0, 1, 1, 0, 1, 0, "a: 1\n", false},
				{1, 5, 1, 23, 3, 9, "%YAML 1.2\n---\nb: 2\n", false},
			},
		},
		{
			name: "percent inside a document is content",
			in:   "a: |\n%not-a-directive\n",
			want: []doc{{0, 1, 1, 0, 1, 0, "a: |\n%not-a-directive\n", false}},
		},
		{
			name: "CRLF line ends",
			in:   "a: 1\r\n---\r\n  b: 2\r\n",
			want: []doc{
				{0, 1, 1, 0, 1, 0, "a: 1\r\n", false},
				{1, 3, 3, 13, 3, 11, "  b: 2\r\n", false},
			},
		},
		{
			name: "CRLF marker with comment",
			in:   "---\t# c\r\nb: 2\r\n",
			want: []doc{{0, 2, 1, 9, 2, 9, "b: 2\r\n", false}},
		},
		{
			name: "byte order mark",
			in:   "\xef\xbb\xbfa: 1\n---\nb: 2\n",
			want: []doc{
				{0, 1, 1, 3, 1, 3, "a: 1\n", false},
				{1, 3, 1, 12, 3, 12, "b: 2\n", false},
			},
		},
		{
			name: "byte order mark before a marker",
			in:   "\xef\xbb\xbf---\na: 1\n",
			want: []doc{{0, 2, 1, 7, 2, 7, "a: 1\n", false}},
		},
		{
			name: "only markers and comments",
			in:   "---\n# c\n---\n",
			want: []doc{
				{0, 1, 1, 0, 2, 4, "# c\n", true},
				{1, 3, 1, 8, 4, 12, "", true},
			},
		},
		{
			name: "indented content column",
			in:   "---\n\n    key: v\n",
			want: []doc{{0, 3, 5, 9, 2, 4, "\n    key: v\n", false}},
		},
		{
			name: "marker at end without newline",
			in:   "a: 1\n---",
			want: []doc{
				{0, 1, 1, 0, 1, 0, "a: 1\n", false},
				{1, 2, 1, 5, 2, 8, "", true},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := splitAll(t, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("documents (-want +got):\n%s", diff)
			}
			for _, d := range got {
				if d.Data != "" && tc.in[d.DataOff:int(d.DataOff)+len(d.Data)] != d.Data {
					t.Errorf("document %d: data is not the stream's bytes at offset %d", d.Index, d.DataOff)
				}
			}
		})
	}
}

func TestSplitterFileName(t *testing.T) {
	t.Parallel()
	s := NewSplitter(strings.NewReader("a: 1\n"), WithFile("pkg/x.yaml"))
	d, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	if d.Pos.File != "pkg/x.yaml" || d.DataPos.File != "pkg/x.yaml" {
		t.Errorf("file = %q, %q; want pkg/x.yaml", d.Pos.File, d.DataPos.File)
	}
	if got := d.Pos.String(); got != "pkg/x.yaml:1:1" {
		t.Errorf("String() = %q", got)
	}
}

func TestSplitterLongLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200<<10) // longer than the read buffer
	in := "a: " + long + "\n---\nb: 2\n"
	got, err := splitAll(t, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Data != "a: "+long+"\n" || got[1].Line != 3 || got[1].Off != int64(len(long)+8) {
		t.Errorf("long line split wrongly: %d documents", len(got))
	}
}

func TestSplitterLimits(t *testing.T) {
	t.Parallel()
	t.Run("document too large is skipped", func(t *testing.T) {
		t.Parallel()
		lim := DefaultLimits()
		lim.MaxDocumentBytes = 16
		s := NewSplitter(strings.NewReader("a: 1\n---\nb: "+strings.Repeat("y", 100)+"\n---\nc: 3\n"), WithLimits(lim))
		if _, err := s.Next(); err != nil {
			t.Fatal(err)
		}
		d, err := s.Next()
		var le *limit.Error
		if !errors.As(err, &le) || le.Limit != "MaxDocumentBytes" || !errors.Is(err, limit.ErrExceeded) {
			t.Fatalf("err = %v; want MaxDocumentBytes limit.Error", err)
		}
		if d.Data != nil || le.Pos.Line != 3 || le.Pos.Document != 1 {
			t.Errorf("got data %q at %+v", d.Data, le.Pos)
		}
		d, err = s.Next()
		if err != nil || string(d.Data) != "c: 3\n" || d.Pos.Document != 2 {
			t.Errorf("after the large document: %q, %v", d.Data, err)
		}
	})
	t.Run("one huge line", func(t *testing.T) {
		t.Parallel()
		lim := DefaultLimits()
		lim.MaxDocumentBytes = 1 << 10
		s := NewSplitter(io.MultiReader(strings.NewReader("a: "), bytes.NewReader(bytes.Repeat([]byte("z"), 1<<20))), WithLimits(lim))
		_, err := s.Next()
		if !errors.Is(err, limit.ErrExceeded) {
			t.Fatalf("err = %v; want a limit error", err)
		}
		if len(s.long) > 1<<10+64<<10 { // the limit plus one read buffer
			t.Errorf("buffered %d bytes of a line over the limit", len(s.long))
		}
	})
	t.Run("total bytes is final", func(t *testing.T) {
		t.Parallel()
		lim := DefaultLimits()
		lim.MaxTotalBytes = 10
		s := NewSplitter(strings.NewReader("a: 1\n---\nb: 2\n---\nc: 3\n"), WithLimits(lim))
		var err error
		for range 5 {
			if _, err = s.Next(); err != nil {
				break
			}
		}
		var le *limit.Error
		if !errors.As(err, &le) || le.Limit != "MaxTotalBytes" {
			t.Fatalf("err = %v; want MaxTotalBytes", err)
		}
		if _, again := s.Next(); again != err {
			t.Errorf("error not final: %v", again)
		}
	})
	t.Run("document count", func(t *testing.T) {
		t.Parallel()
		lim := DefaultLimits()
		lim.MaxDocuments = 2
		_, err := splitAll(t, "---\n---\n---\n", WithLimits(lim))
		var le *limit.Error
		if !errors.As(err, &le) || le.Limit != "MaxDocuments" || le.Max != 2 {
			t.Fatalf("err = %v; want MaxDocuments", err)
		}
	})
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestSplitterReadError(t *testing.T) {
	t.Parallel()
	s := NewSplitter(io.MultiReader(strings.NewReader("a: 1\n"), errReader{}), WithFile("f.yaml"))
	_, err := s.Next()
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "f.yaml") {
		t.Fatalf("err = %v; want the read error naming the file", err)
	}
}
