// Package parser reads Crossplane package YAML (a package.yaml stream, or a
// package in its on-disk format in any fs.FS) into positioned objects.
//
// Parse splits the stream with its own line scanner (Splitter), which keeps
// each document's file, index, line, column and byte offset, and decodes the
// documents in parallel, returning them in stream order. Each document is
// parsed into a YAML node tree, which checks its syntax and its limits
// (nesting depth, alias expansion, duplicate keys), and then:
//
//   - documents of the meta group (meta.pkg.crossplane.io, or WithMetaGroup)
//     are decoded through the meta scheme into the typed meta objects of
//     package meta, available as Package.Pkg and Object.Decode;
//   - documents whose kind a user's scheme recognises (WithObjectScheme) are
//     decoded into their Go types;
//   - every other document keeps its apiVersion, kind and metadata, a
//     depth-limited Outline of its content, and its raw bytes, from which
//     Object.Unstructured decodes it in full on demand. This keeps the
//     memory of a parsed package far below that of fully decoded objects:
//     most of a provider package's bytes are CRD schemas few callers read.
//
// Scalars resolve as they do through sigs.k8s.io/yaml and apimachinery's
// unstructured decoding (yes/no/on/off are booleans, integers are int64).
//
// A document that cannot be parsed becomes a *DocumentError in
// Package.Errors, classified by the Err... sentinels and positioned at the
// offending line, and parsing goes on with the next document. Limits (see
// DefaultLimits) bound what untrusted input can cost; exceeding one is a
// *limit.Error.
//
// Object.FieldPosition gives the line and column of any field, parsing the
// document again only when asked.
package parser
