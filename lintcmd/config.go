package lintcmd

import (
	"bytes"
	"context"
	_ "embed" // the configuration's JSON schema
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	"go.yaml.in/yaml/v3"

	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

// configFile is the name of a project's configuration file, looked for in
// the directory of each source and its parents (up to the repository root,
// a directory holding .git, or the filesystem root), unless --config names
// one. configFileAlt, its .yml spelling, is found too (a directory holding
// both is an error).
const (
	configFile    = ".xpkg-lint.yaml"
	configFileAlt = ".xpkg-lint.yml"
)

//go:embed config.schema.json
var configSchema []byte

// ConfigSchema returns the JSON Schema (draft-04) of the configuration
// file, .xpkg-lint.yaml (or .xpkg-lint.yml), that xpkg-lint reads from the
// directory of each source and its parents, or from --config.
func ConfigSchema() []byte { return slices.Clone(configSchema) }

// Bounds of a configuration file, per unit: its size; its ignore and
// exclude globs (every file of a package is matched against each) and
// their length; and the entries of every other list.
const (
	maxConfigSize  = 1 << 20
	maxIgnoreGlobs = 1000
	maxGlobLength  = 256
	maxConfigList  = 1000
)

// projectConfig is what a configuration file says. Keys are named like the
// flags; a flag given on the command line wins over its key.
type projectConfig struct {
	file       string   // where it was read from
	dir        string   // its directory: deps-from is relative to it
	ignore     []string // globs, relative to the package root
	disabled   []string // rule IDs
	severities map[string]linter.Severity
	failOn     *linter.Severity
	xpVersion  string
	depsFrom   []string
	against    string                     // an older version of the package (--against)
	images     *imageconfig.Set           // ImageConfig files' objects (--image-config)
	baseline   string                     // the baseline file (--baseline), relative to the working directory
	exclude    []excludeRule              // findings left out by path and rule
	footprint  graphrules.FootprintLimits // max-crds, max-apiserver-memory (footprint.go)
}

// excludeRule leaves out the findings of some rules (every rule when rules
// is empty) in the files a glob matches, as golangci-lint's
// issues.exclude-rules does: the files are still linted.
type excludeRule struct {
	path  string   // a glob, relative to the package root
	rules []string // rule IDs
}

// configKeys are the keys a configuration file may hold.
var configKeys = []string{"ignore", "disable", "severity", "fail-on", "crossplane-version", "deps-from", "against", "image-config", "baseline", "exclude", "max-crds", "max-apiserver-memory"}

// configError is an error of a configuration file, at a line.
//
// Every string among args is the configuration file's text: it is cut and
// escaped as safetext quotes a value (configValue), whatever verb the
// format gives it, so a 900 KB value is not echoed whole, nor a control
// character raw.
func configError(file string, n *yaml.Node, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = configValue(s)
		}
	}
	return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...))
}

// configValue is a value of a configuration file in a message: %q quotes
// it as safetext.Quote does (cut at safetext.MaxValueRunes, escaped), any
// other verb writes it cut and escaped, unquoted.
type configValue string

// Format implements fmt.Formatter.
func (v configValue) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		io.WriteString(f, safetext.Quote(string(v)))
		return
	}
	s, cut := safetext.Truncate(string(v), safetext.MaxValueRunes)
	s = safetext.Escape(s)
	if cut {
		s += safetext.Ellipsis
	}
	io.WriteString(f, s)
}

// readConfig reads and checks a configuration file, through safefile: a
// regular file, no link followed, never blocking, at most maxConfigSize.
func (ck *Checker) readConfig(ctx context.Context, file string) (*projectConfig, error) {
	data, err := safefile.Read(ctx, file, maxConfigSize)
	if err != nil {
		return nil, err
	}
	return ck.parseConfig(ctx, file, data)
}

