package parser

import (
	"github.com/xpkgkit/xpkgkit/meta"
)

// Package is the result of parsing a package's YAML: its meta objects, its
// other objects and the errors of the documents that could not be parsed,
// each in stream order.
type Package struct {
	// Meta holds the objects of the meta group (meta.pkg.crossplane.io unless
	// WithMetaGroup says otherwise). A valid package has exactly one.
	Meta []*Object
	// Objects holds every other object.
	Objects []*Object
	// Errors holds one error for each document that could not be parsed.
	// Parsing goes on after a bad document unless WithFailFast is given.
	Errors []*DocumentError
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
