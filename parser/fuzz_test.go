package parser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/limit"
)

// fuzzSeeds adds the splitter's and parser's table inputs, the seed examples
// and the small corpus packages.
func fuzzSeeds(f *testing.F) {
	f.Helper()
	for _, s := range []string{
		"", "a: 1\n---\nb: 2", "--- # c\n...\n%YAML 1.2\n---\na: 1\r\n", "\xef\xbb\xbf---\n",
		"--- {a: 1}\n--- |\n  x\n", "a: &a [*a]\n", "<<: {a: 1}\nb: 2\n", "- a\n", "~\n",
		providerMeta, providerMeta + "---\napiVersion: v1\nkind: X\nspec: {a: [1, 2.5, yes, ~, 0x1F]}\n",
	} {
		f.Add([]byte(s))
	}
	for _, dir := range []string{filepath.Join("testdata", "seeds")} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
				f.Add(b)
			}
		}
	}
}

// Fuzz bounds: an input may make the parser allocate at most
// fuzzAllocBase plus fuzzAllocPerByte bytes for each of its bytes, and run
// at most fuzzTimeout. The fuzzer then reports amplification (an input
// that buys much more memory or time than its size), not only panics.
const (
	fuzzAllocBase    = 64 << 20
	fuzzAllocPerByte = 2048
	fuzzTimeout      = 20 * time.Second
)

// fuzzBounds starts the watchdog and the allocation count of one fuzz
// input; the function it returns (to defer) stops the watchdog and fails t
// when the input allocated past the bound.
func fuzzBounds(t *testing.T, in []byte) func() {
	t.Helper()
	// A watchdog turns a hang into a failure the fuzzer records (a panic
	// on its own goroutine, since t.Fatal cannot be called from there).
	watchdog := time.AfterFunc(fuzzTimeout, func() {
		panic(fmt.Sprintf("ran past %v on %d bytes: %.200q", fuzzTimeout, len(in), in))
	})
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	return func() {
		watchdog.Stop()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if got, max := after.TotalAlloc-before.TotalAlloc, uint64(fuzzAllocBase+fuzzAllocPerByte*len(in)); got > max {
			t.Fatalf("allocated %d bytes for %d bytes of input (bound %d)", got, len(in), max)
		}
	}
}

func FuzzSplit(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		defer fuzzBounds(t, in)()
		lim := DefaultLimits()
		lim.MaxDocumentBytes = 4 << 10
		s := NewSplitter(bytes.NewReader(in), WithLimits(lim))
		end := int64(0)
		for i := 0; ; i++ {
			d, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			var le *limit.Error
			var de *DocumentError
			if err != nil && !(errors.As(err, &le) && le.Limit == "MaxDocumentBytes") &&
				!(i == 0 && errors.As(err, &de) && errors.Is(err, ErrSyntax)) { // UTF-16
				t.Fatalf("document %d: %v", i, err)
			}
			if d.Pos.Document != i {
				t.Fatalf("document %d has index %d", i, d.Pos.Document)
			}
			if err != nil {
				continue
			}
			checkAt := func(what string, p Position) {
				if p.Offset < 0 || p.Offset > int64(len(in)) {
					t.Fatalf("document %d: %s offset %d outside the input", i, what, p.Offset)
				}
				before := in[:p.Offset]
				if line := bytes.Count(before, []byte("\n")) + 1; line != p.Line {
					t.Fatalf("document %d: %s offset %d is on line %d, not %d", i, what, p.Offset, line, p.Line)
				}
				lineStart := int64(bytes.LastIndexByte(before, '\n') + 1)
				if p.Line == 1 && bytes.HasPrefix(in, bom) {
					lineStart = int64(len(bom))
				}
				if p.Offset-lineStart != int64(p.Column-1) {
					t.Fatalf("document %d: %s column %d does not match offset %d", i, what, p.Column, p.Offset)
				}
			}
			checkAt("data", d.DataPos)
			if d.DataPos.Offset < end {
				t.Fatalf("document %d starts at %d, inside the previous one (ends %d)", i, d.DataPos.Offset, end)
			}
			if d.Data != nil {
				if got := in[d.DataPos.Offset : d.DataPos.Offset+int64(len(d.Data))]; !bytes.Equal(got, d.Data) {
					t.Fatalf("document %d: data %q is not the input's %q", i, d.Data, got)
				}
				end = d.DataPos.Offset + int64(len(d.Data))
			}
			if !d.Empty {
				checkAt("content", d.Pos)
				if d.Pos.Offset < d.DataPos.Offset || d.Pos.Offset >= end {
					t.Fatalf("document %d: content at %d outside its data [%d, %d)", i, d.Pos.Offset, d.DataPos.Offset, end)
				}
			}
		}
	})
}

func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		lim := DefaultLimits()
		lim.MaxDocumentBytes = 64 << 10
		lim.MaxAliasExpansion = 10_000
		defer fuzzBounds(t, in)()
		p, err := Parse(context.Background(), bytes.NewReader(in), WithLimits(lim), WithConcurrency(2))
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		lines := bytes.Count(in, []byte("\n")) + 1
		for _, e := range p.Errors {
			if e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Offset < 0 || e.Pos.Offset > int64(len(in)) {
				t.Fatalf("error %v outside the input (%d lines)", e, lines)
			}
			if e.Error() == "" || e.Unwrap() == nil {
				t.Fatal("empty error")
			}
		}
		for _, o := range allObjects(p) {
			if o.APIVersion == "" || o.Kind == "" {
				t.Fatalf("object without type at %v", o.Pos)
			}
			if _, err := o.FieldPosition("kind"); err != nil {
				t.Fatalf("FieldPosition(kind): %v", err)
			}
			u, err := o.Unstructured()
			if err != nil {
				if !errors.Is(err, ErrSyntax) && !errors.Is(err, limit.ErrExceeded) {
					t.Fatalf("Unstructured: %v", err)
				}
				continue
			}
			if u.GetKind() != o.Kind || u.GetAPIVersion() != o.APIVersion {
				t.Fatalf("Unstructured says %s %s; object says %s %s", u.GetAPIVersion(), u.GetKind(), o.APIVersion, o.Kind)
			}
		}
	})
}
