package main

import (
	"context"
	"errors"

	"github.com/xpkgkit/xpkgkit/lintcmd"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
	"github.com/xpkgkit/xpkgkit/xpkg/verify"
)

func main() {
	lintcmd.New(lintcmd.WithName("xpkg-lint"), lintcmd.WithVerifier(newVerifier)).Main()
}

// newVerifier builds the --verify verifier: package xpkg/verify, which
// links sigstore-go; the checker itself does not.
func newVerifier(o lintcmd.VerifyOptions) (lintcmd.Verifier, error) {
	opts := []verify.Option{verify.WithClient(o.Client)}
	for ref, file := range o.Keys {
		secret, key, _ := cutLast(ref)
		opts = append(opts, verify.WithPublicKeyFile(secret, key, file))
	}
	if o.TrustedRoot != "" {
		opts = append(opts, verify.WithTrustedRootFile(o.TrustedRoot))
	}
	v, err := verify.New(opts...)
	if err != nil {
		return nil, err
	}
	return verifier{v}, nil
}

// cutLast splits "SECRET/KEY" at its last slash.
func cutLast(s string) (before, after string, ok bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// verifier adapts verify.Verifier to lintcmd.Verifier.
type verifier struct{ v *verify.Verifier }

func (a verifier) Verify(ctx context.Context, ref string, images *imageconfig.Set) (string, string, bool, error) {
	res, applied, err := a.v.VerifyWithSet(ctx, ref, images)
	if err != nil || !applied {
		return "", "", applied, err
	}
	if res == nil {
		return "", "", true, errors.New("no result")
	}
	return res.Descriptor.Digest.String(), res.ImageConfig + "/" + res.Authority, true, nil
}
