package ref

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
)

func TestParse(t *testing.T) {
	t.Parallel()
	digest := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		name string
		in   string
		want Reference
		err  bool
	}{
		{name: "registry repo tag", in: "xpkg.crossplane.io/crossplane/provider-aws:v1.2.0",
			want: Reference{Registry: "xpkg.crossplane.io", Repository: "crossplane/provider-aws", Tag: "v1.2.0"}},
		{name: "no registry", in: "crossplane/provider-gcp",
			want: Reference{Repository: "crossplane/provider-gcp"}},
		{name: "single component", in: "busybox", want: Reference{Repository: "busybox"}},
		{name: "localhost", in: "localhost/pkg", want: Reference{Registry: "localhost", Repository: "pkg"}},
		{name: "registry with port and tag", in: "reg:5000/a/b:c",
			want: Reference{Registry: "reg:5000", Repository: "a/b", Tag: "c"}},
		{name: "digest", in: "ghcr.io/a/b@" + digest,
			want: Reference{Registry: "ghcr.io", Repository: "a/b", Digest: digest}},
		{name: "tag and digest", in: "ghcr.io/a/b:v1@" + digest,
			want: Reference{Registry: "ghcr.io", Repository: "a/b", Tag: "v1", Digest: digest}},
		{name: "upper-case registry", in: "Ghcr.IO/a", want: Reference{Registry: "Ghcr.IO", Repository: "a"}},
		{name: "ipv6 registry", in: "[::1]:5000/a", want: Reference{Registry: "[::1]:5000", Repository: "a"}},
		{name: "underscore registry", in: "my_registry.example.com/org/p", want: Reference{Registry: "my_registry.example.com", Repository: "org/p"}},
		{name: "separators", in: "r.io/a__b.c-d---e_f", want: Reference{Registry: "r.io", Repository: "a__b.c-d---e_f"}},
		{name: "empty", in: "", err: true},
		{name: "upper-case repository", in: "xpkg.crossplane.io/Crossplane/provider", err: true},
		{name: "empty component", in: "r.io/a//b", err: true},
		{name: "trailing slash", in: "r.io/a/", err: true},
		{name: "only registry", in: "r.io/", err: true},
		{name: "bad tag", in: "r.io/a:-x", err: true},
		{name: "empty tag", in: "r.io/a:", err: true},
		{name: "short digest", in: "r.io/a@sha256:abc", err: true},
		{name: "upper-case digest", in: "r.io/a@sha256:" + strings.Repeat("AB", 32), err: true},
		{name: "space", in: "r.io/a b", err: true},
		{name: "bad separator", in: "r.io/a._b", err: true},
		{name: "bad port", in: "r.io:x/a", err: true},
		{name: "long name", in: "r.io/" + strings.Repeat("a", 300), err: true},
		{name: "scheme", in: "https://r.io/a", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.in)
			if tt.err {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("Parse(%q) = %+v, %v; want ErrInvalid", tt.in, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}

// TestRegistryGrammar: a registry host is what go-containerregistry's
// name.NewRegistry (through which Crossplane parses every package
// reference) accepts, and a reference with it parses as its strict
// name.ParseReference does.
func TestRegistryGrammar(t *testing.T) {
	t.Parallel()
	for _, h := range []string{
		"my_registry.example.com", "My.Registry.com", "reg-.example.com", "-reg.example.com",
		"reg.example.com.", "a..b", "reg.example.com:5000", "reg.example.com:", "reg.example.com:abc",
		"[::1]:5000", "[::1", "x~y.example.com", "x%41.example.com", "x!y.example.com", "x y.com",
		"user@reg.com", "ré.example.com", "localhost", "localhost:5000", "127.0.0.1:5000", "reg.io:5000:1",
	} {
		_, gcrErr := name.NewRegistry(h)
		if got := validRegistry(h); got != (gcrErr == nil) {
			t.Errorf("validRegistry(%q) = %v; go-containerregistry's NewRegistry: %v", h, got, gcrErr)
		}
		in := h + "/org/p:v1"
		_, strictErr := name.ParseReference(in, name.StrictValidation)
		if _, err := Parse(in); (err == nil) != (strictErr == nil) && !strings.ContainsAny(h, "@") {
			t.Errorf("Parse(%q): %v; go-containerregistry's strict ParseReference: %v", in, err, strictErr)
		}
	}
}

func TestCheckDependency(t *testing.T) {
	t.Parallel()
	digest := "sha256:" + strings.Repeat("0", 64)
	tests := []struct {
		name string
		in   string
		want []error
	}{
		{name: "good", in: "xpkg.crossplane.io/crossplane-contrib/provider-nop"},
		{name: "no registry", in: "crossplane/provider-gcp", want: []error{ErrNoRegistry}},
		{name: "tag", in: "xpkg.upbound.io/a/b:v1", want: []error{ErrHasTag}},
		{name: "digest", in: "xpkg.upbound.io/a/b@" + digest, want: []error{ErrHasDigest}},
		{name: "all three", in: "a/b:v1@" + digest, want: []error{ErrNoRegistry, ErrHasTag, ErrHasDigest}},
		{name: "invalid", in: "A/B", want: []error{ErrInvalid}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := CheckDependency(tt.in)
			if len(tt.want) == 0 && err != nil {
				t.Fatalf("CheckDependency(%q): %v", tt.in, err)
			}
			if len(tt.want) > 0 && err == nil {
				t.Fatalf("CheckDependency(%q) = nil, want %v", tt.in, tt.want)
			}
			for _, w := range tt.want {
				if !errors.Is(err, w) {
					t.Errorf("CheckDependency(%q) = %v, want it to wrap %v", tt.in, err, w)
				}
			}
		})
	}
}

func TestCheckVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{name: "exact", in: "v1.2.3", ok: true},
		{name: "major only", in: "v0", ok: true},
		{name: "range", in: ">=v1.0.0, <v2", ok: true},
		{name: "prerelease floor", in: ">=v1.15.1-0", ok: true},
		{name: "equals", in: "=v0.3.1", ok: true},
		{name: "or", in: "^1.2 || ~2.0", ok: true},
		{name: "digest", in: "sha256:" + strings.Repeat("0a", 32), ok: true},
		{name: "empty", in: ""},
		{name: "blank", in: "  "},
		{name: "word", in: "latest"},
		{name: "short digest", in: "sha256:abc"},
		{name: "upper digest", in: "sha256:" + strings.Repeat("0A", 32)},
		{name: "other algorithm", in: "md5:" + strings.Repeat("0", 32)},
		{name: "garbage after version", in: "1.0 !!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckVersion(tt.in)
			if tt.ok && err != nil {
				t.Fatalf("CheckVersion(%q): %v", tt.in, err)
			}
			if !tt.ok && !errors.Is(err, ErrInvalidVersion) {
				t.Fatalf("CheckVersion(%q) = %v, want ErrInvalidVersion", tt.in, err)
			}
		})
	}
}

