package oci_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
)

// rawTerminal reports whether s holds a byte or rune a terminal acts on:
// a C0 or C1 control character (ESC, BEL, CR, ...) or a bidirectional
// override or isolate.
func rawTerminal(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x20 || (r >= 0x7f && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
	})
}

// TestErrorEscapes checks that the untrusted parts of an *oci.Error (media
// type, digest, path, cause) are escaped and shortened.
func TestErrorEscapes(t *testing.T) {
	t.Parallel()
	evil := "\x1b]0;pwned\a\r::error::x\u202e"
	long := strings.Repeat("a", 100_000)
	cases := []struct {
		name string
		err  *oci.Error
		want string
	}{
		{name: "media type", err: &oci.Error{Op: "resolve", Descriptor: ocispec.Descriptor{Digest: "sha256:abc", MediaType: evil}, Err: oci.ErrUnsupportedMediaType},
			want: `oci: resolve sha256:abc ("\x1b]0;pwned\a\r::error::x\u202e"): unsupported media type`},
		{name: "digest", err: &oci.Error{Op: "fetch", Descriptor: ocispec.Descriptor{Digest: "sha256:\x1b[2J"}, Err: oci.ErrInvalidDescriptor},
			want: `oci: fetch "sha256:\x1b[2J": invalid descriptor`},
		{name: "path", err: &oci.Error{Op: "open", Path: "a\x1b[2Jb", Err: oci.ErrNotFound},
			want: `oci: open "a\x1b[2Jb": not found`},
		{name: "cause", err: &oci.Error{Op: "open", Err: fmt.Errorf("%w: %s", oci.ErrMalformed, evil)},
			want: `oci: open: malformed content: \x1b]0;pwned\a\r::error::x\u202e`},
		{name: "long path", err: &oci.Error{Op: "open", Path: long, Err: oci.ErrNotFound},
			want: `oci: open "` + long[:256] + `"…: not found`},
		{name: "long cause", err: &oci.Error{Op: "open", Err: errors.New(long)},
			want: `oci: open: ` + long[:256] + `…`},
		{name: "nested", err: &oci.Error{Op: "open", Path: "x.xpkg", Err: &oci.Error{Op: "read file", Path: evil, Err: oci.ErrNotFound}},
			want: `oci: open "x.xpkg": oci: read file "\x1b]0;pwned\a\r::error::x\u202e": not found`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := tc.err.Error()
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if rawTerminal(got) {
				t.Errorf("raw control character in %q", got)
			}
		})
	}
}

// TestPlatformListBounded resolves an index of 300 platforms, none of which
// matches: the error names the first few and counts the rest, escaped.
func TestPlatformListBounded(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	layer := b.gzLayer(file("package.yaml", "x"))
	var ms []ocispec.Descriptor
	for i := range 300 {
		// Distinct labels make distinct manifests: duplicates count once.
		d := b.image(map[string]string{"i": fmt.Sprint(i)}, layer)
		d.Platform = &ocispec.Platform{OS: "linux\x1b[2J", Architecture: fmt.Sprint("arch", i)}
		ms = append(ms, d)
	}
	b.tag(b.index(ms...), "")
	_, err := oci.Resolve(context.Background(), b.s)
	wantErr(t, err, oci.ErrNoMatchingPlatform)
	msg := err.Error()
	if len(msg) > 1000 || !strings.Contains(msg, "and 292 more") || rawTerminal(msg) {
		t.Errorf("message (%d bytes) not bounded or not escaped: %s", len(msg), msg)
	}
}
