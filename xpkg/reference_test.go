package xpkg_test

import (
	"errors"
	"testing"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestFriendlyName(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"xpkg.crossplane.io/crossplane-contrib/provider-aws:v1.2.0": "provider-aws-v1-2-0",
		"xpkg.crossplane.io/acme/provider-aws:V1.0-RC":              "provider-aws-v1-0-rc",
		"registry.example.org/acme/cfg@sha256:" + hex64:             "cfg-0123456789ab",
	}
	for in, want := range cases {
		r, err := oci.ParseReference(in)
		if err != nil {
			t.Fatalf("oci.ParseReference(%q): %v", in, err)
		}
		got := xpkg.FriendlyName(r)
		if got != want {
			t.Errorf("FriendlyName(%q) = %q, want %q", in, got, want)
		}
		if len(got) > 63 {
			t.Errorf("FriendlyName(%q) is longer than a DNS label", in)
		}
	}
}

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
