package parser

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestLineBreaksSplitterAndDecoderAgree checks that a document holding a
// line break the splitter does not see (NEL, U+2028, U+2029, a lone CR) is
// refused at the character, instead of being read one way by the splitter
// and another by the YAML decoder.
func TestLineBreaksSplitterAndDecoderAgree(t *testing.T) {
	t.Parallel()
	meta := "apiVersion: v1\nkind: A\n---\n" // lines 1-3
	for _, tc := range []struct {
		name, in   string
		line, col  int
		wantInText string
	}{
		{"U+2028 before a document marker", meta + "kind: B\u2028---\nbroken: [\n", 4, 8, "U+2028"},
		{"U+2028 in a comment", meta + "apiVersion: v1\nkind: B\n# c\u2028 x: [\n", 6, 4, "U+2028"},
		{"U+2029", meta + "apiVersion: v1\nkind: B\u2029x: 1\n", 5, 8, "U+2029"},
		{"NEL", meta + "apiVersion: v1\nkind: B\u0085x: 1\n", 5, 8, "U+0085"},
		{"lone CR", meta + "apiVersion: v1\rkind: B\n", 4, 15, "carriage return"},
		{"first line of a marker document", meta + "--- {a: 1}\u2028\n", 4, 11, "U+2028"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := Parse(context.Background(), strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Objects) != 1 || len(p.Errors) != 1 {
				t.Fatalf("objects %d, errors %v; want the first object and one error", len(p.Objects), p.Errors)
			}
			e := p.Errors[0]
			if !errors.Is(e, ErrSyntax) || !strings.Contains(e.Error(), tc.wantInText) {
				t.Errorf("error %v; want a syntax error naming %s", e, tc.wantInText)
			}
			if e.Pos.Line != tc.line || e.Pos.Column != tc.col || tc.in[e.Pos.Offset] != tc.in[strings.IndexAny(tc.in[len(meta):], "\u2028\u2029\u0085\r")+len(meta)] {
				t.Errorf("at %#v, want line %d column %d", e.Pos, tc.line, tc.col)
			}
		})
	}
	t.Run("CRLF is a line end", func(t *testing.T) {
		t.Parallel()
		p := mustParse(t, "apiVersion: v1\r\nkind: A\r\n---\r\napiVersion: v1\r\nkind: B\r\n")
		if len(p.Errors) != 0 || len(p.Objects) != 2 {
			t.Fatalf("errors %v", p.Errors)
		}
	})
}

// utf16LE encodes s as UTF-16LE with its byte order mark.
func utf16LEWithBOM(s string) string {
	var b strings.Builder
	b.WriteString("\xff\xfe")
	for _, u := range utf16.Encode([]rune(s)) {
		b.WriteByte(byte(u))
		b.WriteByte(byte(u >> 8))
	}
	return b.String()
}

// TestUTF16Refused checks that a UTF-16 stream (whose second document the
// splitter could not find) is one syntax error at 1:1, not a package whose
// later documents go unseen; so is a document that starts with a UTF-16
// byte order mark.
func TestUTF16Refused(t *testing.T) {
	t.Parallel()
	in := utf16LEWithBOM("apiVersion: v1\nkind: A\n---\nbroken: [\n")
	p, err := Parse(context.Background(), strings.NewReader(in), WithFile("package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Objects)+len(p.Meta) != 0 || len(p.Errors) != 1 || !errors.Is(p.Errors[0], ErrSyntax) {
		t.Fatalf("objects %d, errors %v; want one syntax error", len(p.Objects), p.Errors)
	}
	if want := (Position{File: "package.yaml", Line: 1, Column: 1}); p.Errors[0].Pos != want {
		t.Errorf("at %#v, want %#v", p.Errors[0].Pos, want)
	}
	p = mustParse(t, "apiVersion: v1\nkind: A\n---\n\xfe\xff\x00a\x00:\x00 \x001\n")
	if len(p.Objects) != 1 || len(p.Errors) != 1 || !errors.Is(p.Errors[0], ErrSyntax) || p.Errors[0].Pos.Line != 4 {
		t.Fatalf("objects %d, errors %v; want one syntax error on line 4", len(p.Objects), p.Errors)
	}
}
