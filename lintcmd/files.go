package lintcmd

// What the checker reads and writes beside the packages: the configuration
// files of every source and the baseline are read before anything is
// linted (prepare), so that a bad one is a configuration error, with its
// file and line, and exit 2; a configuration's exclude rules leave findings
// out by path. Every file goes through internal/safefile.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/xpkgkit/xpkgkit/linter"
)

// prepare reads the configuration of every source (a bad one is an error
// naming its file and line) and opens the baseline: --baseline's, else the
// one baseline key of the configurations that apply; nil without one.
func (ck *Checker) prepare(ctx context.Context, c *config) (*baseline, error) {
	var projects []*projectConfig
	if c.project != nil {
		projects = append(projects, c.project)
	} else if c.configs != nil {
		for _, s := range c.sources {
			p, err := c.configs.find(ctx, s)
			if err != nil {
				return nil, fmt.Errorf("configuration: %w", err)
			}
			if p != nil && !slices.Contains(projects, p) {
				projects = append(projects, p)
			}
		}
	}
	if c.against.source == "" && (c.against.version != "" || c.against.oldVersion != "") {
		against := false
		for _, p := range projects {
			against = against || p.against != ""
		}
		if !against {
			return nil, errors.New("--package-version and --against-version need --against (or the configuration's against key)")
		}
	}
	path, root, flag := c.baseline, "", "--baseline"
	if path == "" {
		for _, p := range projects {
			if p.baseline == "" {
				continue
			}
			if path != "" && path != p.baseline {
				return nil, fmt.Errorf("configuration: the sources' configurations name two baselines (%s, %s): lint them apart, or give --baseline", path, p.baseline)
			}
			// A baseline the repository names stays in the repository.
			path, root, flag = p.baseline, repoRoot(p.dir), p.file+": baseline"
		}
	}
	if path == "" {
		if c.writeBaseline {
			return nil, errors.New("--write-baseline: no baseline named (give --baseline FILE, or the configuration's baseline key)")
		}
		return nil, nil
	}
	bl, err := openBaseline(ctx, path, c.writeBaseline, root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return bl, nil
}

// repoRoot returns the repository dir is in: the nearest directory up from
// it that holds .git, else dir itself.
func repoRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs
		}
		d = parent
	}
}

// excludeRules reads the exclude key: a list of mappings, each with a path
// (a glob, relative to the package root) and optionally the rules (IDs or
// names) whose findings in the files it matches are left out; without
// rules, every rule's.
func (ck *Checker) excludeRules(file string, v *yaml.Node) ([]excludeRule, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, configError(file, v, "exclude: want a list of {path: GLOB, rules: [RULE...]}")
	}
	if len(v.Content) > maxIgnoreGlobs {
		return nil, configError(file, v, "exclude: %d entries, more than %d", len(v.Content), maxIgnoreGlobs)
	}
	var out []excludeRule
	for _, e := range v.Content {
		if e.Kind != yaml.MappingNode {
			return nil, configError(file, e, "exclude: want {path: GLOB, rules: [RULE...]}")
		}
		var r excludeRule
		for i := 0; i+1 < len(e.Content); i += 2 {
			k, val := e.Content[i], e.Content[i+1]
			switch k.Value {
			case "path":
				if val.Kind != yaml.ScalarNode || val.Tag == "!!null" {
					return nil, configError(file, val, "exclude: path: want a glob")
				}
				if err := checkGlobs([]string{val.Value}); err != nil {
					return nil, configError(file, val, "exclude: path: %v", err)
				}
				r.path = val.Value
			case "rules":
				names, err := stringList(file, "exclude: rules", val)
				if err != nil {
					return nil, err
				}
				for _, n := range names {
					rule := ck.lookupRule(n)
					if rule == nil {
						return nil, configError(file, val, "exclude: rules: unknown rule %q (see --list-rules)", n)
					}
					r.rules = append(r.rules, rule.ID)
				}
			default:
				return nil, configError(file, k, "exclude: unknown key %q (want path, rules)", k.Value)
			}
		}
		if r.path == "" {
			return nil, configError(file, e, "exclude: an entry without a path")
		}
		out = append(out, r)
	}
	return out, nil
}

// applyExclude moves the diagnostics the exclude rules match (by their file,
// relative to the package root, and rule) from ds to silenced, saying which
// rule left each out. It fails only when ctx is done.
func applyExclude(ctx context.Context, file string, rules []excludeRule, ds, silenced []linter.Diagnostic) (kept, moved []linter.Diagnostic, err error) {
	if len(rules) == 0 {
		return ds, silenced, nil
	}
	sets := make([]*globSet, len(rules))
	for i, r := range rules {
		sets[i] = newGlobSet(ctx, []string{r.path})
	}
	kept = ds[:0:0]
	for _, d := range ds {
		out := false
		for i, r := range rules {
			if (len(r.rules) == 0 || slices.Contains(r.rules, d.RuleID)) && sets[i].match(filepath.ToSlash(d.Pos.File)) {
				d.Suppression = &linter.Suppression{Reason: fmt.Sprintf("excluded by %s (path %s)", file, r.path)}
				silenced = append(silenced, d)
				out = true
				break
			}
			if sets[i].err != nil {
				return nil, nil, sets[i].err
			}
		}
		if !out {
			kept = append(kept, d)
		}
	}
	return kept, silenced, nil
}
