// Command validate validates a directory of Kubernetes manifests against the
// CustomResourceDefinitions and CompositeResourceDefinitions of a Crossplane
// package, as the API server would validate them (linter/schema): every
// violation with its file, line and column, the field, the expected and
// found type or constraint, and the definition version that applied.
//
// Usage:
//
//	validate [-format text|json] [-unknown=false] [-with SOURCE]... PACKAGE DIR
//
// PACKAGE is anything xpkg.Open reads (a .xpkg file, an OCI layout, a
// package directory, a package.yaml). DIR holds the manifests (*.yaml,
// *.yml, searched recursively; hidden directories are skipped). Each -with
// adds the definitions of another package (a dependency, say); the
// package's own come first. Objects of kinds no package defines are listed
// as not validated.
//
// The exit code is 0 when every object validates (unknown fields, which the
// API server prunes, do not count), 1 when one does not, and 2 when the
// flags are wrong or an input cannot be read. CEL rules
// (x-kubernetes-validations) are not evaluated: each finding of a schema
// holding some says how many.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// Finding is one line of the report.
type Finding struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Severity is "error" (the API server refuses the object), "warning"
	// (an unknown field, which it prunes) or "info" (not validated).
	Severity   string `json:"severity"`
	Kind       string `json:"kind"`
	Name       string `json:"name,omitempty"`
	Field      string `json:"field,omitempty"`
	Violation  string `json:"violation,omitempty"`
	Expected   string `json:"expected,omitempty"`
	Found      string `json:"found,omitempty"`
	Message    string `json:"message"`
	Definition string `json:"definition,omitempty"`
	Version    string `json:"version,omitempty"`
	SkippedCEL int    `json:"skippedCEL,omitempty"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	format := fl.String("format", "text", "output format: text or json")
	unknown := fl.Bool("unknown", true, "report unknown fields (which the API server prunes) as warnings")
	var with []string
	fl.Func("with", "another package whose definitions apply too (repeatable)", func(s string) error {
		with = append(with, s)
		return nil
	})
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: validate [-format text|json] [-unknown=false] [-with SOURCE]... PACKAGE DIR")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 2 || *format != "text" && *format != "json" {
		fl.Usage()
		return 2
	}
	pkg, err := xpkg.Open(ctx, fl.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "validate: %v\n", err)
		return 2
	}
	defs := pkg.Objects
	for _, src := range with {
		dep, err := xpkg.Open(ctx, src)
		if err != nil {
			fmt.Fprintf(stderr, "validate: -with: %v\n", err)
			return 2
		}
		defs = append(defs[:len(defs):len(defs)], dep.Objects...)
	}
	v := schema.New(defs)
	objs, err := readManifests(ctx, fl.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "validate: %v\n", err)
		return 2
	}
	findings := validateAll(ctx, v, objs, *unknown)
	code := 0
	for _, f := range findings {
		if f.Severity == "error" {
			code = 1
		}
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if findings == nil {
			findings = []Finding{}
		}
		if err := enc.Encode(findings); err != nil {
			fmt.Fprintf(stderr, "validate: %v\n", err)
			return 2
		}
		return code
	}
	errs := 0
	for _, f := range findings {
		if f.Severity == "error" {
			errs++
		}
		fmt.Fprintf(stdout, "%s:%d:%d: %s: %s %q: %s\n", f.File, f.Line, f.Column, f.Severity, f.Kind, f.Name, f.Message)
	}
	fmt.Fprintf(stdout, "%d objects, %d errors\n", len(objs), errs)
	return code
}

// readManifests parses every YAML file below dir.
func readManifests(ctx context.Context, dir string) ([]*parser.Object, error) {
	var objs []*parser.Object
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") {
			return nil
		}
		f, err := safefile.Open(path) // a regular file, never a FIFO
		if err != nil {
			return err
		}
		defer f.Close()
		p, err := parser.Parse(ctx, f, parser.WithFile(filepath.ToSlash(path)))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		objs = append(objs, p.Meta...)
		objs = append(objs, p.Objects...)
		return nil
	})
	return objs, err
}

// validateAll validates the objects with GOMAXPROCS goroutines and returns
// the findings in file and position order.
func validateAll(ctx context.Context, v *schema.Validator, objs []*parser.Object, unknown bool) []Finding {
	per := make([][]Finding, len(objs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				per[i] = validateOne(ctx, v, objs[i], unknown)
			}
		}()
	}
	for i := range objs {
		next <- i
	}
	close(next)
	wg.Wait()
	var out []Finding
	for _, fs := range per {
		out = append(out, fs...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Column < out[j].Column
	})
	return out
}

func validateOne(ctx context.Context, v *schema.Validator, o *parser.Object, unknown bool) []Finding {
	base := Finding{File: o.Pos.File, Line: o.Pos.Line, Column: o.Pos.Column, Kind: o.Kind, Name: o.Name}
	r, err := v.ValidateObject(ctx, o)
	if err != nil {
		f := base
		f.Severity, f.Message = "info", "not validated: "+err.Error()
		if errors.Is(err, schema.ErrInvalidSchema) || errors.Is(err, limit.ErrExceeded) {
			f.Severity = "warning"
		}
		return []Finding{f}
	}
	var out []Finding
	note := ""
	if r.CEL.Skipped() > 0 {
		note = fmt.Sprintf(" (%d CEL rules not evaluated)", r.CEL.Skipped())
	}
	if !r.Served {
		f := base
		f.Severity, f.Definition, f.Version = "error", r.Definition, r.GVK.Version
		f.Message = fmt.Sprintf("version %q of %s is not served", r.GVK.Version, r.Definition)
		out = append(out, f)
	}
	for _, x := range r.Violations {
		if x.Kind == schema.KindUnknownField && !unknown {
			continue
		}
		f := base
		f.File, f.Line, f.Column = x.Pos.File, x.Pos.Line, x.Pos.Column
		f.Severity = "error"
		if x.Kind == schema.KindUnknownField {
			f.Severity = "warning"
		}
		f.Field, f.Violation, f.Expected, f.Found = x.Field(), string(x.Kind), x.Expected, x.Found
		f.Definition, f.Version, f.SkippedCEL = r.Definition, r.GVK.Version, r.CEL.Skipped()
		f.Message = fmt.Sprintf("%s (%s version %s)%s", x, r.Definition, r.GVK.Version, note)
		out = append(out, f)
	}
	return out
}
