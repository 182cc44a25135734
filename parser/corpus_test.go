package parser

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
)

const monolith = "provider-upjet-aws-monolith"

// documentStarts finds, independently of the Splitter, the line where each
// non-empty document of a stream starts: the first line after the start of
// the stream or a `---` line that is neither blank nor a comment. The
// corpus uses no directives, `...` markers or content on `---` lines.
func documentStarts(t *testing.T, data []byte) []int {
	t.Helper()
	var starts []int
	looking := true
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case line == "---" || strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "---\t"):
			looking = true
		case !looking, trimmed == "", strings.HasPrefix(trimmed, "#"):
		default:
			starts = append(starts, n)
			looking = false
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return starts
}

// checkPositions checks every object's position against the raw text of its
// file: its line is where its document starts, and its offset is that line's.
func checkPositions(t *testing.T, data []byte, objs []*Object) {
	t.Helper()
	var lineStarts []int64 // offsets where lines start
	lineStarts = append(lineStarts, 0)
	for i, c := range data {
		if c == '\n' {
			lineStarts = append(lineStarts, int64(i+1))
		}
	}
	var got []int
	for _, o := range objs {
		got = append(got, o.Pos.Line)
		if o.Pos.Offset < 0 || o.Pos.Offset > int64(len(data)) {
			t.Errorf("%s %s: offset %d outside the file", o.Kind, o.ObjectMeta.Name, o.Pos.Offset)
			continue
		}
		line, _ := slices.BinarySearch(lineStarts, o.Pos.Offset+1) // 1-based: starts at or before the offset
		if line != o.Pos.Line {
			t.Errorf("%s %s: offset %d is on line %d, position says %d", o.Kind, o.ObjectMeta.Name, o.Pos.Offset, line, o.Pos.Line)
		}
		raw := o.Raw()
		if o.RawSize() != len(raw) {
			t.Errorf("%s %s: RawSize %d, len(Raw()) %d", o.Kind, o.ObjectMeta.Name, o.RawSize(), len(raw))
		}
		first := raw[o.Pos.Offset-o.dataPos.Offset:]
		if i := bytes.IndexByte(first, '\n'); i >= 0 {
			first = first[:i]
		}
		if !bytes.HasPrefix(data[o.Pos.Offset:], first) || len(bytes.TrimSpace(first)) == 0 {
			t.Errorf("%s %s: the file at offset %d does not hold the object's first line %q", o.Kind, o.ObjectMeta.Name, o.Pos.Offset, first)
		}
	}
	sort.Ints(got)
	if diff := cmp.Diff(documentStarts(t, data), got); diff != "" {
		t.Errorf("object lines differ from document starts (-want +got):\n%s", diff)
	}
}

func allObjects(p *Package) []*Object { return append(slices.Clone(p.Meta), p.Objects...) }

func TestCorpusPackageYAML(t *testing.T) {
	t.Parallel()
	for _, name := range testcorpus.Names() {
		t.Run(name, func(t *testing.T) {
			if name == monolith && (testing.Short() || raceEnabled) {
				t.Skip("the 102 MB monolith runs without -short and -race (and in BenchmarkParse)")
			}
			t.Parallel()
			file := filepath.Join(testcorpus.Path(t, name), "package.yaml")
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Parse(context.Background(), bytes.NewReader(data), WithFile("package.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Errors {
				t.Errorf("document error: %v", e)
			}
			if p.Pkg() == nil {
				t.Fatalf("%d meta objects, Pkg() = nil; want one typed meta object", len(p.Meta))
			}
			if p.Meta[0].Pos.Document != 0 {
				t.Errorf("meta object is document %d; want 0", p.Meta[0].Pos.Document)
			}
			checkPositions(t, data, allObjects(p))
			for _, o := range p.Objects {
				if o.ObjectMeta.Name == "" || o.Outline() == nil {
					t.Errorf("%s at %v: no name or no outline", o.Kind, o.Pos)
				}
			}
		})
	}
}

func kindNames(objs []*Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, fmt.Sprintf("%s/%s %s", o.APIVersion, o.Kind, o.ObjectMeta.Name))
	}
	sort.Strings(out)
	return out
}

// TestCorpusSource parses each package's on-disk source with ParseFS: no
// errors, positions that match each file, and the same objects as the
// package.yaml built from it.
func TestCorpusSource(t *testing.T) {
	t.Parallel()
	for _, name := range testcorpus.Names() {
		if name == monolith {
			continue // it has no source directory
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := testcorpus.Path(t, name)
			fsys := os.DirFS(filepath.Join(dir, "src"))
			p, err := ParseFS(context.Background(), fsys)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Errors {
				t.Errorf("document error: %v", e)
			}
			if p.Pkg() == nil || p.Meta[0].Pos.File != MetaFile {
				t.Fatalf("no meta object from %s", MetaFile)
			}
			byFile := map[string][]*Object{}
			for _, o := range allObjects(p) {
				byFile[o.Pos.File] = append(byFile[o.Pos.File], o)
			}
			for file, objs := range byFile {
				data, err := os.ReadFile(filepath.Join(dir, "src", filepath.FromSlash(file)))
				if err != nil {
					t.Fatal(err)
				}
				checkPositions(t, data, objs)
			}
			f, err := os.Open(filepath.Join(dir, "package.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			stream, err := Parse(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(kindNames(allObjects(stream)), kindNames(allObjects(p))); diff != "" {
				t.Errorf("objects differ from package.yaml's (-stream +source):\n%s", diff)
			}
		})
	}
}
