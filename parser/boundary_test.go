package parser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/xpkgkit/xpkgkit/limit"
)

// Every limit is tested at its exact boundary: the input parses at the
// limit, and with the limit one lower it fails with a *limit.Error naming the
// limit, at the position the test states. (MaxNodes: TestMaxNodesBoundary.)

// parseLimit parses in with the limits and returns the single limit error
// (from Parse or from Package.Errors) or nil when there is none.
func parseLimit(t *testing.T, in string, lim Limits) (*limit.Error, *Package) {
	t.Helper()
	p, err := Parse(context.Background(), strings.NewReader(in), WithLimits(lim), WithFile("f.yaml"))
	if err == nil && len(p.Errors) > 0 {
		err = p.Errors[0]
	}
	if err == nil {
		return nil, p
	}
	var le *limit.Error
	if !errors.As(err, &le) {
		t.Fatalf("error %v is not a *limit.Error", err)
	}
	return le, p
}

func TestLimitBoundaries(t *testing.T) {
	t.Parallel()
	// A depth-3 document: the top-level mapping (1), spec's mapping (2)
	// and the list (3) on line 4.
	deep := "apiVersion: v1\nkind: X\nspec:\n  list: [a, b]\n"
	// Alias expansion of 4 nodes: *m adds the mapping and its two
	// scalars... plus the alias to s (1).
	alias := "apiVersion: v1\nkind: X\na: &m {k: v}\nb: &s x\nc: *m\nd: *s\n"
	aliasDeep := "apiVersion: v1\nkind: X\na: &m {k: v}\nb: [*m]\n"
	doc2 := "apiVersion: v1\nkind: Other\n"
	stream := "apiVersion: v1\nkind: X\n---\n" + doc2
	for _, tc := range []struct {
		name  string
		in    string
		limit limit.Name
		at    int64 // the limit at which in just parses
		set   func(*Limits, int64)
		want  Position
	}{
		{
			name: "MaxDocumentBytes", in: stream, limit: "MaxDocumentBytes", at: int64(len(doc2)),
			set:  func(l *Limits, v int64) { l.MaxDocumentBytes = v },
			want: Position{File: "f.yaml", Document: 1, Line: 4, Column: 1, Offset: int64(len(stream) - len(doc2))},
		},
		{
			name: "MaxTotalBytes", in: stream, limit: "MaxTotalBytes", at: int64(len(stream)),
			set: func(l *Limits, v int64) { l.MaxTotalBytes = v },
			// The last byte, the line end of line 5.
			want: Position{File: "f.yaml", Document: 1, Line: 5, Column: len("kind: Other\n"), Offset: int64(len(stream) - 1)},
		},
		{
			name: "MaxDocuments", in: stream, limit: "MaxDocuments", at: 2,
			set:  func(l *Limits, v int64) { l.MaxDocuments = int(v) },
			want: Position{File: "f.yaml", Document: 1, Line: 3, Column: 1, Offset: 23},
		},
		{
			name: "MaxDepth", in: deep, limit: "MaxDepth", at: 3,
			set:  func(l *Limits, v int64) { l.MaxDepth = int(v) },
			want: Position{File: "f.yaml", Line: 4, Column: 9, Offset: int64(strings.Index(deep, "["))},
		},
		{
			// An alias counts at the depth its target lands: *m's mapping
			// inside b's list is at depth 3.
			name: "MaxDepth through an alias", in: aliasDeep, limit: "MaxDepth", at: 3,
			set:  func(l *Limits, v int64) { l.MaxDepth = int(v) },
			want: Position{File: "f.yaml", Line: 4, Column: 5, Offset: int64(strings.Index(aliasDeep, "*m"))},
		},
		{
			name: "MaxAliasExpansion", in: alias, limit: "MaxAliasExpansion", at: 4,
			set: func(l *Limits, v int64) { l.MaxAliasExpansion = int(v) },
			// *m adds 3 nodes, *s 1: the second alias crosses 3.
			want: Position{File: "f.yaml", Line: 6, Column: 4, Offset: int64(strings.Index(alias, "*s"))},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var lim Limits
			tc.set(&lim, tc.at)
			if le, p := parseLimit(t, tc.in, lim); le != nil {
				t.Fatalf("at the limit %d: %v", tc.at, le)
			} else if len(p.Errors) != 0 {
				t.Fatalf("at the limit %d: %v", tc.at, p.Errors)
			}
			tc.set(&lim, tc.at-1)
			le, _ := parseLimit(t, tc.in, lim)
			if le == nil {
				t.Fatalf("limit %d: no error", tc.at-1)
			}
			if le.Limit != tc.limit || le.Max != tc.at-1 {
				t.Errorf("limit %d: %s %d exceeded, want %s", tc.at-1, le.Limit, le.Max, tc.limit)
			}
			if le.Pos != tc.want {
				t.Errorf("limit %d: at %#v, want %#v", tc.at-1, le.Pos, tc.want)
			}
		})
	}
}

