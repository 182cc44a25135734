// Command registry-index does what a package registry embedding xpkgkit
// does: it walks a directory of package images (.xpkg files, OCI layout
// directories and OCI layout tars), reads each one concurrently as the
// upload it would be (a file is fed to xpkg.OpenReader as an io.Reader,
// images only, under the tight limits of registryLimits), lints it, and
// writes a JSON index with a verdict per upload (accepted, refused,
// corrupt, not-a-package, empty, over-limit) and what it holds: package
// name, kind, tags, digests, dependencies, the CRDs and XRDs with their
// group, kind and versions, and a lint summary.
//
// Usage:
//
//	registry-index [-o FILE] [-j N] DIR
//
// The index is sorted by path, so the same directory gives the same bytes
// whatever the concurrency. An image that cannot be read gets an entry with
// its error; the exit code is 0 unless the flags are wrong or DIR cannot be
// walked (2).
package main

import (
	"bytes"
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
	"slices"
	"strings"
	"sync"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// Entry is one image of the index.
type Entry struct {
	// Path is the image's path relative to the directory walked, with '/'.
	Path string `json:"path"`
	// Verdict is what a registry decides about the upload: VerdictAccepted,
	// VerdictRefused (Crossplane would refuse it: lint errors),
	// VerdictCorrupt (a truncated or tampered image), VerdictNotPackage,
	// VerdictEmpty, VerdictOverLimit, or VerdictError (anything else, such
	// as an I/O error).
	Verdict string `json:"verdict"`
	// Error says why the image could not be read; the other fields are then
	// empty.
	Error string `json:"error,omitempty"`

	Format       string   `json:"format,omitempty"`
	Name         string   `json:"name,omitempty"`
	Kind         string   `json:"kind,omitempty"`
	APIVersion   string   `json:"apiVersion,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	Digest       string   `json:"digest,omitempty"`
	ConfigDigest string   `json:"configDigest,omitempty"`
	Crossplane   string   `json:"crossplane,omitempty"`

	Dependencies []Dependency `json:"dependencies,omitempty"`
	CRDs         []Definition `json:"crds,omitempty"`
	XRDs         []Definition `json:"xrds,omitempty"`
	Lint         *LintSummary `json:"lint,omitempty"`
}

// The verdicts of Entry.Verdict.
const (
	VerdictAccepted   = "accepted"
	VerdictRefused    = "refused"
	VerdictCorrupt    = "corrupt"
	VerdictNotPackage = "not-a-package"
	VerdictEmpty      = "empty"
	VerdictOverLimit  = "over-limit"
	VerdictError      = "error"
)

// registryLimits are tighter than the defaults, as a registry that reads
// uploads from anyone sets them: zero fields keep their defaults.
func registryLimits() xpkg.Limits {
	var l xpkg.Limits
	l.MaxReaderBytes = 256 << 20
	l.OCI.MaxLayerBytes = 256 << 20
	l.OCI.MaxImageBytes = 512 << 20
	l.OCI.MaxTarEntries = 10_000
	l.Parser.MaxDocumentBytes = 4 << 20
	l.Parser.MaxDocuments = 20_000
	return l
}

// verdict classifies the error of reading an upload.
func verdict(err error) string {
	switch {
	case errors.Is(err, xpkg.ErrEmpty):
		return VerdictEmpty
	case errors.Is(err, limit.ErrExceeded):
		return VerdictOverLimit
	case errors.Is(err, oci.ErrMalformed), errors.Is(err, oci.ErrDigestMismatch):
		return VerdictCorrupt
	case errors.Is(err, xpkg.ErrUnknownSource):
		return VerdictNotPackage
	}
	return VerdictError
}

// Dependency is one entry of a package's spec.dependsOn.
type Dependency struct {
	Kind    string `json:"kind"`
	Package string `json:"package"`
	Version string `json:"version"`
}

// Definition is a CRD or an XRD.
type Definition struct {
	Name     string   `json:"name"`
	Group    string   `json:"group"`
	Kind     string   `json:"kind"`
	Versions []string `json:"versions"`
}

// LintSummary counts the diagnostics of the built-in rules.
type LintSummary struct {
	Errors   int            `json:"errors"`
	Warnings int            `json:"warnings"`
	Infos    int            `json:"infos"`
	Rules    map[string]int `json:"rules,omitempty"`
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the program; it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("registry-index", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("o", "", "write the index to `FILE` instead of stdout")
	jobs := fl.Int("j", runtime.GOMAXPROCS(0), "images read at once")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: registry-index [-o FILE] [-j N] DIR")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 1 || *jobs < 1 {
		fl.Usage()
		return 2
	}
	ctx := context.Background()
	entries, err := index(ctx, fl.Arg(0), *jobs)
	if err != nil {
		fmt.Fprintf(stderr, "registry-index: %v\n", err)
		return 2
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep ">=v1.0.0" readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(entries); err != nil {
		fmt.Fprintf(stderr, "registry-index: %v\n", err)
		return 2
	}
	if *out == "" {
		_, err = stdout.Write(buf.Bytes())
	} else {
		err = safefile.Write(ctx, *out, buf.Bytes(), safefile.WriteOptions{})
	}
	if err != nil {
		fmt.Fprintf(stderr, "registry-index: %v\n", err)
		return 2
	}
	return 0
}

// index finds the images below dir and reads them, at most jobs at once.
func index(ctx context.Context, dir string, jobs int) ([]Entry, error) {
	paths, err := findImages(dir)
	if err != nil {
		return nil, err
	}
	entries := make([]Entry, len(paths))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, len(paths)) {
		wg.Go(func() {
			for i := range work {
				entries[i] = read(ctx, dir, paths[i])
			}
		})
	}
	for i := range paths {
		work <- i
	}
	close(work)
	wg.Wait()
	return entries, nil
}

// findImages lists the images below dir, sorted: .xpkg files, OCI layout
// tars (.tar, .tar.gz, .tgz) and directories holding an oci-layout file
// (not walked further).
func findImages(dir string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if _, err := os.Stat(filepath.Join(p, ocispec.ImageLayoutFile)); err == nil {
				paths = append(paths, p)
				return fs.SkipDir
			}
			return nil
		}
		name := d.Name()
		if d.Type().IsRegular() && (strings.HasSuffix(name, xpkg.Extension) || strings.HasSuffix(name, ".tar") || strings.HasSuffix(name, ".tar.gz") || strings.HasSuffix(name, ".tgz")) {
			paths = append(paths, p)
		}
		return nil
	})
	slices.Sort(paths)
	return paths, err
}

// read opens and lints one image.
func read(ctx context.Context, dir, path string) Entry {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		rel = path
	}
	e := Entry{Path: filepath.ToSlash(rel)}
	opts := []xpkg.Option{xpkg.WithSourceName(e.Path), xpkg.WithLimits(registryLimits()), xpkg.WithImagesOnly()}
	var pkg *xpkg.Package
	if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
		// An OCI layout directory: what a registry's own storage holds.
		pkg, err = xpkg.Open(ctx, path, opts...)
		if err == nil && pkg.Image == nil {
			err = fmt.Errorf("%s is a %s, not an image: %w", e.Path, pkg.SourceKind, xpkg.ErrUnknownSource)
		}
	} else {
		// A file: read as the upload it would be, from a reader.
		pkg, err = openUpload(ctx, path, opts...)
	}
	if err != nil {
		e.Verdict = verdict(err)
		e.Error = err.Error()
		return e
	}
	res, err := rules.LintPackage(ctx, pkg)
	if err != nil {
		e.Verdict = VerdictError
		e.Error = err.Error()
		return e
	}
	e.Verdict = VerdictAccepted
	if res.AtOrAbove(linter.SeverityError) {
		e.Verdict = VerdictRefused
	}
	e.Format = formatName(pkg.Image.Format)
	e.Tags = pkg.Image.Tags
	e.Digest = pkg.Image.ManifestDigest.String()
	e.ConfigDigest = pkg.Image.Manifest.Config.Digest.String()
	if m := pkg.Pkg(); m != nil {
		e.Name = m.GetName()
		e.Kind = pkg.Meta[0].Kind
		e.APIVersion = pkg.Meta[0].APIVersion
		if c := m.GetCrossplaneConstraints(); c != nil {
			e.Crossplane = c.Version
		}
		for _, d := range m.GetDependencies() {
			kind, ref, _ := d.Target()
			e.Dependencies = append(e.Dependencies, Dependency{Kind: kind, Package: ref, Version: d.Version})
		}
	}
	e.CRDs = definitions(pkg.Package, "apiextensions.k8s.io", "CustomResourceDefinition")
	e.XRDs = definitions(pkg.Package, "apiextensions.crossplane.io", "CompositeResourceDefinition")
	e.Lint = summarise(res)
	return e
}

// openUpload feeds the file at path to xpkg.OpenReader, as a registry feeds
// the body of an upload.
func openUpload(ctx context.Context, path string, opts ...xpkg.Option) (*xpkg.Package, error) {
	f, err := safefile.Open(path) // a regular file, never a FIFO
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return xpkg.OpenReader(ctx, f, opts...)
}

// formatName names the form an image was stored in, as xpkg.SourceKind
// names it.
func formatName(f oci.Format) string {
	switch f {
	case oci.FormatDockerArchive:
		return xpkg.SourceXpkg.String()
	case oci.FormatLayoutDir:
		return xpkg.SourceOCILayout.String()
	case oci.FormatLayoutTar:
		return xpkg.SourceOCILayoutTar.String()
	}
	return f.String()
}

// definitions lists the CRDs or XRDs of a package, read from the objects'
// outlines (group, kind and version names), without decoding their schemas.
func definitions(pkg *parser.Package, group, kind string) []Definition {
	var defs []Definition
	for _, o := range pkg.Objects {
		if o.Kind != kind || o.GroupVersionKind().Group != group {
			continue
		}
		spec, _ := o.Outline()["spec"].(map[string]any)
		d := Definition{Name: o.ObjectMeta.Name}
		d.Group, _ = spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		d.Kind, _ = names["kind"].(string)
		versions, _ := spec["versions"].([]any)
		for _, v := range versions {
			vm, _ := v.(map[string]any)
			if n, ok := vm["name"].(string); ok {
				d.Versions = append(d.Versions, n)
			}
		}
		if v, ok := spec["version"].(string); ok && len(d.Versions) == 0 {
			d.Versions = []string{v} // apiextensions.k8s.io/v1beta1
		}
		defs = append(defs, d)
	}
	slices.SortFunc(defs, func(a, b Definition) int { return strings.Compare(a.Name, b.Name) })
	return defs
}

// summarise counts a lint result's diagnostics.
func summarise(res *linter.Result) *LintSummary {
	s := &LintSummary{
		Errors:   res.Count(linter.SeverityError),
		Warnings: res.Count(linter.SeverityWarning),
		Infos:    res.Count(linter.SeverityInfo),
	}
	for _, d := range res.Diagnostics {
		if s.Rules == nil {
			s.Rules = map[string]int{}
		}
		s.Rules[d.RuleID]++
	}
	return s
}
