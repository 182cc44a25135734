package lintcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/lintcmd/internal/report"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

// config is what the command line asks for.
type config struct {
	format     report.Format
	xpVersion  string
	xpNote     string                     // the target is outside the known lines (linter.CrossplaneLine)
	disabled   []string                   // rule IDs
	severities map[string]linter.Severity // rule ID -> severity
	failOn     linter.Severity
	// minSeverity is --min-severity: the least severity the text and
	// github output show.
	minSeverity linter.Severity
	platform    *ocispec.Platform
	limits      *xpkg.Limits // nil: the defaults
	jobs        int
	explain     string
	listRules   bool
	version     bool
	ck          *Checker // the rule set
	failOnSet   bool     // --fail-on was given: it wins over the configuration
	ignore      []string // --ignore globs
	// exclude and excludeFile are the configuration's exclude rules and
	// its file (files.go).
	exclude     []excludeRule
	excludeFile string
	baseline    string // --baseline FILE
	// writeBaseline is --write-baseline: write the baseline rather than
	// match against it.
	writeBaseline bool
	fix, diff     bool // --fix, --diff
	// project is the configuration --config names; nil to look for
	// configFile from each source upward (configs).
	project  *projectConfig
	configs  *configFinder
	sources  []string
	openOpts []xpkg.Option    // remote.go: the registry client
	deps     depsConfig       // deps.go
	against  againstConfig    // against.go
	images   *imageconfig.Set // imageconfig.go: --image-config
	verifier Verifier         // verify.go: --verify
	// apiserver.go: the verdict cache's directory ("": none), opened
	// while the sources are linted
	verdictDir string
	verdicts   verdictCache
}

// errUsage is returned by parseArgs when --help was asked for.
var errUsage = errors.New("usage requested")

