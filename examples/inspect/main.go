// Command inspect prints a human summary of a Crossplane package: its kind
// and name, version constraints, dependencies and capabilities, its objects
// counted by kind, the groups and kinds of its CRDs and XRDs, and, for an
// image, its layers with digests and sizes and the layer that held
// package.yaml.
//
// Usage:
//
//	inspect [-platform os/arch] SOURCE
//
// SOURCE is anything xpkg.Open reads: a .xpkg file, an OCI layout directory
// or tar, a package directory, a package.yaml file, or - for stdin.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the program: it returns the exit code, 0 on success, 2 when the
// flags are wrong or the source cannot be read.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fl.SetOutput(stderr)
	platform := fl.String("platform", "", "platform to choose from a multi-platform index (os/arch[/variant])")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: inspect [-platform os/arch] SOURCE")
		fmt.Fprintln(stderr, "SOURCE: a .xpkg file, an OCI layout (directory or tar), a package directory, a package.yaml, or - for stdin")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 1 {
		fl.Usage()
		return 2
	}
	var opts []xpkg.Option
	if *platform != "" {
		p, err := oci.ParsePlatform(*platform)
		if err != nil {
			fmt.Fprintf(stderr, "inspect: -platform: %v\n", err)
			return 2
		}
		opts = append(opts, xpkg.WithPlatform(p))
	}

	ctx := context.Background()
	var (
		pkg *xpkg.Package
		err error
	)
	if src := fl.Arg(0); src == "-" {
		pkg, err = xpkg.OpenReader(ctx, stdin, opts...)
	} else {
		pkg, err = xpkg.Open(ctx, src, opts...)
	}
	if err != nil {
		fmt.Fprintf(stderr, "inspect: %v\n", err)
		return 2
	}
	summarise(stdout, pkg)
	return 0
}

// summarise writes the summary of pkg.
func summarise(out io.Writer, pkg *xpkg.Package) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	defer w.Flush()

	fmt.Fprintf(w, "Source:\t%s (%s)\n", pkg.Source, pkg.SourceKind)
	if m := pkg.Pkg(); m != nil {
		fmt.Fprintf(w, "Package:\t%s %s (%s)\n", pkg.Meta[0].Kind, m.GetName(), pkg.Meta[0].APIVersion)
		if c := m.GetCrossplaneConstraints(); c != nil && c.Version != "" {
			fmt.Fprintf(w, "Crossplane:\t%s\n", c.Version)
		} else {
			fmt.Fprintf(w, "Crossplane:\tany version\n")
		}
		deps := m.GetDependencies()
		fmt.Fprintf(w, "Dependencies:\t%d\n", len(deps))
		for _, d := range deps {
			kind, ref, ok := d.Target()
			if !ok {
				kind, ref = "?", "(no package reference)"
			}
			fmt.Fprintf(w, "  %s\t%s %s\n", kind, ref, d.Version)
		}
		if caps := m.GetCapabilities(); len(caps) > 0 {
			fmt.Fprintf(w, "Capabilities:\t%s\n", strings.Join(caps, ", "))
		} else {
			fmt.Fprintf(w, "Capabilities:\tnone\n")
		}
	} else {
		fmt.Fprintf(w, "Package:\tno single meta object (%d found)\n", len(pkg.Meta))
	}
	if len(pkg.Errors) > 0 {
		fmt.Fprintf(w, "Unreadable documents:\t%d (first: %v)\n", len(pkg.Errors), pkg.Errors[0])
	}

	counts := map[string]int{}
	for _, o := range pkg.Objects {
		counts[o.Kind]++
	}
	fmt.Fprintf(w, "Objects:\t%d\n", len(pkg.Objects))
	for _, k := range sortedKeys(counts) {
		fmt.Fprintf(w, "  %s\t%d\n", k, counts[k])
	}

	for _, def := range []struct{ title, kind string }{
		{"CRDs", "CustomResourceDefinition"},
		{"XRDs", "CompositeResourceDefinition"},
	} {
		groups := definitions(pkg.Package, def.kind)
		if len(groups) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\t%d groups\n", def.title, len(groups))
		for _, g := range sortedKeys(groups) {
			kinds := groups[g]
			slices.Sort(kinds)
			fmt.Fprintf(w, "  %s\t%s\n", g, strings.Join(kinds, ", "))
		}
	}
	if pkg.Examples != nil {
		fmt.Fprintf(w, "Examples:\t%d objects\n", len(pkg.Examples.Objects))
	}

	img := pkg.Image
	if img == nil {
		return
	}
	fmt.Fprintf(w, "Image:\t%s\n", img.ManifestDigest)
	fmt.Fprintf(w, "  Config\t%s\n", img.Manifest.Config.Digest)
	if img.Platform != nil {
		fmt.Fprintf(w, "  Platform\t%s\n", oci.PlatformString(*img.Platform))
	}
	for _, t := range img.Tags {
		fmt.Fprintf(w, "  Tag\t%s\n", t)
	}
	fmt.Fprintf(w, "Layers:\t%d\n", len(img.Layers))
	for i, l := range img.Layers {
		fmt.Fprintf(w, "  %d\t%s\t%d bytes\t%s\n", i, l.Digest, l.Size, layerRole(img, l))
	}
	switch {
	case img.PackageLayer != nil && img.Facts.Flattened:
		fmt.Fprintf(w, "package.yaml:\tflattened filesystem, from layer %s\n", img.PackageLayer.Digest)
	case img.PackageLayer != nil:
		fmt.Fprintf(w, "package.yaml:\tbase layer %s\n", img.PackageLayer.Digest)
	case len(img.Facts.MisplacedPackageYAML) > 0:
		fmt.Fprintf(w, "package.yaml:\tnone at the root; found %s\n", strings.Join(img.Facts.MisplacedPackageYAML, ", "))
	case img.Facts.LegacyStack:
		fmt.Fprintf(w, "package.yaml:\tnone; the image is a defunct stack (%s)\n", img.Facts.LegacyStackPath)
	}
}

// layerRole says what a layer is for.
func layerRole(img *xpkg.Image, l ocispec.Descriptor) string {
	var roles []string
	switch v := l.Annotations[xpkg.AnnotationKey]; v {
	case "":
	case xpkg.AnnotationBase:
		roles = append(roles, "base")
	case xpkg.AnnotationExamples:
		roles = append(roles, "examples ("+v+")")
	default:
		roles = append(roles, xpkg.AnnotationKey+"="+v)
	}
	if img.PackageLayer != nil && img.PackageLayer.Digest == l.Digest {
		roles = append(roles, "holds package.yaml")
	}
	return strings.Join(roles, ", ")
}

// definitions returns the kinds of the definitions of kind (CRDs or XRDs),
// by group, read from the objects' outlines without decoding their schemas.
func definitions(pkg *parser.Package, kind string) map[string][]string {
	groups := map[string][]string{}
	for _, o := range pkg.Objects {
		if o.Kind != kind {
			continue
		}
		spec, _ := o.Outline()["spec"].(map[string]any)
		group, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		k, _ := names["kind"].(string)
		groups[group] = append(groups[group], k)
	}
	return groups
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
