package lintcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

// Verifier verifies the signature of a package in a registry, for
// --verify. The checker does not verify signatures itself, so that a lint
// program that does not verify does not link the signature libraries:
// package xpkg/verify does, and a program passes it with WithVerifier (as
// examples/xpkg-lint does).
type Verifier interface {
	// Verify verifies the package at ref, a registry reference after any
	// ImageConfig rewrite, against the verification that images selects
	// for it. It returns the digest verified ("sha256:..."), which every
	// later read of the package is pinned to, and what accepted it
	// ("ImageConfig/authority"). applied is false when no ImageConfig
	// states a verification for ref.
	//
	// An error that has (or wraps one that has) a method Refused() bool
	// returning true says the package is refused, as Crossplane refuses a
	// package whose required signature does not verify: the checker
	// reports it as a finding (report.SignatureRuleID, an error: exit 1).
	// Any other error means the signature could not be checked (a registry
	// that does not answer, a policy that cannot be applied): exit 2.
	// xpkg/verify's *Error has that method.
	Verify(ctx context.Context, ref string, images *imageconfig.Set) (digest, by string, applied bool, err error)
}

// refusal is an error that says whether a verification refused the
// package (see Verifier).
type refusal interface{ Refused() bool }

// errRefused is the class of a source whose required signature did not
// verify: Crossplane refuses it (a finding, exit 1), where errUnverified
// says it could not be checked (exit 2).
var errRefused = errors.New("signature refused")

// VerifyOptions are what the --verify flags give a Verifier.
type VerifyOptions struct {
	// Client is the registry client, configured as the flags say
	// (credentials, cache, plain HTTP, offline).
	Client *remote.Client
	// Keys maps an authority's key.secretRef, "SECRET/KEY", to the PEM
	// file of the public key (--verify-key SECRET/KEY=FILE).
	Keys map[string]string
	// TrustedRoot is the Sigstore trusted-root JSON file of keyless
	// authorities (--trusted-root); "" when not given.
	TrustedRoot string
}

// WithVerifier makes --verify available: newVerifier builds the Verifier
// from the flags when --verify is given. Without it, --verify is refused.
func WithVerifier(newVerifier func(VerifyOptions) (Verifier, error)) Option {
	return func(c *checkerConfig) { c.newVerifier = newVerifier }
}

// verifyFlags are --verify, --verify-key and --trusted-root.
type verifyFlags struct {
	enabled     bool
	keys        fileList
	trustedRoot string
}

func (f *verifyFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.enabled, "verify", false, "verify signatures as the ImageConfigs say")
	fs.Var(&f.keys, "verify-key", "SECRET/KEY=FILE public key of a key authority (repeatable)")
	fs.StringVar(&f.trustedRoot, "trusted-root", "", "Sigstore trusted-root JSON file")
}

// apply builds the verifier when --verify is given.
func (f *verifyFlags) apply(c *config, rf *remoteFlags) error {
	if !f.enabled {
		if len(f.keys) > 0 || f.trustedRoot != "" {
			return errors.New("--verify-key and --trusted-root need --verify")
		}
		return nil
	}
	if c.ck.newVerifier == nil {
		return fmt.Errorf("--verify: %s was built without signature verification (lintcmd.WithVerifier)", c.ck.name)
	}
	opts := VerifyOptions{Keys: map[string]string{}, TrustedRoot: f.trustedRoot}
	for _, k := range f.keys {
		ref, file, ok := strings.Cut(k, "=")
		if !ok || !strings.Contains(ref, "/") || file == "" {
			return fmt.Errorf("--verify-key: %q is not SECRET/KEY=FILE", k)
		}
		opts.Keys[ref] = file
	}
	client, err := rf.client()
	if err != nil {
		return err
	}
	opts.Client = client
	v, err := c.ck.newVerifier(opts)
	if err != nil {
		return fmt.Errorf("--verify: %w", err)
	}
	c.verifier = v
	return nil
}

// errUnverified is the class of a source whose signature did not verify.
var errUnverified = errors.New("signature verification failed")

// verifyRef verifies the package at ref (as declared: c.images rewrites
// it first) and returns ref pinned to the verified digest. A reference
// that no ImageConfig states a verification for fails: --verify asks
// that every package be verified.
func (c *config) verifyRef(ctx context.Context, ref string) (string, error) {
	target := ref
	if c.images != nil {
		target, _, _ = c.images.Rewrite(ref)
	}
	d, _, applied, err := c.verifier.Verify(ctx, target, c.images)
	if r := refusal(nil); errors.As(err, &r) && r.Refused() {
		return "", fmt.Errorf("%w: %w", errRefused, err)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %w", errUnverified, err)
	}
	if !applied {
		return "", fmt.Errorf("%w: no ImageConfig (--image-config) states a verification for %s", errUnverified, target)
	}
	parsed, err := oci.ParseReference(ref)
	if err != nil {
		return "", err
	}
	return parsed.Name() + "@" + d, nil
}

// verifyGraph verifies every package of the graph at the digest it was
// read at (from a registry, or a local source holding the same image);
// a package read without a digest cannot be verified, and fails.
func verifyGraph(ctx context.Context, c *config, g *deps.Graph) error {
	for _, n := range g.Nodes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if n == g.Root || n.Package == nil {
			continue
		}
		if n.Package.Digest == "" || n.Name == "" {
			return fmt.Errorf("dependency %s: %w: it was read without a digest (a package directory), so no signature can be checked", n.Label(), errUnverified)
		}
		if _, err := c.verifyRef(ctx, n.Name+"@"+n.Package.Digest); err != nil {
			return fmt.Errorf("dependency %s: %w", n.Label(), err)
		}
	}
	return nil
}

// localVerifyNotes says, for each source read from disk or standard
// input, that --verify checks no signature of it: only a package pulled
// from a registry has signatures to check (and with --deps, the graph's
// dependencies read at a digest). Without the note, --verify on a local
// package would pass in silence.
func localVerifyNotes(c *config) []string {
	var notes []string
	for _, s := range c.sources {
		if anyRemote([]string{s}) {
			continue
		}
		what := "it is read from disk"
		if s == stdinSource {
			what = "it is read from standard input"
		}
		note := fmt.Sprintf("--verify: %s is not verified: %s, not pulled from a registry, so it has no signatures to check", s, what)
		if c.deps.enabled {
			note += " (its dependencies are verified)"
		}
		notes = append(notes, note)
	}
	return notes
}