// usageText is the --help text; flags.go's flag set defines every flag it
// lists (a test checks that).
const usageText = `Usage: xpkg-lint [flags] SOURCE...

xpkg-lint lints Crossplane packages and reports every problem with its rule,
severity, file, line and column. Each SOURCE is recognised by its content:

  provider.xpkg        a package image as 'crossplane xpkg build' writes it
                       (a docker archive)
  ./oci-layout         an OCI image layout directory
  image.tar            an OCI image layout in a tar (plain or gzip)
  ./my-provider        a package directory: crossplane.yaml at its root or
                       in package/ (the on-disk format)
  package.yaml         a package's YAML stream
  -                    standard input: an image (tar or gzip) or a YAML stream
  HOST/REPO:TAG        a package in a registry, by tag or @sha256:digest
                       (pulled when no local path has that name; only the
                       manifest, config and base layer are fetched)

Examples:

  xpkg-lint provider-example.xpkg            # a .xpkg file
  xpkg-lint ./provider-example.oci           # an OCI layout directory
  xpkg-lint provider-example.tar             # an OCI layout tar
  xpkg-lint ./provider-example               # a package directory
  xpkg-lint provider-example/package.yaml    # a package.yaml stream
  cat package.yaml | xpkg-lint -             # standard input
  xpkg-lint xpkg.crossplane.io/crossplane-contrib/provider-nop:v0.4.0
  xpkg-lint -o sarif ./provider-example > xpkg-lint.sarif
  xpkg-lint --fail-on warning --disable XP206,maintainer --severity XP104=error ./package
  xpkg-lint --crossplane-version v2.0.0 *.xpkg
  xpkg-lint --explain XP201
  xpkg-lint --deps --deps-from ./vendor-xpkg --crossplane-version v2.1.0 ./configuration

Flags:

  -o, --output FORMAT        text (default), json, sarif, github (GitHub
                             Actions annotations) or junit (JUnit XML, one
                             test case per finding); text is coloured on a
                             terminal unless NO_COLOR is set
  --fail-on LEVEL            exit 1 when a diagnostic is at or above LEVEL:
                             error (default), warning or info
  --min-severity LEVEL       text and github output: show only diagnostics at
                             or above LEVEL (warning hides info), counted in
                             the summary all the same; default info
  --disable RULES            turn off rules, by ID or name (comma-separated;
                             repeatable)
  --severity RULE=LEVEL      regrade a rule's diagnostics to error, warning or
                             info (repeatable)
  --crossplane-version V     judge the package as Crossplane V does (any patch
                             of 1.20, 2.0-2.4; default: the newest stable line,
                             v2.4, as v2.4.0) and check that it allows V (XP203)
  --config FILE              the configuration file (default: the first
                             .xpkg-lint.yaml in the source's directory or a
                             parent, up to the repository root); flags win
                             over its keys
  --baseline FILE            accept the findings FILE holds: only new ones
                             count toward the exit status (keyed by rule,
                             file, object and field, not by line); a FILE
                             that does not exist is an error (default: the
                             configuration's baseline key)
  --write-baseline           write the current findings to the baseline
                             (--baseline FILE or the configuration's), creating
                             or replacing it, and pass
  --fix                      apply the suggested fixes to the package files
                             in place (comments and formatting kept), then
                             report what remains; a fix that does not apply
                             cleanly is skipped and said so
  --diff                     print the suggested fixes as a unified diff
                             instead of the report
  --ignore GLOBS             leave out files of a package directory, as
                             crossplane xpkg build --ignore does (globs
                             relative to the package root; comma-separated;
                             repeatable)
  --platform OS/ARCH[/VAR]   the image to read from a multi-platform index
                             (default linux/amd64)
  --max-layer-size SIZE      most decompressed bytes of one image layer
                             (default 1GiB; SIZE takes KiB, MiB, GiB)
  --max-document-size SIZE   largest YAML document (default 8MiB)
  --max-documents N          most YAML documents in one package (default
                             100000)
  -j, --jobs N               sources linted at once (default: number of CPUs)
  --registry-config FILE     Docker config file with registry credentials
                             (default $DOCKER_CONFIG/config.json, else
                             ~/.docker/config.json; credential helpers work)
  --plain-http               reach every registry over plain HTTP (loopback
                             registries may use it without this flag)
  --cache-dir DIR            package cache, an OCI layout shared by every
                             tool (default: the user cache dir/xpkgkit)
  --no-verdict-cache         neither read nor write the API server's verdicts
                             (XP420, XP421) in the cache directory's verdicts
                             directory; by default each CRD's verdict is
                             cached by its bytes, the target and the
                             validator's version
  --offline                  read references from the cache only, and with
                             --deps use the local sources only (without it,
                             --deps reads from registries after them)
  --deps                     also resolve each package's dependency graph and
                             lint it (XP601-XP612); the text output draws the
                             graph as a tree with each package's verdict
  --deps-from DIR            a local source of dependencies, laid out as
                             DIR/<registry>/<repository>/<tag>.xpkg (or a
                             <tag>/ package directory or OCI layout); repeatable,
                             searched in order
  --deps-cache DIR           Crossplane's package cache directory as a source
                             (it records no tags: versions are not checked)
  --against SOURCE           also report the API changes (XP701-XP724) from
                             SOURCE, an older version of the package (any
                             SOURCE form, e.g. HOST/REPO:PREVIOUS-TAG; read
                             from the cache with --offline): breaking changes
                             are errors when the version change is not major
  --package-version V        the version of the package linted, for
                             --against's semver check (default: its tag
                             when it is a reference)
  --against-version V        the version of the --against package, for the
                             semver check (default: its tag when it is a
                             reference)
  --image-config FILE        Crossplane ImageConfig objects (repeatable): their
                             rewriteImage rules choose where references, and
                             with --deps the graph's packages, are pulled
                             from; the lock records both references
                             (pull secrets are not applied)
  --verify                   verify the cosign signatures of every package
                             pulled from a registry (with --deps, of every
                             package of the graph) as the ImageConfigs'
                             spec.verification states, and read each at the
                             digest verified; a package no ImageConfig
                             states a verification for, or whose signatures
                             do not verify, cannot be read (exit 2). Only in
                             programs built with verification
                             (lintcmd.WithVerifier), as xpkg-lint is
  --verify-key SECRET/KEY=FILE
                             the PEM public key a key authority's
                             secretRef (name/key) stands for (repeatable)
  --trusted-root FILE        the Sigstore trusted-root JSON of keyless
                             authorities (Fulcio, Rekor, TSA keys; offline)
  --list-rules               list the rules and exit
  --explain RULE             describe a rule, with examples, and exit
  --version                  print the version and exit
  -h, --help                 show this help

Exit status: 0 when no diagnostic is at or above --fail-on, 1 when one is,
2 when a source cannot be read or linted (with --deps: a dependency cannot
be read for a network or registry failure), or the flags are wrong.
`

// parseArgs parses the command line. It returns errUsage for --help, and an
// error saying what is wrong with the flags otherwise.
func (ck *Checker) parseArgs(ctx context.Context, args []string) (*config, error) {
	c := &config{
		ck:         ck,
		format:     report.FormatText,
		severities: map[string]linter.Severity{},
		failOn:     linter.SeverityError,
		jobs:       runtime.GOMAXPROCS(0),
	}
	fs := newFlagSet()
	var f flagValues
	f.register(fs)

	// Flags may come after sources (xpkg-lint pkg -o json), so parse until
	// every argument is used; "--" ends the flags.
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errUsage
			}
			return nil, err
		}
		left := fs.Args()
		used := len(rest) - len(left)
		if used > 0 && rest[used-1] == "--" {
			c.sources = append(c.sources, left...)
			break
		}
		if len(left) == 0 {
			break
		}
		c.sources = append(c.sources, left[0])
		rest = left[1:]
	}
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "fail-on" {
			c.failOnSet = true
		}
	})
	if err := f.apply(ctx, c); err != nil {
		return nil, err
	}
	c.configs = &configFinder{ck: ck, byDir: map[string]configResult{}}
	if f.configFile != "" {
		p, err := ck.readConfig(ctx, f.configFile)
		if err != nil {
			return nil, fmt.Errorf("--config: %w", err)
		}
		c.project = p
	}
	return c, c.check()
}

