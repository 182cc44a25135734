// Command deps-lock resolves a Crossplane package's dependency graph and
// prints its lock: every package of the graph with the version and digest
// resolved, and the dependsOn entries that asked for it, as JSON. The same
// inputs print the same lock.
//
//	deps-lock [--from DIR]... [--cache DIR] [--registry [--offline]] [--crossplane-version V]
//	          [--image-config FILE]... [--verify [--verify-key SECRET/KEY=FILE]... [--trusted-root FILE]] SOURCE
//
// SOURCE is a package as xpkg.Open reads it (a .xpkg file, a package
// directory, an OCI layout, a package.yaml). Dependencies come from the
// sources given, searched in order: --from directories laid out as
// DIR/<registry>/<repository>/<tag>.xpkg (see deps.NewDirSource), --cache a
// Crossplane package cache directory, and --registry the registries the
// references name (Docker credentials, xpkgkit's shared cache; --offline
// answers from that cache alone). The graph's problems go to standard
// error, one line each; the exit status is 1 when one is an error, 2 when
// the graph cannot be resolved at all.
//
// --image-config reads Crossplane ImageConfig objects: their rewriteImage
// rules choose where --registry pulls from (the lock records the declared
// and the resolved reference). --verify verifies the cosign signatures of
// every package of the lock at the digest it was read at, as the
// ImageConfigs' spec.verification states (package xpkg/verify: key
// authorities with --verify-key, keyless ones with --trusted-root), and
// records each verified digest in the lock ("verified", "verifiedBy"); a
// package whose signatures do not verify, or that no ImageConfig states a
// verification for, fails the run (exit 2).
//
//	go run ./examples/deps-lock --from lintcmd/testdata/deps/registry lintcmd/testdata/deps/root
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/oci/cache"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
	"github.com/xpkgkit/xpkgkit/xpkg/verify"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type dirs []string

func (d *dirs) String() string     { return strings.Join(*d, ",") }
func (d *dirs) Set(v string) error { *d = append(*d, v); return nil }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("deps-lock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var from dirs
	fs.Var(&from, "from", "a directory of packages laid out like references (repeatable)")
	cacheDir := fs.String("cache", "", "a Crossplane package cache directory")
	registry := fs.Bool("registry", false, "read dependencies from the registries their references name")
	offline := fs.Bool("offline", false, "with --registry: answer from xpkgkit's cache only")
	xpVersion := fs.String("crossplane-version", "", "the Crossplane version the graph must install on")
	var icFiles, keys dirs
	fs.Var(&icFiles, "image-config", "a file of Crossplane ImageConfig objects (repeatable)")
	doVerify := fs.Bool("verify", false, "verify every package's signatures as the ImageConfigs state")
	fs.Var(&keys, "verify-key", "SECRET/KEY=FILE: the public key of a key authority (repeatable)")
	trustedRoot := fs.String("trusted-root", "", "the Sigstore trusted-root JSON of keyless authorities")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "deps-lock: give one SOURCE (see -h)")
		return 2
	}
	images, err := readImageConfigs(ctx, icFiles)
	if err != nil {
		fmt.Fprintf(stderr, "deps-lock: --image-config: %v\n", err)
		return 2
	}
	var srcs []deps.Source
	for _, d := range from {
		srcs = append(srcs, deps.NewDirSource(d))
	}
	if *cacheDir != "" {
		srcs = append(srcs, deps.NewCacheSource(*cacheDir))
	}
	if *registry {
		c, err := registryClient(*offline)
		if err != nil {
			fmt.Fprintf(stderr, "deps-lock: %v\n", err)
			return 2
		}
		srcs = append(srcs, deps.RewriteSource(deps.NewRegistrySource(c), images))
	}
	if len(srcs) == 0 {
		fmt.Fprintln(stderr, "deps-lock: give a source of dependencies: --from, --cache or --registry")
		return 2
	}

	pkg, err := xpkg.Open(ctx, fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "deps-lock: %v\n", err)
		return 2
	}
	root, err := deps.Summarize(ctx, pkg.Package, "")
	if err != nil {
		fmt.Fprintf(stderr, "deps-lock: %v\n", err)
		return 2
	}
	g, err := deps.NewResolver(deps.Sources(srcs...), deps.WithTarget(*xpVersion)).Resolve(ctx, root)
	if err != nil {
		fmt.Fprintf(stderr, "deps-lock: %v\n", err)
		return 2
	}
	var opts []linter.Option
	if *xpVersion != "" {
		opts = append(opts, linter.WithCrossplaneVersion(*xpVersion))
	}
	res, err := graphrules.Lint(ctx, g, opts...)
	if err != nil {
		fmt.Fprintf(stderr, "deps-lock: %v\n", err)
		return 2
	}
	lock := g.Lock()
	if *doVerify {
		if err := verifyLock(ctx, lock, images, keys, *trustedRoot, *offline); err != nil {
			fmt.Fprintf(stderr, "deps-lock: --verify: %v\n", err)
			return 2
		}
	}
	if _, err := stdout.Write(lock.JSON()); err != nil {
		fmt.Fprintf(stderr, "deps-lock: %v\n", err)
		return 2
	}
	code := 0
	for _, d := range res.Diagnostics {
		fmt.Fprintln(stderr, d)
		if d.Severity == linter.SeverityError {
			code = 1
		}
	}
	return code
}

