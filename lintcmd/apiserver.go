package lintcmd

import (
	"flag"
	"path/filepath"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apiserver"
	"github.com/xpkgkit/xpkgkit/linter/apiserver/verdictcache"
	"github.com/xpkgkit/xpkgkit/oci/cache"
)

// The command validates as the API server does (linter/apiserver):
// its rules (XP420-XP423) join the built-in ones, and the CEL rules of the
// package's CRDs are evaluated on examples and composed resources. What
// XP420 and XP421 find is cached (verdictcache.Dir) in the verdicts
// directory of the cache directory, beside the blob cache, unless
// --no-verdict-cache.

// verdictsSubdir is the verdict cache's directory in the cache directory.
const verdictsSubdir = "verdicts"

// apiserverRules returns the rules of linter/apiserver.
func apiserverRules() []*linter.Rule { return apiserver.Rules() }

// apiserverOptions returns the linter options of linter/apiserver,
// new for each package (the CEL cost budget is per package), reading and
// writing verdicts in c when it is not nil.
func apiserverOptions(c apiserver.Cache) []linter.Option {
	if c == nil {
		return apiserver.LintOptions()
	}
	return apiserver.LintOptions(apiserver.WithCache(c))
}

// verdictFlags are the flags of the verdict cache.
type verdictFlags struct {
	off bool
}

func (f *verdictFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.off, "no-verdict-cache", false, "neither read nor write the API server's verdicts in the cache directory")
}

// dir returns the verdict cache's directory: the verdicts directory of
// --cache-dir, or of the default cache directory; "" when it is turned
// off or there is no cache directory.
func (f *verdictFlags) dir(cacheDir string) string {
	if f.off {
		return ""
	}
	if cacheDir == "" {
		d, err := cache.DefaultDir()
		if err != nil {
			return ""
		}
		cacheDir = d
	}
	return filepath.Join(cacheDir, verdictsSubdir)
}

// openVerdicts opens the verdict cache of c, when there is one, and
// returns the function that closes it, which every path of the run
// calls: the Dir writes the run's entries at Close, as one pack (on a
// SIGINT too, when the run winds down within the grace Main gives it;
// entries lost past it are only work to do again). A cache that cannot
// be opened (a read-only home, a file in its place) is no cache: it only
// saves work, and so does an error writing it.
func openVerdicts(c *config) func() {
	if c.verdictDir == "" {
		return func() {}
	}
	d, err := verdictcache.OpenDir(c.verdictDir)
	if err != nil {
		return func() {}
	}
	c.verdicts = d
	return func() { d.Close() }
}

// verdictCache is the verdict cache's type in config.
type verdictCache = apiserver.Cache