// newFlagSet returns a silent flag set: parseArgs reports its errors.
func newFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("xpkg-lint", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// flagValues holds the raw flag values before they are checked.
type flagValues struct {
	output, failOn, xpVersion, platform, explain string
	minSeverity                                  string
	configFile, baseline                         string
	disable, ignore                              listFlag
	severity                                     listFlag
	maxLayer, maxDoc                             sizeFlag
	maxDocs                                      countFlag
	jobs                                         int
	listRules, version, fix, diff                bool
	writeBaseline                                bool
	remote                                       remoteFlags
	deps                                         depsFlags        // deps.go
	against                                      againstFlags     // against.go
	images                                       imageConfigFlags // imageconfig.go
	verify                                       verifyFlags      // verify.go
	verdicts                                     verdictFlags     // apiserver.go
}

func (f *flagValues) register(fs *flag.FlagSet) {
	fs.StringVar(&f.output, "o", string(report.FormatText), "output format")
	fs.StringVar(&f.output, "output", string(report.FormatText), "output format")
	fs.StringVar(&f.failOn, "fail-on", "error", "least severity that fails the run")
	fs.StringVar(&f.minSeverity, "min-severity", "info", "least severity the text and github output show")
	fs.Var(&f.disable, "disable", "rules to turn off")
	fs.Var(&f.severity, "severity", "RULE=LEVEL regrading")
	fs.StringVar(&f.xpVersion, "crossplane-version", "", "target Crossplane version")
	fs.StringVar(&f.platform, "platform", "", "os/arch[/variant]")
	fs.Var(&f.maxLayer, "max-layer-size", "most decompressed bytes of a layer")
	fs.Var(&f.maxDoc, "max-document-size", "largest YAML document")
	fs.Var(&f.maxDocs, "max-documents", "most YAML documents")
	fs.IntVar(&f.jobs, "j", 0, "sources linted at once")
	fs.IntVar(&f.jobs, "jobs", 0, "sources linted at once")
	fs.BoolVar(&f.listRules, "list-rules", false, "list the rules")
	fs.StringVar(&f.explain, "explain", "", "describe a rule")
	fs.BoolVar(&f.version, "version", false, "print the version")
	fs.StringVar(&f.configFile, "config", "", "configuration file")
	fs.StringVar(&f.baseline, "baseline", "", "baseline file")
	fs.BoolVar(&f.writeBaseline, "write-baseline", false, "write the baseline")
	fs.BoolVar(&f.fix, "fix", false, "apply suggested fixes")
	fs.BoolVar(&f.diff, "diff", false, "print suggested fixes as a diff")
	fs.Var(&f.ignore, "ignore", "globs of files to leave out")
	f.remote.register(fs)
	f.deps.register(fs)
	f.against.register(fs)
	f.images.register(fs)
	f.verify.register(fs)
	f.verdicts.register(fs)
}

// apply checks the raw values and stores them in c.
func (f *flagValues) apply(ctx context.Context, c *config) error {
	var err error
	if c.format, err = report.ParseFormat(f.output); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	if c.failOn, err = linter.ParseSeverity(f.failOn); err != nil {
		return fmt.Errorf("--fail-on: unknown level %q (want error, warning or info)", f.failOn)
	}
	if c.minSeverity, err = linter.ParseSeverity(f.minSeverity); err != nil {
		return fmt.Errorf("--min-severity: unknown level %q (want error, warning or info)", f.minSeverity)
	}
	for _, name := range f.disable {
		r := c.ck.lookupRule(name)
		if r == nil {
			return fmt.Errorf("--disable: unknown rule %q (see --list-rules)", name)
		}
		c.disabled = append(c.disabled, r.ID)
	}
	for _, item := range f.severity {
		name, level, ok := strings.Cut(item, "=")
		if !ok {
			return fmt.Errorf("--severity: %q is not RULE=LEVEL", item)
		}
		r := c.ck.lookupRule(strings.TrimSpace(name))
		if r == nil {
			return fmt.Errorf("--severity: unknown rule %q (see --list-rules)", name)
		}
		sev, err := linter.ParseSeverity(level)
		if err != nil {
			return fmt.Errorf("--severity: %s: unknown level %q (want error, warning or info)", name, level)
		}
		c.severities[r.ID] = sev
	}
	if err := checkGlobs(f.ignore); err != nil {
		return fmt.Errorf("--ignore: %w", err)
	}
	c.ignore = append(c.ignore, f.ignore...)
	if f.xpVersion != "" {
		_, note, err := linter.CrossplaneLine(f.xpVersion)
		if err != nil {
			return fmt.Errorf("--crossplane-version: %q is not a semantic version", f.xpVersion)
		}
		c.xpVersion, c.xpNote = f.xpVersion, note
	}
	if f.platform != "" {
		p, err := parsePlatform(f.platform)
		if err != nil {
			return fmt.Errorf("--platform: %w", err)
		}
		c.platform = &p
	}
	if f.maxLayer.set || f.maxDoc.set || f.maxDocs.set {
		l := xpkg.DefaultLimits()
		if f.maxLayer.set {
			l.OCI.MaxLayerBytes = f.maxLayer.n
		}
		if f.maxDoc.set {
			l.Parser.MaxDocumentBytes = f.maxDoc.n
		}
		if f.maxDocs.set {
			l.Parser.MaxDocuments = f.maxDocs.n
		}
		c.limits = &l
	}
	if f.jobs < 0 {
		return fmt.Errorf("-j: %d is not a number of jobs", f.jobs)
	}
	if f.jobs > 0 {
		c.jobs = f.jobs
	}
	c.listRules = f.listRules
	c.baseline, c.writeBaseline = f.baseline, f.writeBaseline
	if c.writeBaseline && (c.fix || c.diff) {
		return errors.New("give --write-baseline or --fix/--diff, not both")
	}
	c.fix, c.diff = f.fix, f.diff
	if c.fix && c.diff {
		return errors.New("give --fix or --diff, not both")
	}
	c.version = f.version
	f.deps.offline = f.remote.offline // one --offline for references and the graph
	f.deps.remote = &f.remote         // the graph's registry client
	if c.deps, err = f.deps.apply(); err != nil {
		return err
	}
	if f.explain != "" {
		if c.ck.lookupRule(f.explain) == nil {
			return fmt.Errorf("--explain: unknown rule %q (see --list-rules)", f.explain)
		}
		c.explain = f.explain
	}
	if err := f.remote.apply(c); err != nil {
		return err
	}
	c.verdictDir = f.verdicts.dir(f.remote.cacheDir)
	if err := f.images.apply(ctx, c); err != nil {
		return err
	}
	if err := f.verify.apply(c, &f.remote); err != nil {
		return err
	}
	return f.against.apply(c, &f.remote)
}

// check checks what needs every flag: the sources.
func (c *config) check() error {
	if c.version {
		return nil
	}
	if c.explain != "" || c.listRules {
		if len(c.sources) > 0 {
			return errors.New("--explain and --list-rules take no SOURCE")
		}
		if c.explain != "" && c.listRules {
			return errors.New("give --explain or --list-rules, not both")
		}
		return nil
	}
	if len(c.sources) == 0 {
		return errors.New("no SOURCE given")
	}
	stdin := 0
	for _, s := range c.sources {
		if s == "" {
			return errors.New("empty SOURCE")
		}
		if s == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return errors.New("standard input (-) given more than once")
	}
	return nil
}

// parsePlatform parses "os/arch" or "os/arch/variant".
func parsePlatform(s string) (ocispec.Platform, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 || slicesContainsEmpty(parts) {
		return ocispec.Platform{}, fmt.Errorf("%q is not os/arch[/variant]", s)
	}
	p := ocispec.Platform{OS: parts[0], Architecture: parts[1]}
	if len(parts) == 3 {
		p.Variant = parts[2]
	}
	return p, nil
}

func slicesContainsEmpty(parts []string) bool {
	for _, p := range parts {
		if p == "" {
			return true
		}
	}
	return false
}

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*l = append(*l, item)
		}
	}
	return nil
}

// sizeFlag is a byte count: digits, optionally followed by KiB, MiB or GiB
// (or K, M, G, also binary).
type sizeFlag struct {
	n   int64
	set bool
}

func (s *sizeFlag) String() string { return strconv.FormatInt(s.n, 10) }

func (s *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	s.n, s.set = n, true
	return nil
}

// parseSize parses a positive byte count with an optional binary suffix.
func parseSize(v string) (int64, error) {
	num := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1},
	} {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (e.g. 1048576, 512KiB, 64MiB, 2GiB)", v)
	}
	return n * mult, nil
}

// countFlag is a positive count.
type countFlag struct {
	n   int
	set bool
}

func (c *countFlag) String() string { return strconv.Itoa(c.n) }

func (c *countFlag) Set(v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		return fmt.Errorf("%q is not a positive count", v)
	}
	c.n, c.set = n, true
	return nil
}
