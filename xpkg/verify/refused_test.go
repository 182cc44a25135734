package verify

import (
	"errors"
	"testing"
)

// TestErrorRefused: a package without a signature, with none that
// verifies, or with one for another digest is refused (what Crossplane
// refuses, exit 1 for xpkg-lint); a policy that cannot be applied, or a
// registry that cannot be read, is not (exit 2).
func TestErrorRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  *Error
		want bool
	}{
		{"no signature", &Error{Class: ErrNoSignature}, true},
		{"no authority verifies", &Error{Class: ErrNoMatchingAuthority, Failures: []*Failure{{Authority: "a", Err: ErrIdentityMismatch}}}, true},
		{"digest mismatch", &Error{Class: ErrSubjectMismatch}, true},
		{"policy", &Error{Class: ErrPolicy}, false},
		{"a failure of policy", &Error{Class: ErrNoMatchingAuthority, Failures: []*Failure{{Authority: "a", Err: ErrPolicy}}}, false},
		{"registry", &Error{Err: errors.New("connection refused")}, false},
	} {
		if got := tc.err.Refused(); got != tc.want {
			t.Errorf("%s: Refused() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
