// Package xpkgtest builds Crossplane packages for unit tests: valid
// Provider, Configuration and Function packages made with a few calls, and
// ready broken variants, each written in any of the forms xpkgkit reads.
//
//	p := xpkgtest.NewProvider("provider-example").
//		WithCrossplaneConstraint(">=v1.14.0").
//		WithCRD("example.org", "Widget", "v1alpha1").
//		WithDependency(meta.KindFunction, "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform", ">=v0.8.0")
//
//	p.YAML()                     // the package.yaml stream
//	p.FS()                       // the on-disk format, as a fstest.MapFS
//	p.Dir(t)                     // the on-disk format in t.TempDir()
//	p.MustImage(t).XpkgFile(t)   // a .xpkg file in t.TempDir()
//	p.MustImage(t).LayoutDir(t)  // an OCI image layout
//
// A valid fixture lints clean with xpkgkit's built-in rules: its meta object
// carries the maintainer, source, license (Apache-2.0) and a one-sentence
// description annotations; CRDs and XRDs are named <plural>.<group> with
// one storage (or referenceable) version and a schema. Fixtures are values:
// every With... method returns a new Package and leaves its receiver as it
// was, so a base fixture can be shared by the cases of a table test.
//
// Broken lists the deliberately broken packages (no meta object, two base
// layers, a digest mismatch, ...), each documented with what it breaks.
//
// Images are written deterministically (internal/ociwrite): the same
// fixture has the same digest on every run, and the same digest as
// xpkg.Build gives for its FS.
package xpkgtest
