package safetext

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// rawTerminal reports whether s holds a byte or rune a terminal acts on:
// a C0 or C1 control character (ESC, BEL, CR, ...) or a bidirectional
// override or isolate.
func rawTerminal(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x20 || (r >= 0x7f && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
	})
}

func TestQuote(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("9", 50_000)
	cases := []struct {
		name string
		in   any
		want string
	}{
		{name: "short string", in: "provider-aws", want: `"provider-aws"`},
		{name: "empty string", in: "", want: `""`},
		{name: "exactly MaxValueRunes kept whole", in: long[:MaxValueRunes], want: `"` + long[:MaxValueRunes] + `"`},
		{name: "long string cut after 64 runes", in: long, want: `"` + long[:64] + `"…`},
		{name: "multi-byte runes cut on rune boundaries", in: strings.Repeat("é", 70), want: `"` + strings.Repeat("é", 64) + `"…`},
		{name: "terminal escapes escaped", in: "\x1b]0;pwned\a\x1b[2Jx", want: `"\x1b]0;pwned\a\x1b[2Jx"`},
		{name: "CI log command escaped", in: "\r::error::x", want: `"\r::error::x"`},
		{name: "right-to-left override escaped", in: "a\u202eb", want: `"a\u202eb"`},
		{name: "invalid UTF-8 escaped", in: "a\xffb", want: `"a\xffb"`},
		{name: "number unquoted", in: 1.5, want: "1.5"},
		{name: "boolean unquoted", in: true, want: "true"},
		{name: "list with an escape", in: []any{"a", "\x1b[2J"}, want: `[a \x1b[2J]`},
		{name: "long list cut", in: []any{long}, want: "[" + long[:63] + "…"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Quote(tc.in)
			if got != tc.want {
				t.Errorf("Quote() = %s; want %s", got, tc.want)
			}
			if rawTerminal(got) {
				t.Errorf("Quote() = %q holds a raw control character", got)
			}
		})
	}
}

func TestToken(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{name: "kind bare", in: "CustomResourceDefinition", want: "CustomResourceDefinition"},
		{name: "media type bare", in: "application/vnd.oci.image.manifest.v1+json", want: "application/vnd.oci.image.manifest.v1+json"},
		{name: "sha512 digest bare", in: "sha512:" + strings.Repeat("a", 128), want: "sha512:" + strings.Repeat("a", 128)},
		{name: "MaxTokenBytes bare", in: strings.Repeat("k", MaxTokenBytes), want: strings.Repeat("k", MaxTokenBytes)},
		{name: "empty quoted", in: "", want: `""`},
		{name: "space quoted", in: "a b", want: `"a b"`},
		{name: "quote mark quoted", in: `a"b`, want: `"a\"b"`},
		{name: "backslash quoted", in: `a\b`, want: `"a\\b"`},
		{name: "escape quoted", in: "Kind\x1b[2J", want: `"Kind\x1b[2J"`},
		{name: "non-ASCII quoted", in: "Kïnd", want: `"Kïnd"`},
		{name: "one byte past MaxTokenBytes quoted and cut", in: strings.Repeat("k", MaxTokenBytes+1), want: `"` + strings.Repeat("k", 64) + `"…`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Token(tc.in); got != tc.want {
				t.Errorf("Token(%q) = %s; want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestJoin(t *testing.T) {
	t.Parallel()
	many := make([]string, 90_000)
	for i := range many {
		many[i] = fmt.Sprint("label-", i)
	}
	cases := []struct {
		name   string
		in     []string
		format func(any) string
		want   string
	}{
		{name: "none", format: Quote, want: ""},
		{name: "quoted", in: []string{"v1", "v2"}, format: Quote, want: `"v1", "v2"`},
		{name: "tokens", in: []string{"v1", "bad version"}, format: Token, want: `v1, "bad version"`},
		{name: "exactly MaxListItems", in: strings.Split("a b c d e f g h", " "), format: Token, want: "a, b, c, d, e, f, g, h"},
		{name: "capped", in: strings.Split("a b c d e f g h i j", " "), format: Token, want: "a, b, c, d, e, f, g, h and 2 more"},
		{name: "90 000 items", in: many, format: Token, want: "label-0, label-1, label-2, label-3, label-4, label-5, label-6, label-7 and 89992 more"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Join(tc.in, tc.format); got != tc.want {
				t.Errorf("Join() = %s; want %s", got, tc.want)
			}
		})
	}
}

func TestReason(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 50_000)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{name: "short error unchanged", err: errors.New(`improper constraint: ">=v1 <<< 5"`), want: `improper constraint: ">=v1 <<< 5"`},
		{name: "quoted value shortened, reason kept",
			err:  fmt.Errorf("parse %q: net/url: invalid control character in URL", long),
			want: `parse "` + long[:64] + `"…: net/url: invalid control character in URL`},
		{name: "single quotes and lone quote marks kept", err: errors.New(`must match 'a-z' or "`), want: `must match 'a-z' or "`},
		{name: "raw escape escaped", err: errors.New("bad \x1b[2J value"), want: `bad \x1b[2J value`},
		{name: "exactly MaxReasonRunes kept", err: errors.New(long[:MaxReasonRunes]), want: long[:MaxReasonRunes]},
		{name: "long text cut", err: errors.New(long), want: long[:256] + "…"},
		{name: "cut between words, not in a URL",
			err:  errors.New(strings.Repeat("word ", 40) + "GET https://registry.example.com/v2/acme/provider/manifests/v1.0.0: 503"),
			want: strings.TrimSuffix(strings.Repeat("word ", 40), " ") + " GET…"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Reason(tc.err); got != tc.want {
				t.Errorf("Reason() = %s; want %s", got, tc.want)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		in      string
		max     int
		want    string
		wantCut bool
	}{
		{name: "empty", in: "", max: 3, want: ""},
		{name: "shorter", in: "ab", max: 3, want: "ab"},
		{name: "exact", in: "abc", max: 3, want: "abc"},
		{name: "one more", in: "abcd", max: 3, want: "abc", wantCut: true},
		{name: "runes, not bytes", in: "ééé", max: 2, want: "éé", wantCut: true},
		{name: "invalid byte is one rune", in: "\xff\xfeab", max: 2, want: "\xff\xfe", wantCut: true},
		{name: "zero", in: "a", max: 0, want: "", wantCut: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, cut := Truncate(tc.in, tc.max)
			if got != tc.want || cut != tc.wantCut {
				t.Errorf("Truncate(%q, %d) = %q, %v; want %q, %v", tc.in, tc.max, got, cut, tc.want, tc.wantCut)
			}
		})
	}
}

func TestEscape(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{name: "printable unchanged", in: "a b/é", want: "a b/é"},
		{name: "ESC and BEL", in: "\x1b]8;;http://x\a", want: `\x1b]8;;http://x\a`},
		{name: "CR and LF", in: "a\r\nb", want: `a\r\nb`},
		{name: "C1 control", in: "a\u009bb", want: `a\u009bb`},
		{name: "bidi isolate", in: "a\u2066b", want: `a\u2066b`},
		{name: "invalid byte", in: "a\xc3", want: `a\xc3`},
		{name: "line separator", in: "a\u2028b", want: `a\u2028b`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Escape(tc.in)
			if got != tc.want {
				t.Errorf("Escape(%q) = %s; want %s", tc.in, got, tc.want)
			}
			if rawTerminal(got) {
				t.Errorf("Escape(%q) = %q holds a raw control character", tc.in, got)
			}
		})
	}
}