// TestMaxTotalBytesAcrossFiles checks MaxTotalBytes on a package directory:
// the count goes on from file to file, and the error names the file and
// the byte where the limit was passed.
func TestMaxTotalBytesAcrossFiles(t *testing.T) {
	t.Parallel()
	meta := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: c\n"
	obj := "apiVersion: v1\nkind: X\nmetadata:\n  name: x\n"
	fsys := fstest.MapFS{
		"crossplane.yaml": {Data: []byte(meta)},
		"a/x.yaml":        {Data: []byte(obj)},
	}
	total := int64(len(meta) + len(obj))
	if _, err := ParseFS(context.Background(), fsys, WithLimits(Limits{MaxTotalBytes: total})); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := ParseFS(context.Background(), fsys, WithLimits(Limits{MaxTotalBytes: total - 5}))
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != "MaxTotalBytes" {
		t.Fatalf("over the limit: %v", err)
	}
	// Five bytes before the end of a/x.yaml: "  name: x\n" is its line 4,
	// and its sixth byte ("e") is the first past the limit.
	want := Position{File: "a/x.yaml", Line: 4, Column: 6, Offset: int64(len(obj) - 5)}
	if le.Pos != want {
		t.Errorf("at %+v, want %+v", le.Pos, want)
	}
}

// TestMaxDocumentsAcrossFiles checks MaxDocuments on a package directory:
// the document of the second file is one too many, at its first line.
func TestMaxDocumentsAcrossFiles(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"crossplane.yaml": {Data: []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\n")},
		"x.yaml":          {Data: []byte("# an object\napiVersion: v1\nkind: X\n")},
	}
	if _, err := ParseFS(context.Background(), fsys, WithLimits(Limits{MaxDocuments: 2})); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := ParseFS(context.Background(), fsys, WithLimits(Limits{MaxDocuments: 1}))
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != "MaxDocuments" {
		t.Fatalf("over the limit: %v", err)
	}
	if want := (Position{File: "x.yaml", Line: 2, Column: 1, Offset: 12}); le.Pos != want {
		t.Errorf("at %#v, want %#v", le.Pos, want)
	}
}

// endless is a reader of 'y' that never ends a line, as `yes | tr -d '\n'`.
type endless struct {
	n      int64
	cancel func() // called once n bytes are read, when not nil
	at     int64
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	e.n += int64(len(p))
	if e.cancel != nil && e.n >= e.at {
		e.cancel()
	}
	return len(p), nil
}

// TestEndlessLine checks that a line that never ends is bounded by
// MaxTotalBytes, with its position, and stops on cancellation.
func TestEndlessLine(t *testing.T) {
	t.Parallel()
	t.Run("MaxTotalBytes", func(t *testing.T) {
		t.Parallel()
		r := &endless{}
		_, err := Parse(context.Background(), r, WithLimits(Limits{MaxTotalBytes: 3 << 20}))
		var le *limit.Error
		if !errors.As(err, &le) || le.Limit != "MaxTotalBytes" {
			t.Fatalf("err = %v; want MaxTotalBytes", err)
		}
		if want := (Position{Line: 1, Column: 3<<20 + 1, Offset: 3 << 20}); le.Pos != want {
			t.Errorf("at %+v, want %+v", le.Pos, want)
		}
		if r.n > 3<<20+256<<10 {
			t.Errorf("read %d bytes past a limit of %d", r.n, 3<<20)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		r := &endless{cancel: cancel, at: 8 << 20}
		_, err := Parse(ctx, r)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v; want context.Canceled", err)
		}
		if r.n > 8<<20+256<<10 {
			t.Errorf("read %d bytes after the cancellation at %d", r.n, 8<<20)
		}
	})
}

// blocking returns data once, then cancels the parse and blocks until
// release is closed, as a pipe nobody writes to.
type blocking struct {
	data    string
	cancel  func()
	release chan struct{}
}

func (b *blocking) Read(p []byte) (int, error) {
	if b.data != "" {
		n := copy(p, b.data)
		b.data = b.data[n:]
		return n, nil
	}
	b.cancel()
	<-b.release
	return 0, io.EOF
}

// TestBlockedReadCancels checks that a read blocked in the reader does not
// block cancellation: Parse returns the context's error while the read is
// still blocked.
func TestBlockedReadCancels(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &blocking{data: "apiVersion: v1\nkind: X\n", cancel: cancel, release: make(chan struct{})}
	defer close(r.release)
	_, err := Parse(ctx, r)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
}

func TestNilArguments(t *testing.T) {
	t.Parallel()
	//lint:ignore SA1012 a nil context is the point: Parse must refuse it
	if _, err := Parse(nil, strings.NewReader("a: 1\n")); err == nil {
		t.Error("Parse(nil ctx): no error")
	}
	if _, err := Parse(context.Background(), nil); err == nil {
		t.Error("Parse(nil reader): no error")
	}
	if _, err := ParseFS(context.Background(), nil); err == nil {
		t.Error("ParseFS(nil fs): no error")
	}
	if _, err := NewSplitter(nil).Next(); err == nil || errors.Is(err, io.EOF) {
		t.Errorf("NewSplitter(nil).Next() = %v; want an error", err)
	}
	_ = fmt.Sprint()
}
