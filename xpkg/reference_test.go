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

func TestCheckVersionConstraint(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{">=v1.2.0", "v1", "~1.3", ">=1.0.0, <2.0.0", "sha256:" + hex64} {
		if err := xpkg.CheckVersionConstraint(ok); err != nil {
			t.Errorf("CheckVersionConstraint(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "not a version", "sha256:abc", "sha512:" + hex64} {
		if err := xpkg.CheckVersionConstraint(bad); !errors.Is(err, xpkg.ErrInvalidVersion) {
			t.Errorf("CheckVersionConstraint(%q) = %v, want ErrInvalidVersion", bad, err)
		}
	}
}
