package imageconfig_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

func ic(name string, extra string, prefixes ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\napiVersion: pkg.crossplane.io/v1beta1\nkind: ImageConfig\nmetadata:\n  name: %s\nspec:\n  matchImages:\n", name)
	for _, p := range prefixes {
		fmt.Fprintf(&b, "  - prefix: %q\n", p)
	}
	b.WriteString(extra)
	return b.String()
}

func rw(p string) string { return fmt.Sprintf("  rewriteImage:\n    prefix: %q\n", p) }

func mustParse(t *testing.T, yaml string) *imageconfig.Set {
	t.Helper()
	s, err := imageconfig.ParseAll(context.Background(), []imageconfig.Input{{Name: "ic.yaml", Reader: strings.NewReader(yaml)}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRewrite checks the matching rules of crossplane-runtime v2.3.3
// pkg/xpkg/config.go (bestMatch, RewritePath), which Crossplane v2.3.4 uses.
func TestRewrite(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, yaml, ref, want, by string
		ok                        bool
	}{
		{"no config", "", "xpkg.crossplane.io/a/b:v1", "xpkg.crossplane.io/a/b:v1", "", false},
		{"simple prefix", ic("m", rw("mirror.local/"), "xpkg.crossplane.io/"), "xpkg.crossplane.io/a/b:v1", "mirror.local/a/b:v1", "m", true},
		{"no match", ic("m", rw("mirror.local/"), "xpkg.crossplane.io/"), "index.docker.io/a/b:v1", "index.docker.io/a/b:v1", "", false},
		{"plain string prefix, not path-aware", ic("m", rw("mirror.local/x"), "xpkg.crossplane.io/crossplane-contrib/provider-"), "xpkg.crossplane.io/crossplane-contrib/provider-nop:v0.2.1", "mirror.local/xnop:v0.2.1", "m", true},
		{"prefix into the tag", ic("m", rw("mirror.local/a:"), "xpkg.crossplane.io/a:v1"), "xpkg.crossplane.io/a:v1.2", "mirror.local/a:.2", "m", true},
		{"longest prefix across configs wins", ic("a", rw("short/"), "xpkg.crossplane.io/") + ic("b", rw("long/"), "xpkg.crossplane.io/acme/"), "xpkg.crossplane.io/acme/p:v1", "long/p:v1", "b", true},
		{"longest within the winner is replaced", ic("a", rw("m/"), "xpkg.crossplane.io/", "xpkg.crossplane.io/acme/"), "xpkg.crossplane.io/acme/p:v1", "m/p:v1", "a", true},
		{"shorter config prefix still used when longer one does not match", ic("a", rw("m/"), "xpkg.crossplane.io/", "xpkg.crossplane.io/other/"), "xpkg.crossplane.io/acme/p:v1", "m/acme/p:v1", "a", true},
		{"configs without rewriteImage are not candidates", ic("a", "  registry:\n    authentication:\n      pullSecretRef:\n        name: s\n", "xpkg.crossplane.io/acme/") + ic("b", rw("m/"), "xpkg.crossplane.io/"), "xpkg.crossplane.io/acme/p:v1", "m/acme/p:v1", "b", true},
		{"tie: first by name", ic("zeta", rw("z/"), "xpkg.crossplane.io/") + ic("alpha", rw("a/"), "xpkg.crossplane.io/"), "xpkg.crossplane.io/p:v1", "a/p:v1", "alpha", true},
		{"empty prefix never matches", ic("m", rw("m/"), ""), "xpkg.crossplane.io/p:v1", "xpkg.crossplane.io/p:v1", "", false},
		{"digest reference", ic("m", rw("m/"), "xpkg.crossplane.io/"), "xpkg.crossplane.io/p@sha256:0123", "m/p@sha256:0123", "m", true},
		{"whole reference prefix", ic("m", rw("other/q:v2"), "xpkg.crossplane.io/p:v1"), "xpkg.crossplane.io/p:v1", "other/q:v2", "m", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tc.yaml)
			got, by, ok := s.Rewrite(tc.ref)
			if got != tc.want || by != tc.by || ok != tc.ok {
				t.Errorf("Rewrite(%q) = %q, %q, %v; want %q, %q, %v", tc.ref, got, by, ok, tc.want, tc.by, tc.ok)
			}
		})
	}
}

