package xpkg_test

import (
	"errors"
	"testing"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestCheckDependency(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []error
	}{
		{in: "xpkg.crossplane.io/crossplane-contrib/provider-aws"},
		{in: "crossplane-contrib/provider-aws", want: []error{xpkg.ErrNoRegistry}},
		{in: "xpkg.crossplane.io/crossplane-contrib/provider-aws:v1", want: []error{xpkg.ErrReferenceHasTag}},
		{in: "crossplane-contrib/provider-aws@sha256:" + hex64, want: []error{xpkg.ErrNoRegistry, xpkg.ErrReferenceHasDigest}},
		{in: "NOT VALID", want: []error{oci.ErrInvalidReference}},
	}
	for _, tc := range cases {
		_, err := xpkg.CheckDependency(tc.in)
		if (err == nil) != (len(tc.want) == 0) {
			t.Errorf("CheckDependency(%q) = %v, want %v", tc.in, err, tc.want)
		}
		for _, w := range tc.want {
			if !errors.Is(err, w) {
				t.Errorf("CheckDependency(%q) = %v, want it to match %v", tc.in, err, w)
			}
		}
	}
}
