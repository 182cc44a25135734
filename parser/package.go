package parser

import (
	"github.com/xpkgkit/xpkgkit/meta"
)

// Package is the result of parsing a package's YAML: its meta objects, its
// other objects and the errors of the documents that could not be parsed,
// each in stream order, and, for a package read with ParseFS, the files
// that were left unread.
type Package struct {
	// Meta holds the objects of the meta group (meta.pkg.crossplane.io unless
	// WithMetaGroup says otherwise). A valid package has exactly one.
	Meta []*Object
	// Objects holds every other object.
	Objects []*Object
	// Errors holds one error for each document that could not be parsed.
	// Parsing goes on after a bad document unless WithFailFast is given.
	Errors []*DocumentError
	// Skipped lists, in lexical order of path, the entries of the on-disk
	// format that ParseFS passed over although they may hold part of the
	// package: symbolic links named *.yaml or *.yml, symbolic links to
	// directories (ParseFS does not follow links), and YAML files under
	// hidden directories (whose names start with "."; crossplane xpkg build
	// reads those). It is empty for Parse.
	Skipped []SkippedFile
	// Files lists the files ParseFS read, in the order it read them
	// (PackageFiles); it is nil for Parse.
	Files []string
	// MetaGroup is the API group of the meta objects: the group the package
	// was parsed with (meta.DefaultGroup unless WithMetaGroup said
	// otherwise). The linter takes it from here; empty means
	// meta.DefaultGroup.
	MetaGroup string
	// Usage is what the parse counted against its limits, including what
	// WithUsage gave it.
	Usage Usage
}

// Usage is what a parse counts against Limits: the documents (empty ones
// included) and the bytes read.
type Usage struct {
	Documents int
	Bytes     int64
}

// SkippedFile is an entry of a package's on-disk format that ParseFS did
// not read.
type SkippedFile struct {
	// Path is the entry's slash-separated path in the fs.FS given to
	// ParseFS.
	Path string
	// Reason says why the entry was not read: "symlink not followed" for a
	// symbolic link, "in a hidden directory" for a YAML file under a
	// directory whose name starts with ".".
	Reason string
}

// Pkg returns the version-independent view of the package's meta object, or
// nil when the package does not hold exactly one.
func (p *Package) Pkg() meta.Pkg {
	if len(p.Meta) != 1 {
		return nil
	}
	pkg, ok := p.Meta[0].typed.(meta.Pkg)
	if !ok {
		return nil
	}
	return pkg
}