func TestPullSecretAndVerification(t *testing.T) {
	t.Parallel()
	yaml := ic("auth", "  registry:\n    authentication:\n      pullSecretRef:\n        name: mirror-creds\n", "mirror.local/") +
		ic("verify", `  verification:
    provider: Cosign
    cosign:
      authorities:
      - name: ci
        keyless:
          identities:
          - issuer: https://token.actions.githubusercontent.com
            subjectRegExp: ^https://github.com/acme/.*$
        attestations:
        - name: sbom
          predicateType: https://spdx.dev/Document
`, "mirror.local/acme/")
	s := mustParse(t, yaml)
	if sec, by, ok := s.PullSecretFor("mirror.local/acme/p:v1"); sec != "mirror-creds" || by != "auth" || !ok {
		t.Errorf("PullSecretFor = %q %q %v", sec, by, ok)
	}
	v, by, ok := s.VerificationFor("mirror.local/acme/p:v1")
	if !ok || by != "verify" || v.Cosign == nil || len(v.Cosign.Authorities) != 1 || v.Cosign.Authorities[0].Keyless.Identities[0].SubjectRegExp != "^https://github.com/acme/.*$" || v.Cosign.Authorities[0].Attestations[0].PredicateType != "https://spdx.dev/Document" {
		t.Errorf("VerificationFor = %+v %q %v", v, by, ok)
	}
	if _, _, ok := s.VerificationFor("mirror.local/other/p:v1"); ok {
		t.Error("VerificationFor matched another repository")
	}
	creds := s.Credentials(func(_ context.Context, secret, host string) (remote.Credential, bool, error) {
		if secret == "mirror-creds" && host == "mirror.local" {
			return remote.Credential{Username: "u", Password: "p"}, true, nil
		}
		return remote.Credential{}, false, nil
	}, func(context.Context, string) (remote.Credential, error) {
		return remote.Credential{Username: "fallback"}, nil
	})
	if c, err := creds(context.Background(), "mirror.local"); err != nil || c.Username != "u" {
		t.Errorf("credential for mirror.local = %+v, %v", c, err)
	}
	if c, err := creds(context.Background(), "other.local"); err != nil || c.Username != "fallback" {
		t.Errorf("credential for other.local = %+v, %v", c, err)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	small := imageconfig.Limits{MaxConfigs: 2, MaxMatchImages: 2, MaxPrefixBytes: 16, MaxBytes: limit.Unlimited}
	cases := []struct {
		name, yaml, want string
		class            error
	}{
		{"no matchImages", "apiVersion: pkg.crossplane.io/v1beta1\nkind: ImageConfig\nmetadata:\n  name: a\nspec: {}\n", "ic.yaml:1: spec.matchImages: is required", imageconfig.ErrInvalid},
		{"empty matchImages", "\n\napiVersion: pkg.crossplane.io/v1beta1\nkind: ImageConfig\nmetadata:\n  name: a\nspec:\n  matchImages: []\n", "ic.yaml:3: spec.matchImages", imageconfig.ErrInvalid},
		{"no name", "apiVersion: pkg.crossplane.io/v1beta1\nkind: ImageConfig\nspec:\n  matchImages: [{prefix: a}]\n", "metadata.name: is required", imageconfig.ErrInvalid},
		{"other version", "apiVersion: pkg.crossplane.io/v1alpha1\nkind: ImageConfig\nmetadata: {name: a}\n", "apiVersion", imageconfig.ErrInvalid},
		{"bad type", ic("a", "", "x") + "    type: Regex\n", "ic.yaml:2: spec.matchImages[0].type", imageconfig.ErrInvalid},
		{"empty rewrite", ic("a", rw(""), "x"), "spec.rewriteImage.prefix: is empty", imageconfig.ErrInvalid},
		{"bad provider", ic("a", "  verification:\n    provider: Notary\n", "x"), "spec.verification.provider", imageconfig.ErrInvalid},
		{"duplicate", ic("a", "", "x") + ic("a", "", "y"), "ic.yaml:10: metadata.name: ImageConfig \"a\" is defined twice (first at ic.yaml:2)", imageconfig.ErrInvalid},
		{"not YAML", "apiVersion: [\n", "cannot parse YAML", imageconfig.ErrInvalid},
		{"too many configs", ic("a", "", "x") + ic("b", "", "x") + ic("c", "", "x"), "more than 2 ImageConfigs", limit.ErrExceeded},
		{"too many entries", ic("a", "", "x", "y", "z"), "spec.matchImages: 3 entries, more than 2", limit.ErrExceeded},
		{"long prefix", ic("a", "", strings.Repeat("x", 17)), "spec.matchImages[0].prefix: 17 bytes, more than 16", limit.ErrExceeded},
		{"long rewrite", ic("a", rw(strings.Repeat("x", 17)), "x"), "spec.rewriteImage.prefix: 17 bytes", limit.ErrExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := imageconfig.ParseAll(context.Background(), []imageconfig.Input{{Name: "ic.yaml", Reader: strings.NewReader(tc.yaml)}}, imageconfig.WithLimits(small))
			var e *imageconfig.Error
			if !errors.As(err, &e) || !errors.Is(err, tc.class) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v; want a *Error of class %v containing %q", err, tc.class, tc.want)
			}
			var le *limit.Error
			if errors.As(err, &le) != (tc.class == limit.ErrExceeded) || le != nil && (le.Value <= le.Max || le.Pos.Line == 0) {
				t.Errorf("error = %v: *limit.Error %+v, want one (Value over Max, positioned) exactly for limit.ErrExceeded", err, le)
			}
		})
	}
}

