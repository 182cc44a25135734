package oci

import (
	"errors"
	"strings"
	"testing"
)

// TestErrorPrefixOnce: an *Error whose cause is an *Error of the same
// operation says "oci: OP FORMAT" once (issue 34, item 8: 'oci: open
// docker-archive "x": oci: open docker-archive "../../etc/passwd": …').
func TestErrorPrefixOnce(t *testing.T) {
	t.Parallel()
	cause := errors.New("escapes the archive")
	for _, tc := range []struct {
		name string
		err  *Error
		want string
	}{
		{"same op and format", &Error{Op: "open", Format: FormatDockerArchive, Path: "x", Err: &Error{Op: "open", Format: FormatDockerArchive, Path: "../../etc/passwd", Err: cause}},
			`oci: open docker-archive "x": "../../etc/passwd": escapes the archive`},
		{"inner without format", &Error{Op: "open", Format: FormatDockerArchive, Path: "x", Err: &Error{Op: "open", Err: cause}},
			`oci: open docker-archive "x": escapes the archive`},
		{"another op", &Error{Op: "open", Path: "x", Err: &Error{Op: "read file", Path: "manifest.json", Err: cause}},
			`oci: open "x": oci: read file "manifest.json": escapes the archive`},
	} {
		got := tc.err.Error()
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
		if strings.Count(got, "oci: open") > 1 {
			t.Errorf("%s: the prefix repeats: %s", tc.name, got)
		}
		if !errors.Is(tc.err, cause) {
			t.Errorf("%s: the cause is lost", tc.name)
		}
	}
}
