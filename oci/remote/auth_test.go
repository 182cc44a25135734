package remote_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

func simpleImage(t testing.TB) ociwrite.Image {
	return ociwrite.Image{
		Layers:           []ociwrite.Layer{fileLayer(t, "package.yaml", packageYAML, map[string]string{"io.crossplane.xpkg": "base"})},
		LabelAnnotations: []string{"io.crossplane.xpkg"},
	}
}

// staticCreds returns a CredentialFunc giving the registry's test user to
// host and nothing to any other.
func staticCreds(host string) remote.CredentialFunc {
	return func(_ context.Context, h string) (remote.Credential, error) {
		if h != host {
			return remote.Credential{}, nil
		}
		return remote.Credential{Username: registrytest.Username, Password: registrytest.Password}, nil
	}
}

func TestTLSBasicAuth(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.TLSBasic)
	ctx := context.Background()

	// Credentials from a Docker config file's auths entry.
	cfg := filepath.Join(t.TempDir(), "config.json")
	auth := base64.StdEncoding.EncodeToString([]byte(registrytest.Username + ":" + registrytest.Password))
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"auths":{%q:{"auth":%q}}}`, reg.Host, auth)), 0o600); err != nil {
		t.Fatal(err)
	}
	withConfig, _ := remote.New(remote.WithDockerConfig(cfg), remote.WithHTTPClient(reg.HTTPClient()))
	want := pushBuilt(t, withConfig, reg.Host+"/org/pkg", "v1", simpleImage(t))
	img, r, err := withConfig.Pull(ctx, reg.Host+"/org/pkg:v1")
	if err != nil {
		t.Fatal(err)
	}
	if img.Descriptor.Digest != want.Descriptor.Digest {
		t.Errorf("digest %s, want %s", img.Descriptor.Digest, want.Descriptor.Digest)
	}
	if got := readPackageYAML(t, r, img); string(got) != packageYAML {
		t.Errorf("package.yaml = %q", got)
	}

	// The caller's own credential function.
	own, _ := remote.New(remote.WithCredentials(staticCreds(reg.Host)), remote.WithHTTPClient(reg.HTTPClient()))
	if _, _, err := own.Pull(ctx, reg.Host+"/org/pkg@"+want.Descriptor.Digest.String()); err != nil {
		t.Errorf("pull by digest with a CredentialFunc: %v", err)
	}

	// The certificate is checked: a client that does not trust it fails.
	untrusting, _ := remote.New(remote.WithCredentials(staticCreds(reg.Host)))
	if _, _, err := untrusting.Pull(ctx, reg.Host+"/org/pkg:v1"); err == nil {
		t.Error("pull trusting no certificate succeeded")
	}
}

// TestUnauthorized: a registry that asks for credentials, and none given.
func TestUnauthorized(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.TLSBasic)
	c, _ := remote.New(remote.WithAnonymous(), remote.WithHTTPClient(reg.HTTPClient()))
	_, _, err := c.Pull(context.Background(), reg.Host+"/org/pkg:v1")
	if !errors.Is(err, remote.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	for _, want := range []string{reg.Host, "docker login " + reg.Host} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), registrytest.Password) {
		t.Errorf("message %q holds the password", err)
	}
}

func TestCredentialHelper(t *testing.T) {
	// t.Setenv: not parallel.
	reg := registrytest.Start(t, registrytest.TLSBasic)
	bin := t.TempDir()
	helper := fmt.Sprintf("#!/bin/sh\nread server\nprintf '{\"ServerURL\":\"%%s\",\"Username\":%q,\"Secret\":%q}' \"$server\"\n", registrytest.Username, registrytest.Password)
	if err := os.WriteFile(filepath.Join(bin, "docker-credential-xpkgtest"), []byte(helper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"credHelpers":{%q:"xpkgtest"}}`, reg.Host)), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := remote.New(remote.WithDockerConfig(cfg), remote.WithHTTPClient(reg.HTTPClient()))
	want := pushBuilt(t, c, reg.Host+"/org/helper", "v1", simpleImage(t))
	img, _, err := c.Pull(context.Background(), reg.Host+"/org/helper:v1")
	if err != nil {
		t.Fatal(err)
	}
	if img.Descriptor.Digest != want.Descriptor.Digest {
		t.Errorf("digest %s, want %s", img.Descriptor.Digest, want.Descriptor.Digest)
	}
}

func TestTokenAuth(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Token)
	ctx := context.Background()
	authed, _ := remote.New(remote.WithCredentials(staticCreds(reg.Host)))
	want := pushBuilt(t, authed, reg.Host+"/org/token", "v1", simpleImage(t))
	if reg.TokenRequests() == 0 {
		t.Fatal("the push asked the issuer for no token")
	}

	// Anonymous pull: the registry's anonymous bearer-token flow.
	before := reg.TokenRequests()
	anon, _ := remote.New(remote.WithAnonymous())
	img, r, err := anon.Pull(ctx, reg.Host+"/org/token:v1")
	if err != nil {
		t.Fatal(err)
	}
	if img.Descriptor.Digest != want.Descriptor.Digest {
		t.Errorf("digest %s, want %s", img.Descriptor.Digest, want.Descriptor.Digest)
	}
	if got := readPackageYAML(t, r, img); string(got) != packageYAML {
		t.Errorf("package.yaml = %q", got)
	}
	if reg.TokenRequests() == before {
		t.Error("the anonymous pull asked the issuer for no token")
	}
	tags, err := anon.Tags(ctx, reg.Host+"/org/token")
	if err != nil || len(tags) != 1 || tags[0] != "v1" {
		t.Errorf("tags = %q, %v", tags, err)
	}

	// Anonymous push: the issuer grants pull only.
	r2, _ := anon.Repository(reg.Host + "/org/token")
	err = r2.Tag(ctx, img.Descriptor, "v2")
	if !errors.Is(err, remote.ErrUnauthorized) && !errors.Is(err, remote.ErrDenied) {
		t.Errorf("anonymous tag: err = %v, want ErrUnauthorized or ErrDenied", err)
	}
}

func TestNotFoundTag(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	c, _ := remote.New(remote.WithAnonymous())
	pushBuilt(t, c, reg.Host+"/org/pkg", "v1", simpleImage(t))
	_, _, err := c.Pull(context.Background(), reg.Host+"/org/pkg:v9")
	if !errors.Is(err, oci.ErrNotFound) {
		t.Fatalf("err = %v, want oci.ErrNotFound", err)
	}
	var re *remote.Error
	if !errors.As(err, &re) || re.Reference != "v9" || re.Op != "resolve" {
		t.Errorf("err = %#v, want a *remote.Error for resolve v9", err)
	}
}
