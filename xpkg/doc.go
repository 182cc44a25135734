// Package xpkg is the package-level facade of xpkgkit: what a Crossplane
// package ("xpkg") is, how to load one from any source, and how to build
// one.
//
// The constants name the parts of the format: the layer annotation
// AnnotationKey with its values AnnotationBase (the layer holding
// PackageFile) and AnnotationExamples (Crossplane's examples layer, holding
// ExamplesFile), the config labels that keep those annotations in a `.xpkg`
// file (LayerLabel), ExamplesDir of the on-disk format (its meta file is parser.MetaFile), and
// the file Extension.
//
// Open loads a package from any source, detected by content, not by name:
// a `.xpkg` docker archive, an OCI image layout directory or tar (plain or
// gzip), a package directory (parser.MetaFile at its root or in package/), or a
// package.yaml stream, or Crossplane's package cache; OpenReader does the
// same for an io.Reader such as standard input, and OpenImage for an image
// resolved by the caller. A registry is reached only through the client the
// caller gives (WithRemote, with a *remote.Client of package oci/remote; a
// Puller): package xpkg itself neither links registry code nor touches the
// network or the user's home. Every blob is verified against its digest while it
// streams, and one Limits value bounds every reader. Open returns an error
// only when the source cannot be read (a *SourceError saying what was
// tried); documents that fail to parse and problems of the image itself
// (two base layers, a misplaced package.yaml, a defunct stack) come back in
// the Package (the image's in Image.Facts) and surface as diagnostics when
// the package is linted (linter/rules.LintPackage; xpkg imports no linter
// package).
//
//	pkg, err := xpkg.Open(ctx, "provider-example.xpkg")
//	if err != nil {
//		return err // unreadable: *xpkg.SourceError
//	}
//	res, err := rules.LintPackage(ctx, pkg)
//
// SelectLayer is the layer selector on its own: from an image's layers and
// config labels, the base layer, or the decision to flatten, with the facts
// the image lint rules (XP5xx) read.
//
// Build turns a package in its on-disk format (parser.MetaFile plus YAML files,
// from any fs.FS) into a package image, as the Crossplane CLI's build does:
// it parses the package, refusing one with documents that do not parse,
// runs the check it is given (WithCheck; the linter's lint gate is
// linter/rules.BuildCheck), and writes a
// layer holding PackageFile, annotated base, plus an examples layer. The
// result is written as an OCI image layout directory, an OCI layout tar,
// or a `.xpkg` docker archive, and is reproducible: the same input gives the
// same digest every time and on every machine.
//
//	res, err := xpkg.Build(ctx, os.DirFS("package"), xpkg.WithTags("xpkg.example.org/acme/provider-example:v1.0.0"))
//	if err != nil {
//		return err // *xpkg.ParseError, the check's error, ...
//	}
//	f, err := os.Create("provider-example" + xpkg.Extension)
//	...
//	err = res.WriteXpkg(ctx, f)
//
// The package xpkg/xpkgtest builds valid and deliberately broken packages
// for other projects' unit tests.
package xpkg
