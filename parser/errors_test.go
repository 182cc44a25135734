package parser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/limit"
)

// TestErrorMessages checks that each error prints its position once, and
// that a *limit.Error on its own still says where.
func TestErrorMessages(t *testing.T) {
	t.Parallel()
	at := Position{File: "f.yaml", Document: 2, Line: 3, Column: 1, Offset: 20}
	elsewhere := Position{File: "f.yaml", Document: 2, Line: 5, Column: 7, Offset: 40}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{name: "limit error on its own",
			err:  &limit.Error{Limit: "MaxDocumentBytes", Max: 8388608, Pos: at},
			want: "f.yaml:3:1: MaxDocumentBytes 8388608 exceeded"},
		{name: "limit error without a file",
			err:  &limit.Error{Limit: "MaxDocuments", Max: 4, Pos: Position{Line: 9, Column: 1}},
			want: "9:1: MaxDocuments 4 exceeded"},
		{name: "document error wrapping a limit error at the same position",
			err:  &DocumentError{Pos: at, Err: &limit.Error{Limit: "MaxDocumentBytes", Max: 8388608, Pos: at}},
			want: "f.yaml:3:1: document 2: MaxDocumentBytes 8388608 exceeded"},
		{name: "document error wrapping a limit error elsewhere keeps both",
			err:  &DocumentError{Pos: at, Err: &limit.Error{Limit: "MaxDepth", Max: 100, Pos: elsewhere}},
			want: "f.yaml:3:1: document 2: f.yaml:5:7: MaxDepth 100 exceeded"},
		{name: "document error wrapping a class",
			err:  &DocumentError{Pos: at, Err: fmt.Errorf("%w: found a sequence", ErrNotObject)},
			want: "f.yaml:3:1: document 2: document is not an object: found a sequence"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q; want %q", got, tc.want)
			}
		})
	}
}

// TestParseErrorMessagesPositionOnce parses bad documents and checks that
// each error message names its position exactly once.
func TestParseErrorMessagesPositionOnce(t *testing.T) {
	t.Parallel()
	small := DefaultLimits()
	small.MaxDocumentBytes = 64
	shallow := DefaultLimits()
	shallow.MaxDepth = 3
	cases := []struct {
		name string
		in   string
		opts []Option
		want error
	}{
		{name: "document too large", in: "apiVersion: v1\nkind: Big\ndata: " + strings.Repeat("x", 100) + "\n",
			opts: []Option{WithLimits(small)}, want: limit.ErrExceeded},
		{name: "too deep", in: "apiVersion: v1\nkind: Deep\nspec: [[[[x]]]]\n",
			opts: []Option{WithLimits(shallow)}, want: limit.ErrExceeded},
		{name: "syntax error", in: "apiVersion: v1\nkind: X\nmetadata:\n  name: [unclosed\n", want: ErrSyntax},
		{name: "not an object", in: "- a\n- b\n", want: ErrNotObject},
		{name: "missing kind", in: "apiVersion: v1\n", want: ErrMissingType},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := append([]Option{WithFile("f.yaml")}, tc.opts...)
			p, err := Parse(context.Background(), strings.NewReader(tc.in), opts...)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(p.Errors) != 1 || !errors.Is(p.Errors[0], tc.want) {
				t.Fatalf("errors = %v; want one %v", p.Errors, tc.want)
			}
			msg := p.Errors[0].Error()
			if n := strings.Count(msg, "f.yaml:"); n != 1 {
				t.Errorf("message %q names the file %d times; want once", msg, n)
			}
			if prefix := p.Errors[0].Pos.String() + ": document 0: "; !strings.HasPrefix(msg, prefix) {
				t.Errorf("message %q does not start with %q", msg, prefix)
			}
		})
	}
}