// parseConfig checks the content of a configuration file.
func (ck *Checker) parseConfig(ctx context.Context, file string, data []byte) (*projectConfig, error) {
	c := &projectConfig{file: file, dir: filepath.Dir(file), severities: map[string]linter.Severity{}}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil // an empty file
		}
		return nil, fmt.Errorf("%s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		return nil, configError(file, &more, "a second YAML document: the configuration is one mapping")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, configError(file, root, "the configuration must be a mapping of keys (%s)", strings.Join(configKeys, ", "))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			return nil, configError(file, k, "key %q given twice", k.Value)
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "ignore":
			c.ignore, err = stringList(file, k.Value, v)
			if len(c.ignore) > maxIgnoreGlobs {
				return nil, configError(file, v, "ignore: %d globs, more than %d", len(c.ignore), maxIgnoreGlobs)
			}
			if gerr := checkGlobs(c.ignore); gerr != nil {
				return nil, configError(file, v, "ignore: %v", gerr)
			}
		case "disable":
			var names []string
			if names, err = stringList(file, k.Value, v); err == nil {
				for _, n := range names {
					r := ck.lookupRule(n)
					if r == nil {
						return nil, configError(file, v, "disable: unknown rule %q (see --list-rules)", n)
					}
					c.disabled = append(c.disabled, r.ID)
				}
			}
		case "severity":
			if v.Kind != yaml.MappingNode {
				return nil, configError(file, v, "severity: want a mapping of rules to levels (XP104: error)")
			}
			if len(v.Content)/2 > maxConfigList {
				return nil, configError(file, v, "severity: %d rules, more than %d", len(v.Content)/2, maxConfigList)
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				rk, rv := v.Content[j], v.Content[j+1]
				r := ck.lookupRule(rk.Value)
				if r == nil {
					return nil, configError(file, rk, "severity: unknown rule %q (see --list-rules)", rk.Value)
				}
				sev, perr := linter.ParseSeverity(rv.Value)
				if rv.Kind != yaml.ScalarNode || perr != nil {
					return nil, configError(file, rv, "severity: %s: unknown level %q (want error, warning or info)", rk.Value, rv.Value)
				}
				c.severities[r.ID] = sev
			}
		case "fail-on":
			sev, perr := linter.ParseSeverity(v.Value)
			if v.Kind != yaml.ScalarNode || perr != nil {
				return nil, configError(file, v, "fail-on: unknown level %q (want error, warning or info)", v.Value)
			}
			c.failOn = &sev
		case "crossplane-version":
			if _, perr := semver.NewVersion(v.Value); v.Kind != yaml.ScalarNode || perr != nil {
				return nil, configError(file, v, "crossplane-version: %q is not a semantic version", v.Value)
			}
			c.xpVersion = v.Value
		case "deps-from":
			var dirs []string
			if dirs, err = stringList(file, k.Value, v); err == nil {
				for _, d := range dirs {
					if !filepath.IsAbs(d) {
						d = filepath.Join(c.dir, d)
					}
					if fi, serr := os.Stat(d); serr != nil || !fi.IsDir() {
						return nil, configError(file, v, "deps-from: %q is not a directory", d)
					}
					c.depsFrom = append(c.depsFrom, d)
				}
			}
		case "against":
			if v.Kind != yaml.ScalarNode || v.Value == "" || v.Tag == "!!null" {
				return nil, configError(file, v, "against: want a source (a path or a reference)")
			}
			c.against = v.Value
			// A path is relative to the file; anything else is a
			// reference, as --against reads it.
			if rel := filepath.Join(c.dir, v.Value); !filepath.IsAbs(v.Value) {
				if _, serr := os.Lstat(rel); serr == nil {
					c.against = rel
				}
			}
		case "image-config":
			var files []string
			if files, err = stringList(file, k.Value, v); err == nil {
				for i, f := range files {
					if !filepath.IsAbs(f) {
						files[i] = filepath.Join(c.dir, f)
					}
				}
				if c.images, err = readImageConfigs(ctx, files); err != nil {
					return nil, configError(file, v, "image-config: %v", err)
				}
			}
		case "baseline":
			if v.Kind != yaml.ScalarNode || v.Value == "" || v.Tag == "!!null" {
				return nil, configError(file, v, "baseline: want a file name")
			}
			c.baseline = v.Value
			if !filepath.IsAbs(c.baseline) {
				c.baseline = filepath.Join(c.dir, c.baseline)
			}
		case "exclude":
			c.exclude, err = ck.excludeRules(file, v)
		case "max-crds", "max-apiserver-memory":
			err = c.footprintKey(file, k, v)
		default:
			return nil, configError(file, k, "unknown key %q (want %s)", k.Value, strings.Join(configKeys, ", "))
		}
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