func TestParseSkipsOtherKinds(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\n# nothing\n---\n"+ic("a", rw("m/"), "x/")+"---\napiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: p}\n")
	if s.Len() != 1 || s.Configs()[0].Name != "a" || s.Configs()[0].Pos.Line != 8 {
		t.Errorf("configs = %+v", s.Configs())
	}
}

func TestParseAll(t *testing.T) {
	t.Parallel()
	_, err := imageconfig.ParseAll(context.Background(), []imageconfig.Input{
		{Name: "one.yaml", Reader: strings.NewReader(ic("a", "", "x"))},
		{Name: "two.yaml", Reader: strings.NewReader(ic("a", "", "y"))},
	})
	if !errors.Is(err, imageconfig.ErrInvalid) || !strings.Contains(err.Error(), "two.yaml:2") || !strings.Contains(err.Error(), "one.yaml:2)") {
		t.Errorf("error = %v", err)
	}
}

func TestParseCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := imageconfig.ParseAll(ctx, []imageconfig.Input{{Reader: strings.NewReader(ic("a", "", "x"))}}); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v", err)
	}
}

// TestHostile: the worst input the limits allow is read in bounded work: a
// stream of the maximum size, all ImageConfigs at the maximum entries.
func TestHostile(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	prefixes := make([]string, 100)
	for i := range prefixes {
		prefixes[i] = strings.Repeat("p", 1000) + fmt.Sprint(i)
	}
	for i := 0; b.Len() < 3<<20; i++ {
		b.WriteString(ic(fmt.Sprintf("c%d", i), rw("m/"), prefixes...))
	}
	_, err := imageconfig.ParseAll(context.Background(), []imageconfig.Input{{Reader: strings.NewReader(b.String())}}, imageconfig.WithLimits(imageconfig.Limits{MaxConfigs: 10}))
	if !errors.Is(err, limit.ErrExceeded) {
		t.Fatalf("error = %v, want limit.ErrExceeded", err)
	}
	// Over the byte limit.
	_, err = imageconfig.ParseAll(context.Background(), []imageconfig.Input{{Reader: strings.NewReader(b.String())}}, imageconfig.WithLimits(imageconfig.Limits{MaxBytes: 1 << 20}))
	if !errors.Is(err, limit.ErrExceeded) {
		t.Fatalf("error = %v, want limit.ErrExceeded", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(ic("a", rw("m/"), "xpkg.crossplane.io/"), "xpkg.crossplane.io/a:v1")
	f.Add(ic("a", "  verification:\n    provider: Cosign\n    cosign:\n      authorities: [{name: x, key: {secretRef: {name: s, key: k}}}]\n", "x"), "x")
	f.Add("apiVersion: pkg.crossplane.io/v1beta1\nkind: ImageConfig\nmetadata: {name: [1]}\n", "")
	f.Fuzz(func(t *testing.T, yaml, ref string) {
		s, err := imageconfig.ParseAll(context.Background(), []imageconfig.Input{{Reader: strings.NewReader(yaml)}}, imageconfig.WithLimits(imageconfig.Limits{MaxBytes: 1 << 16}))
		if err != nil {
			var e *imageconfig.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		got, name, ok := s.Rewrite(ref)
		if ok == (name == "") || (!ok && got != ref) {
			t.Fatalf("Rewrite(%q) = %q, %q, %v", ref, got, name, ok)
		}
		s.PullSecretFor(ref)
		s.VerificationFor(ref)
	})
}

// TestParseAllBudget: MaxBytes holds over all the streams of a ParseAll.
func TestParseAllBudget(t *testing.T) {
	t.Parallel()
	var inputs []imageconfig.Input
	for i := range 3 {
		inputs = append(inputs, imageconfig.Input{Name: fmt.Sprintf("f%d.yaml", i), Reader: strings.NewReader(ic(fmt.Sprint("c", i), "", strings.Repeat("x", 500)))})
	}
	_, err := imageconfig.ParseAll(context.Background(), inputs, imageconfig.WithLimits(imageconfig.Limits{MaxBytes: 1200}))
	if !errors.Is(err, limit.ErrExceeded) || !strings.Contains(err.Error(), "f1.yaml:8: more than 1200 bytes over all inputs") {
		t.Errorf("error = %v, want limit.ErrExceeded in f1.yaml", err)
	}
}
