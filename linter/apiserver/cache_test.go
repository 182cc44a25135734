package apiserver_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/rules"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apiserver"
	"github.com/xpkgkit/xpkgkit/linter/apiserver/verdictcache"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// countingCache is an apiserver.Cache that counts its hits and puts
// around another.
type countingCache struct {
	apiserver.Cache
	mu         sync.Mutex
	gets, hits int
	puts       int
}

func (c *countingCache) Get(ctx context.Context, key string) ([]byte, bool) {
	b, ok := c.Cache.Get(ctx, key)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gets++
	if ok {
		c.hits++
	}
	return b, ok
}

func (c *countingCache) Put(ctx context.Context, key string, value []byte) error {
	c.mu.Lock()
	c.puts++
	c.mu.Unlock()
	return c.Cache.Put(ctx, key, value)
}

func (c *countingCache) counts() (gets, hits, puts int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, h, p := c.gets, c.hits, c.puts
	c.gets, c.hits, c.puts = 0, 0, 0
	return g, h, p
}

// lintWith lints pkg with the built-in rules and the API server's, at
// target, through cache c (none when nil), and returns every diagnostic
// with its rule, severity, position, object and message.
func lintWith(t *testing.T, pkg, examples *parser.Package, target string, c apiserver.Cache) []string {
	t.Helper()
	var aopts []apiserver.Option
	if c != nil {
		aopts = append(aopts, apiserver.WithCache(c))
	}
	opts := apiserver.LintOptions(aopts...)
	if examples != nil {
		opts = append(opts, rules.WithExamples(examples))
	}
	if target != "" {
		opts = append(opts, linter.WithCrossplaneVersion(target))
	}
	res, err := linter.Lint(context.Background(), pkg, append([]linter.Option{linter.WithRuleSet(rules.Builtin()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(res.Diagnostics))
	for _, d := range res.Diagnostics {
		obj := ""
		if d.Object != nil {
			obj = d.Object.Kind + "/" + d.Object.Name
		}
		out = append(out, fmt.Sprintf("%s %s %s:%d:%d:%d %s %q %s", d.RuleID, d.Severity, d.Pos.File, d.Pos.Document, d.Pos.Line, d.Pos.Column, obj, d.Field, d.Message))
	}
	if len(res.Failures) > 0 {
		out = append(out, fmt.Sprint("failures: ", res.Failures))
	}
	return out
}

// parsePath parses a YAML stream, or opens a package directory with its
// examples.
func parsePath(t *testing.T, p string) (pkg, examples *parser.Package) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.IsDir() {
		xp, err := xpkg.Open(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return xp.Package, xp.Examples
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err = parser.Parse(context.Background(), bytes.NewReader(data), parser.WithFile(filepath.Base(p)))
	if err != nil {
		t.Fatal(err)
	}
	return pkg, nil
}

// coldWarm lints pkg at each target without a cache, with an empty cache
// and with the cache that run filled, and requires the same diagnostics
// each time; the warm run must read every entry the cold one wrote and
// write none.
func coldWarm(t *testing.T, pkg, examples *parser.Package, targets []string) {
	t.Helper()
	for _, target := range targets {
		want := lintWith(t, pkg, examples, target, nil)
		dir, err := verdictcache.OpenDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		c := &countingCache{Cache: dir}
		cold := lintWith(t, pkg, examples, target, c)
		_, coldHits, coldPuts := c.counts()
		warm := lintWith(t, pkg, examples, target, c)
		warmGets, warmHits, warmPuts := c.counts()
		dir.Close()
		if diff := cmp.Diff(want, cold); diff != "" {
			t.Errorf("target %q: a cold cache changes the diagnostics (-none +cold):\n%s", target, diff)
		}
		if diff := cmp.Diff(want, warm); diff != "" {
			t.Errorf("target %q: a warm cache changes the diagnostics (-none +warm):\n%s", target, diff)
		}
		// A cold run hits only on an object the package repeats byte for
		// byte. An object the gateway refused (over its limits) was not
		// validated, so nothing was written for it: a miss in both runs.
		if warmPuts != 0 || coldHits+coldPuts != warmHits {
			t.Errorf("target %q: cold %d hits, %d puts; warm %d gets, %d hits, %d puts: want the warm run to read every entry the cold one wrote", target, coldHits, coldPuts, warmGets, warmHits, warmPuts)
		}
	}
}

// TestCacheColdWarm lints the rules' fixtures and every package of the
// verdict table (linter/rules/testdata/verdicts) with no cache, a cold one and a
// warm one, at the default target and at v2.1 (where XP421 derives CRDs
// without the XRD's root CEL rules), and requires the same diagnostics.
func TestCacheColdWarm(t *testing.T) {
	t.Parallel()
	var paths []string
	for _, glob := range []string{"testdata/crd/*.yaml", "../rules/testdata/verdicts/packages/*"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) < 100 {
		t.Fatalf("%d inputs: the fixtures are missing", len(paths))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			t.Parallel()
			pkg, examples := parsePath(t, p)
			coldWarm(t, pkg, examples, []string{"", "v2.1.0"})
		})
	}
}

// descriptionRe finds the first plain one-line description of a CRD's
// schema.
var descriptionRe = regexp.MustCompile(`(?m)^(\s+description: )([A-Za-z][^:#\n]*)$`)

// nextRelease returns data, a package's YAML stream, with every
// hundredth CustomResourceDefinition changed (the first description
// of its schema edited, so that its bytes differ and its verdict does
// not), as a release that changed 1% of its CRDs, and how many it
// changed.
func nextRelease(data []byte) ([]byte, int) {
	docs := bytes.Split(data, []byte("\n---\n"))
	n, changed := 0, 0
	for i, d := range docs {
		if !bytes.Contains(d, []byte("kind: CustomResourceDefinition")) {
			continue
		}
		n++
		if n%100 != 1 {
			continue
		}
		if loc := descriptionRe.FindSubmatchIndex(d); loc != nil {
			nd := append(append(append([]byte(nil), d[:loc[3]]...), "Changed in the next release. "...), d[loc[4]:]...)
			docs[i] = nd
			changed++
		}
	}
	return bytes.Join(docs, []byte("\n---\n")), changed
}

// TestCorpusCache lints every corpus package (its package.yaml) with no
// cache, a cold one and a warm one, and its next release (1% of its CRDs
// changed) with no cache and with the cache the package filled, and
// requires the same diagnostics each time. Under -race and -short it
// leaves out the packages over 2 MB (.ci/run runs it without).
func TestCorpusCache(t *testing.T) {
	t.Parallel()
	dir := testcorpus.Dir(t)
	for _, name := range testcorpus.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(dir, name, "package.yaml")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) > 2<<20 && (raceEnabled || testing.Short()) {
				t.Skipf("%d MB of YAML: left to the run without -race and -short", len(data)>>20)
			}
			pkg, err := parser.Parse(context.Background(), bytes.NewReader(data), parser.WithFile("package.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			coldWarm(t, pkg, nil, []string{""})

			next, changed := nextRelease(data)
			npkg, err := parser.Parse(context.Background(), bytes.NewReader(next), parser.WithFile("package.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			want := lintWith(t, npkg, nil, "", nil)
			cdir, err := verdictcache.OpenDir(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer cdir.Close()
			c := &countingCache{Cache: cdir}
			lintWith(t, pkg, nil, "", c)
			c.counts()
			got := lintWith(t, npkg, nil, "", c)
			_, _, puts := c.counts()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("a cache filled by the previous release changes the diagnostics (-none +cached):\n%s", diff)
			}
			if puts != changed {
				t.Errorf("the next release wrote %d entries; want one per CRD changed, %d", puts, changed)
			}
			if strings.Contains(name, "provider") && changed == 0 {
				t.Errorf("no CRD changed in the next release")
			}
		})
	}
}

// TestRegistryCacheColdWarm lints the rules' fixtures with no cache and
// through a cache in docker-registry on loopback, cold then warm (skipped
// when docker-registry is not installed).
func TestRegistryCacheColdWarm(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	client, err := remote.New(remote.WithAnonymous(), remote.WithPlainHTTP(true))
	if err != nil {
		t.Fatal(err)
	}
	repo, err := client.Repository(reg.Host + "/xpkgkit/verdicts")
	if err != nil {
		t.Fatal(err)
	}
	c := &countingCache{Cache: verdictcache.NewRegistry(repo)}
	paths, _ := filepath.Glob("testdata/crd/*.yaml")
	for _, p := range paths {
		pkg, examples := parsePath(t, p)
		want := lintWith(t, pkg, examples, "", nil)
		cold := lintWith(t, pkg, examples, "", c)
		_, _, puts := c.counts()
		warm := lintWith(t, pkg, examples, "", c)
		gets, hits, warmPuts := c.counts()
		if diff := cmp.Diff(want, cold); diff != "" {
			t.Errorf("%s: cold (-none +cold):\n%s", p, diff)
		}
		if diff := cmp.Diff(want, warm); diff != "" {
			t.Errorf("%s: warm (-none +warm):\n%s", p, diff)
		}
		// An object the gateway refused is not written: a miss both times.
		if warmPuts != 0 || hits < puts {
			t.Errorf("%s: cold %d puts; warm %d gets, %d hits, %d puts", p, puts, gets, hits, warmPuts)
		}
	}
}