// stringList reads a list of strings, or one string (comma-separated, as
// the flags take it).
func stringList(file, key string, v *yaml.Node) ([]string, error) {
	var out []string
	add := func(n *yaml.Node) error {
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			return configError(file, n, "%s: want a string or a list of strings", key)
		}
		for item := range strings.SplitSeq(n.Value, ",") {
			if item = strings.TrimSpace(item); item != "" {
				if len(out) >= maxConfigList {
					return configError(file, n, "%s: more than %d entries", key, maxConfigList)
				}
				out = append(out, item)
			}
		}
		return nil
	}
	switch v.Kind {
	case yaml.ScalarNode:
		return out, add(v)
	case yaml.SequenceNode:
		if len(v.Content) > maxConfigList {
			return nil, configError(file, v, "%s: %d entries, more than %d", key, len(v.Content), maxConfigList)
		}
		for _, n := range v.Content {
			if err := add(n); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, configError(file, v, "%s: want a string or a list of strings", key)
}

// configFinder finds and reads the configuration of each source once per
// directory.
type configFinder struct {
	ck    *Checker
	mu    sync.Mutex
	byDir map[string]configResult
}

type configResult struct {
	c   *projectConfig
	err error
}

// find returns the configuration that applies to source: the first
// configFile in the source's directory (its own, for a directory) or a
// parent, stopping after a directory that holds .git; nil when there is
// none.
func (f *configFinder) find(ctx context.Context, source string) (*projectConfig, error) {
	start := "."
	if source != stdinSource {
		if fi, err := os.Stat(source); err == nil {
			start = source
			if !fi.IsDir() {
				start = filepath.Dir(source)
			}
		}
	}
	dir, err := filepath.Abs(start)
	if err != nil {
		return nil, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var visited []string
	var res configResult
	for {
		if r, ok := f.byDir[dir]; ok {
			res = r
			break
		}
		visited = append(visited, dir)
		if file, err := configIn(dir); file != "" || err != nil {
			res = configResult{err: err}
			if err == nil {
				res.c, res.err = f.ck.readConfig(ctx, relIfShorter(file))
			}
			break
		}
		if fi, err := os.Stat(filepath.Join(dir, ".git")); err == nil && fi != nil {
			break // the repository's root
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	for _, d := range visited {
		f.byDir[d] = res
	}
	return res.c, res.err
}

// configIn returns the configuration file of dir: configFile or
// configFileAlt, "" when there is neither, an error when there are both.
// Anything at either name counts, a link or a FIFO too: readConfig then
// refuses it rather than the search passing it over.
func configIn(dir string) (string, error) {
	var found []string
	for _, name := range []string{configFile, configFileAlt} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			found = append(found, filepath.Join(dir, name))
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%s: both %s and %s: keep one", relIfShorter(dir), configFile, configFileAlt)
}

// relIfShorter returns file relative to the working directory when that
// is shorter, for messages.
func relIfShorter(file string) string {
	wd, err := os.Getwd()
	if err != nil {
		return file
	}
	if rel, err := filepath.Rel(wd, file); err == nil && len(rel) < len(file) {
		return rel
	}
	return file
}

// checkGlobs checks globs of --ignore, the ignore key or an exclude
// path: Go's filepath.Match syntax, each at most maxGlobLength bytes.
func checkGlobs(globs []string) error {
	for _, g := range globs {
		if len(g) > maxGlobLength {
			return fmt.Errorf("a glob of %d bytes, longer than %d", len(g), maxGlobLength)
		}
		if _, err := filepath.Match(g, ""); err != nil || g == "" {
			return fmt.Errorf("%q is not a glob (the syntax of crossplane xpkg build --ignore, Go's filepath.Match)", g)
		}
	}
	return nil
}

// globSet matches package paths against globs as crossplane xpkg build
// --ignore matches them: filepath.Match of the pattern joined to the root
// against the path, so that "*" stays within one directory and a pattern
// naming a directory matches none of its files. Files of the examples
// directory are matched relative to it, as the build matches them. Each
// path is matched once (the answer is kept), and the context is looked at
// before each: the work is globs times distinct paths, each glob at most
// maxGlobLength bytes.
type globSet struct {
	ctx   context.Context
	globs []string // cleaned, slash-separated
	used  []bool   // the glob of the same index matched a path
	seen  map[string]bool
	err   error // the context's, once done
}

func newGlobSet(ctx context.Context, globs []string) *globSet {
	g := &globSet{ctx: ctx, seen: map[string]bool{}}
	for _, p := range globs {
		g.globs = append(g.globs, path.Clean(filepath.ToSlash(p)))
	}
	g.used = make([]bool, len(g.globs))
	return g
}

// match reports whether p (slash-separated, relative to the package root)
// matches a glob; false once the context is done (g.err says so).
func (g *globSet) match(p string) bool {
	if m, ok := g.seen[p]; ok {
		return m
	}
	if g.err != nil {
		return false
	}
	if g.err = g.ctx.Err(); g.err != nil {
		return false
	}
	rel := p
	if r, ok := strings.CutPrefix(p, xpkg.ExamplesDir+"/"); ok {
		rel = r
	}
	// Every glob is tried (not only up to the first that matches), so
	// that a glob matching no file can be reported: the same bound,
	// globs times distinct paths.
	m := false
	for i, glob := range g.globs {
		if ok, _ := path.Match(glob, rel); ok {
			m, g.used[i] = true, true
		}
	}
	g.seen[p] = m
	return m
}

// unused returns the globs among the first n that matched no path.
func (g *globSet) unused(n int, globs []string) []string {
	var out []string
	for i := range min(n, len(globs)) {
		if !g.used[i] {
			out = append(out, globs[i])
		}
	}
	return out
}

// ignored reports whether the file at p matches a glob of ignore (see
// globSet).
func ignored(ignore []string, p string) bool {
	return newGlobSet(context.Background(), ignore).match(p)
}

// applyIgnore leaves out of a package read from a directory what ignore
// matches: objects, documents that could not be parsed, files passed over
// (XP006), and examples. It returns the globs of ignore that matched no
// file, and fails only when ctx is done.
//
// configFile (and configFileAlt) at the package root is always left out: it
// configures the linter and is no part of the package (crossplane xpkg
// build would read it as one: build with --ignore=.xpkg-lint.yaml, or keep
// it above the package root).
func applyIgnore(ctx context.Context, p *xpkg.Package, ignore []string) ([]string, error) {
	if p.Package == nil || p.SourceKind != xpkg.SourceDirectory {
		return nil, nil
	}
	g := newGlobSet(ctx, append(slices.Clip(ignore), configFile, configFileAlt))
	drop := func(pkg *parser.Package) {
		if pkg == nil {
			return
		}
		keepObj := func(o *parser.Object) bool { return g.match(o.Pos.File) }
		pkg.Meta = slices.DeleteFunc(pkg.Meta, keepObj)
		pkg.Objects = slices.DeleteFunc(pkg.Objects, keepObj)
		pkg.Errors = slices.DeleteFunc(pkg.Errors, func(e *parser.DocumentError) bool { return g.match(e.Pos.File) })
		pkg.Skipped = slices.DeleteFunc(pkg.Skipped, func(s parser.SkippedFile) bool { return g.match(s.Path) })
		pkg.Files = slices.DeleteFunc(pkg.Files, func(f string) bool { return g.match(f) })
	}
	drop(p.Package)
	drop(p.Examples)
	if g.err != nil {
		return nil, g.err
	}
	return g.unused(len(ignore), ignore), nil
}

// maxIgnoreNotes is how many ignore globs that match no file are named, one
// line each; a line counts the rest.
const maxIgnoreNotes = 5

// unusedIgnoreNote is the note of an ignore glob that matched no file: as
// crossplane xpkg build reads it, a pattern naming a directory leaves none
// of its files out.
func unusedIgnoreNote(glob string) string {
	hint := ""
	if d := strings.TrimSuffix(glob, "/"); !strings.ContainsAny(d, "*?[") {
		hint = fmt.Sprintf(" (a directory's files are %s/*, one level: crossplane xpkg build --ignore matches files, not directories)", d)
	}
	return fmt.Sprintf("ignore: %s matches no file of the package%s", safetext.Quote(glob), hint)
}
