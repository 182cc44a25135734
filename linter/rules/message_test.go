package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
	"github.com/xpkgkit/xpkgkit/parser"
)

// rawTerminal reports whether s holds a byte or rune a terminal acts on:
// a C0 or C1 control character (ESC, BEL, ...) or a bidirectional override.
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
		{name: "long string cut after 64 runes", in: long, want: `"` + long[:64] + `"…`},
		{name: "multi-byte runes cut on rune boundaries", in: strings.Repeat("é", 70), want: `"` + strings.Repeat("é", 64) + `"…`},
		{name: "terminal escapes escaped", in: "\x1b]0;pwned\a\x1b[2Jx", want: `"\x1b]0;pwned\a\x1b[2Jx"`},
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
			got := quote(tc.in)
			if got != tc.want {
				t.Errorf("quote() = %s; want %s", got, tc.want)
			}
			if rawTerminal(got) {
				t.Errorf("quote() = %q holds a raw control character", got)
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
		{name: "apiVersion bare", in: "apiextensions.k8s.io/v1", want: "apiextensions.k8s.io/v1"},
		{name: "sha512 digest bare", in: "sha512:" + strings.Repeat("a", 128), want: "sha512:" + strings.Repeat("a", 128)},
		{name: "empty quoted", in: "", want: `""`},
		{name: "space quoted", in: "a b", want: `"a b"`},
		{name: "quote mark quoted", in: `a"b`, want: `"a\"b"`},
		{name: "escape quoted", in: "Kind\x1b[2J", want: `"Kind\x1b[2J"`},
		{name: "non-ASCII quoted", in: "Kïnd", want: `"Kïnd"`},
		{name: "long quoted and cut", in: strings.Repeat("k", 161), want: `"` + strings.Repeat("k", 64) + `"…`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := token(tc.in); got != tc.want {
				t.Errorf("token(%q) = %s; want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestJoinValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		in     []string
		format func(any) string
		want   string
	}{
		{name: "none", format: quote, want: ""},
		{name: "quoted", in: []string{"v1", "v2"}, format: quote, want: `"v1", "v2"`},
		{name: "tokens", in: []string{"v1", "bad version"}, format: token, want: `v1, "bad version"`},
		{name: "capped", in: strings.Split("a b c d e f g h i j", " "), format: token, want: "a, b, c, d, e, f, g, h and 2 more"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := joinValues(tc.in, tc.format); got != tc.want {
				t.Errorf("joinValues() = %s; want %s", got, tc.want)
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
		{name: "long text cut", err: errors.New(long), want: long[:256] + "…"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := reason(tc.err); got != tc.want {
				t.Errorf("reason() = %s; want %s", got, tc.want)
			}
		})
	}
	t.Run("semver error", func(t *testing.T) {
		t.Parallel()
		// semver refuses constraints over 512 bytes without quoting them.
		_, err := semver.NewConstraint(">=v1.0.0 <<< " + long[:400])
		if err == nil {
			t.Fatal("constraint parsed")
		}
		if got := reason(err); len(got) > 120 || !strings.HasSuffix(got, "…") {
			t.Errorf("reason() = %s (%d bytes); want the constraint shortened", got, len(got))
		}
	})
}

const messageMeta = `apiVersion: meta.pkg.crossplane.io/v1
kind: Provider
metadata:
  name: %s
  annotations:
    meta.crossplane.io/license: %s
    meta.crossplane.io/source: %s
spec:
  crossplane:
    version: %s
  controller:
    image: %s
  capabilities:
  - %s
`

// TestMessagesBounded lints a package whose values are 50 KB long or hold
// terminal escapes: every message stays short and holds no raw control
// character.
func TestMessagesBounded(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("9", 50_000)
	cases := []struct {
		name   string
		values [6]string // name, license, source, constraint, image, capability
		rule   string    // a rule that must report
		max    int       // bytes its message may take
	}{
		{name: "50 KB constraint",
			values: [6]string{"p", "Apache-2.0", "https://example.com", `">=v1.0.0 <<< ` + huge + `"`, "xpkg.example.com/p", "safe-start"},
			rule:   "XP202", max: 200},
		{name: "50 KB values everywhere",
			values: [6]string{"a" + huge, "MIT AND " + huge, "https://" + huge + "\\x01", `">=v` + huge + `"`, `"x y ` + huge + `"`, "c" + huge},
			rule:   "XP201", max: 400},
		{name: "terminal escapes",
			values: [6]string{`"\e]0;pwned\a\e[2J"`, `"\e[31mMIT"`, `"\e[2Jhttps://x"`, `"\e[2J>=1"`, `"\e[2Jimg"`, `"\e[2Jcap"`},
			rule:   "XP201", max: 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := tc.values
			stream := fmt.Sprintf(messageMeta, v[0], v[1], v[2], v[3], v[4], v[5])
			pkg, err := parser.Parse(context.Background(), strings.NewReader(stream), parser.WithFile("package.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if len(pkg.Errors) > 0 {
				t.Fatalf("parse errors: %v", pkg.Errors)
			}
			res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(Builtin()...))
			if err != nil {
				t.Fatal(err)
			}
			fired := false
			for _, d := range res.Diagnostics {
				if d.RuleID == tc.rule {
					fired = true
					if len(d.Message) > tc.max {
						t.Errorf("%s message is %d bytes; want at most %d: %.300s", d.RuleID, len(d.Message), tc.max, d.Message)
					}
				}
				if len(d.Message) > 600 {
					t.Errorf("%s message is %d bytes: %.300s", d.RuleID, len(d.Message), d.Message)
				}
				if rawTerminal(d.Message) {
					t.Errorf("%s message holds a raw control character: %q", d.RuleID, d.Message)
				}
			}
			if !fired {
				t.Errorf("%s did not report; diagnostics: %v", tc.rule, res.Diagnostics)
			}
		})
	}
}

// TestHostileTerminalEscapes lints the hostile case lint-terminal-escapes:
// its escape sequences reach the messages escaped, never raw.
func TestHostileTerminalEscapes(t *testing.T) {
	t.Parallel()
	c, ok := hostile.Lookup("lint-terminal-escapes")
	if !ok {
		t.Fatal("hostile case lint-terminal-escapes not found")
	}
	file, err := c.Write(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pkg, err := parser.Parse(t.Context(), f, parser.WithFile("package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := linter.Lint(t.Context(), pkg, linter.WithRuleSet(Builtin()...))
	if err != nil {
		t.Fatal(err)
	}
	escaped := false
	for _, d := range res.Diagnostics {
		if rawTerminal(d.Message) {
			t.Errorf("%s message holds a raw control character: %q", d.RuleID, d.Message)
		}
		escaped = escaped || strings.Contains(d.Message, `\x1b`)
	}
	if !escaped {
		t.Errorf("no message shows the escaped ESC; diagnostics: %v", res.Diagnostics)
	}
}
