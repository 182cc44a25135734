package oci_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/xpkgkit/xpkgkit/oci"
)

func TestParseReference(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		want    oci.Reference
		wantErr error
	}{
		{in: "oci.crossplane.io/crossplane-contrib/provider-aws:v1.2.0", want: oci.Reference{Registry: "oci.crossplane.io", Repository: "crossplane-contrib/provider-aws", Tag: "v1.2.0"}},
		{in: "localhost:5000/acme/cfg@sha256:" + referenceHex, want: oci.Reference{Registry: "localhost:5000", Repository: "acme/cfg", Digest: "sha256:" + referenceHex}},
		{in: "crossplane-contrib/provider-aws", want: oci.Reference{Repository: "crossplane-contrib/provider-aws"}},
		{in: "Not A Reference", wantErr: oci.ErrInvalidReference},
		{in: "", wantErr: oci.ErrInvalidReference},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := oci.ParseReference(tc.in)
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

const referenceHex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// Parse a reference without completing it: no default registry or tag.
func ExampleParseReference() {
	ref, err := oci.ParseReference("xpkg.crossplane.io/crossplane-contrib/provider-aws:v1.2.0")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ref.Registry)
	fmt.Println(ref.Repository)
	fmt.Println(ref.Tag)
	fmt.Println(ref.Name())
	_, err = oci.ParseReference("Not A Reference")
	fmt.Println(errors.Is(err, oci.ErrInvalidReference))
	// Output:
	// xpkg.crossplane.io
	// crossplane-contrib/provider-aws
	// v1.2.0
	// xpkg.crossplane.io/crossplane-contrib/provider-aws
	// true
}
