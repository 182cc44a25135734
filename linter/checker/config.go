package checker

import (
	"bytes"
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

	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"

	"github.com/Masterminds/semver/v3"
	"go.yaml.in/yaml/v3"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// ConfigFile is the name of a project's configuration file, looked for in
// the directory of each source and its parents (up to the repository root,
// a directory holding .git, or the filesystem root), unless --config names
// one.
const ConfigFile = ".xpkg-lint.yaml"

//go:embed config.schema.json
var configSchema []byte

// ConfigSchema returns the JSON Schema (draft-04) of ConfigFile.
func ConfigSchema() []byte { return slices.Clone(configSchema) }

// Bounds of a configuration file: its size, and its ignore globs (every
// file of a package is matched against each).
const (
	maxConfigSize  = 1 << 20
	maxIgnoreGlobs = 1000
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
	against    string               // an older version of the package (--against)
	images     *imageconfig.Set     // ImageConfig files' objects (--image-config)
	footprint  deps.FootprintLimits // max-crds, max-apiserver-memory (footprint.go)
}

// configKeys are the keys a configuration file may hold.
var configKeys = []string{"ignore", "disable", "severity", "fail-on", "crossplane-version", "deps-from", "against", "image-config", "max-crds", "max-apiserver-memory"}

// configError is an error of a configuration file, at a line.
func configError(file string, n *yaml.Node, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...))
}

// readConfig reads and checks a configuration file.
func (ck *Checker) readConfig(file string) (*projectConfig, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxConfigSize+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if buf.Len() > maxConfigSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", file, maxConfigSize)
	}
	return ck.parseConfig(file, buf.Bytes())
}

// parseConfig checks the content of a configuration file.
func (ck *Checker) parseConfig(file string, data []byte) (*projectConfig, error) {
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
			for _, g := range c.ignore {
				if _, merr := filepath.Match(g, ""); merr != nil || g == "" {
					return nil, configError(file, v, "ignore: %q is not a glob (the syntax of crossplane xpkg build --ignore, Go's filepath.Match)", g)
				}
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
				if c.images, err = readImageConfigs(files); err != nil {
					return nil, configError(file, v, "image-config: %v", err)
				}
			}
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
		for _, item := range strings.Split(n.Value, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
		return nil
	}
	switch v.Kind {
	case yaml.ScalarNode:
		return out, add(v)
	case yaml.SequenceNode:
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
// ConfigFile in the source's directory (its own, for a directory) or a
// parent, stopping after a directory that holds .git; nil when there is
// none.
func (f *configFinder) find(source string) (*projectConfig, error) {
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
		file := filepath.Join(dir, ConfigFile)
		if fi, err := os.Stat(file); err == nil && fi.Mode().IsRegular() {
			c, err := f.ck.readConfig(relIfShorter(file))
			res = configResult{c, err}
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

// ignored reports whether the file at p (slash-separated, relative to the
// package root) matches a glob of ignore, as crossplane xpkg build
// --ignore matches it: filepath.Match of the pattern joined to the root
// against the path, so that "*" stays within one directory and a pattern
// naming a directory matches none of its files. Files of the examples
// directory are matched relative to it, as the build matches them.
func ignored(ignore []string, p string) bool {
	rel := p
	if r, ok := strings.CutPrefix(p, xpkg.ExamplesDir+"/"); ok {
		rel = r
	}
	for _, g := range ignore {
		if ok, _ := path.Match(path.Clean(filepath.ToSlash(g)), rel); ok {
			return true
		}
	}
	return false
}

// applyIgnore leaves out of a package read from a directory what ignore
// matches: objects, documents that could not be parsed, files passed over
// (XP006), and examples.
//
// ConfigFile at the package root is always left out: it configures the
// linter and is no part of the package (crossplane xpkg build would read it
// as one: build with --ignore=.xpkg-lint.yaml, or keep it above the package
// root).
func applyIgnore(p *xpkg.Package, ignore []string) {
	if p.Package == nil || p.SourceKind != xpkg.SourceDirectory {
		return
	}
	ignore = append(slices.Clip(ignore), ConfigFile)
	drop := func(pkg *parser.Package) {
		if pkg == nil {
			return
		}
		keepObj := func(o *parser.Object) bool { return ignored(ignore, o.Pos.File) }
		pkg.Meta = slices.DeleteFunc(pkg.Meta, keepObj)
		pkg.Objects = slices.DeleteFunc(pkg.Objects, keepObj)
		pkg.Errors = slices.DeleteFunc(pkg.Errors, func(e *parser.DocumentError) bool { return ignored(ignore, e.Pos.File) })
		pkg.Skipped = slices.DeleteFunc(pkg.Skipped, func(s parser.SkippedFile) bool { return ignored(ignore, s.Path) })
		pkg.Files = slices.DeleteFunc(pkg.Files, func(f string) bool { return ignored(ignore, f) })
	}
	drop(p.Package)
	drop(p.Examples)
}
