package xpkg_test

import (
	"errors"
	"testing"

	"github.com/xpkgkit/xpkgkit/xpkg"
)

func TestParseReference(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		want    xpkg.Reference
		wantErr error
	}{
		{in: "xpkg.crossplane.io/crossplane-contrib/provider-aws:v1.2.0", want: xpkg.Reference{Registry: "xpkg.crossplane.io", Repository: "crossplane-contrib/provider-aws", Tag: "v1.2.0"}},
		{in: "localhost:5000/acme/cfg@sha256:" + hex64, want: xpkg.Reference{Registry: "localhost:5000", Repository: "acme/cfg", Digest: "sha256:" + hex64}},
		{in: "crossplane-contrib/provider-aws", want: xpkg.Reference{Repository: "crossplane-contrib/provider-aws"}},
		{in: "Not A Reference", wantErr: xpkg.ErrInvalidReference},
		{in: "", wantErr: xpkg.ErrInvalidReference},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := xpkg.ParseReference(tc.in)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("ParseReference error = %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr != nil {
				return
			}
			if got != tc.want {
				t.Errorf("ParseReference = %+v, want %+v", got, tc.want)
			}
			if got.String() != tc.in {
				t.Errorf("String() = %q, want %q", got.String(), tc.in)
			}
		})
	}
}

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestFriendlyName(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"xpkg.crossplane.io/crossplane-contrib/provider-aws:v1.2.0": "provider-aws-v1-2-0",
		"xpkg.crossplane.io/acme/provider-aws:V1.0-RC":              "provider-aws-v1-0-rc",
		"registry.example.org/acme/cfg@sha256:" + hex64:             "cfg-0123456789ab",
	}
	for in, want := range cases {
		r, err := xpkg.ParseReference(in)
		if err != nil {
			t.Fatalf("ParseReference(%q): %v", in, err)
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
		{in: "NOT VALID", want: []error{xpkg.ErrInvalidReference}},
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