func TestQuotePath(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("d/", 200)
	cases := []struct{ in, want string }{
		{in: "package.yaml", want: `"package.yaml"`},
		{in: "a\x1b[2J/b\r", want: `"a\x1b[2J/b\r"`},
		{in: long[:MaxPathRunes], want: `"` + long[:MaxPathRunes] + `"`},
		{in: long, want: `"` + long[:MaxPathRunes] + `"…`},
	}
	for _, tc := range cases {
		if got := QuotePath(tc.in); got != tc.want {
			t.Errorf("QuotePath(%q) = %s; want %s", tc.in, got, tc.want)
		}
	}
}

func TestEscapeLines(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{name: "lines kept", in: "a\n└── b\n", want: "a\n└── b\n"},
		{name: "escape in a line", in: "a\x1b[2J\nb\r\n", want: "a\\x1b[2J\nb\\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := EscapeLines(tc.in)
			if got != tc.want {
				t.Errorf("EscapeLines(%q) = %q; want %q", tc.in, got, tc.want)
			}
			if err := CheckTerminal(got); err != nil {
				t.Errorf("EscapeLines(%q): %v", tc.in, err)
			}
		})
	}
}

func TestLineWriter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		writes []string
		want   string
	}{
		{name: "lines unchanged", writes: []string{"tool: a\n", "tool: b\n"}, want: "tool: a\ntool: b\n"},
		{name: "a line in two writes", writes: []string{"tool: fixed 2", "\n"}, want: "tool: fixed 2\n"},
		{
			name:   "forged diagnostic stays in its line",
			writes: []string{"tool: src: bad\npackage.yaml:1:1: error XP100 x: forged\n"},
			want:   "tool: src: bad\\npackage.yaml:1:1: error XP100 x: forged\n",
		},
		{name: "terminal escape", writes: []string{"tool: \x1b]0;pwned\a\x1b[2J\n"}, want: "tool: \\x1b]0;pwned\\a\\x1b[2J\n"},
		{name: "workflow command", writes: []string{"tool: x\r\n::error file=a::b\n"}, want: "tool: x\\r\\n::error file=a::b\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			w := NewLineWriter(&b)
			if NewLineWriter(w) != w {
				t.Error("NewLineWriter wraps a line writer again")
			}
			for _, s := range tc.writes {
				n, err := w.Write([]byte(s))
				if err != nil || n != len(s) {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", s, n, err, len(s))
				}
			}
			if got := b.String(); got != tc.want {
				t.Errorf("wrote %q; want %q", got, tc.want)
			}
			if err := CheckTerminal(b.String()); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestCheckTerminal(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in     string
		wantOK bool
	}{
		{"a: b\nc\n", true},
		{"é └── ✓", true},
		{"a\x1b[31m", false},
		{"a\rb", false},
		{"a\tb", false},
		{"a\u009b", false},
		{"a\u202e", false},
		{"a\u2028", false},
		{"a\xff", false},
		{"a\x7f", false},
	}
	for _, tc := range cases {
		err := CheckTerminal(tc.in)
		if (err == nil) != tc.wantOK {
			t.Errorf("CheckTerminal(%q) = %v; want ok %v", tc.in, err, tc.wantOK)
		}
		if err != nil && !errors.Is(err, ErrUnsafe) {
			t.Errorf("CheckTerminal(%q) = %v; not ErrUnsafe", tc.in, err)
		}
	}
}