// registryClient returns a client with Docker's credentials and xpkgkit's
// shared cache.
func registryClient(offline bool) (*remote.Client, error) {
	opts := []remote.Option{remote.WithOffline(offline), remote.WithUserAgent("deps-lock")}
	dir, err := cache.DefaultDir()
	if err == nil {
		var cc *cache.Cache
		if cc, err = cache.Open(dir); err == nil {
			opts = append(opts, remote.WithCache(cc))
		}
	}
	if err != nil && offline {
		return nil, errors.New("--offline needs xpkgkit's cache: " + err.Error())
	}
	return remote.New(opts...)
}

// readImageConfigs reads the ImageConfig objects of files; nil for none.
func readImageConfigs(ctx context.Context, files []string) (*imageconfig.Set, error) {
	if len(files) == 0 {
		return nil, nil
	}
	var inputs []imageconfig.Input
	for _, f := range files {
		fh, err := safefile.Open(f) // a regular file, never a FIFO
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		inputs = append(inputs, imageconfig.Input{Name: f, Reader: fh})
	}
	return imageconfig.ParseAll(ctx, inputs)
}

// verifyLock verifies every package of the lock at the digest it was read
// at, and records what verified it.
func verifyLock(ctx context.Context, lock *deps.Lock, images *imageconfig.Set, keys []string, trustedRoot string, offline bool) error {
	c, err := registryClient(offline)
	if err != nil {
		return err
	}
	opts := []verify.Option{verify.WithClient(c)}
	for _, k := range keys {
		ref, file, ok := strings.Cut(k, "=")
		i := strings.LastIndex(ref, "/")
		if !ok || i < 0 {
			return fmt.Errorf("--verify-key %q is not SECRET/KEY=FILE", k)
		}
		opts = append(opts, verify.WithPublicKeyFile(ref[:i], ref[i+1:], file))
	}
	if trustedRoot != "" {
		opts = append(opts, verify.WithTrustedRootFile(trustedRoot))
	}
	v, err := verify.New(opts...)
	if err != nil {
		return err
	}
	for _, lp := range lock.Packages {
		if lp.Digest == "" {
			return fmt.Errorf("%s was read without a digest: its signatures cannot be checked", lp.Package)
		}
		ref := lp.Package + "@" + lp.Digest
		if images != nil {
			ref, _, _ = images.Rewrite(ref)
		}
		res, applied, err := v.VerifyWithSet(ctx, ref, images)
		if err != nil {
			return err
		}
		if !applied {
			return fmt.Errorf("no ImageConfig states a verification for %s", ref)
		}
		lock.MarkVerified(lp.Package, lp.Digest, res.ImageConfig+"/"+res.Authority)
	}
	return nil
}