func TestFriendlyName(t *testing.T) {
	t.Parallel()
	digest := "sha256:0123456789abcdef" + strings.Repeat("0", 48)
	tests := []struct {
		name string
		ref  Reference
		want string
	}{
		{name: "tag", ref: Reference{Registry: "r.io", Repository: "crossplane/provider-aws", Tag: "v1.2.3"}, want: "provider-aws-v1-2-3"},
		{name: "digest keeps twelve hex digits", ref: Reference{Repository: "a/fn", Digest: digest}, want: "fn-0123456789ab"},
		{name: "bare", ref: Reference{Repository: "a/b_c"}, want: "b-c"},
		{name: "upper-case tag is lowered, not dropped", ref: Reference{Repository: "p", Tag: "V1.0-RC"}, want: "p-v1-0-rc"},
		{name: "long name keeps suffix", ref: Reference{Repository: strings.Repeat("x", 80), Tag: "v1"}, want: strings.Repeat("x", 60) + "-v1"},
		{name: "nothing usable", ref: Reference{Repository: "__"}, want: "pkg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := FriendlyName(tt.ref)
			if got != tt.want {
				t.Fatalf("FriendlyName(%+v) = %q, want %q", tt.ref, got, tt.want)
			}
			if len(got) > MaxLabelLength || Label(got) != got {
				t.Errorf("FriendlyName(%+v) = %q is not a DNS-1123 label", tt.ref, got)
			}
		})
	}
}

func TestLabel(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"Provider_AWS":            "provider-aws",
		"--a--b--":                "a-b",
		"":                        "",
		"!!!":                     "",
		strings.Repeat("ab-", 40): strings.TrimRight(strings.Repeat("ab-", 21), "-"),
	}
	for in, want := range tests {
		if got := Label(in); got != want {
			t.Errorf("Label(%q) = %q, want %q", in, got, want)
		}
		if got := Label(in); len(got) > MaxLabelLength {
			t.Errorf("Label(%q) is %d long", in, len(got))
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"xpkg.crossplane.io/a/b:v1", "a", "[::1]:5/a@sha256:" + strings.Repeat("0", 64), "r:1/a:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			return
		}
		back, err := Parse(r.String())
		if err != nil || back != r {
			t.Fatalf("round trip of %q: %+v -> %q -> %+v, %v", s, r, r.String(), back, err)
		}
		if n := FriendlyName(r); n == "" || len(n) > MaxLabelLength || Label(n) != n {
			t.Fatalf("FriendlyName(%q) = %q", s, n)
		}
	})
}
