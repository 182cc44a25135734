package linter

import lschema "github.com/xpkgkit/xpkgkit/linter/schema"

// WithSchemaOptions passes opts to the schema Validators the rules that
// validate objects against the package's definitions build (XP408
// example-schema, XP409 composed-resource-schema): with
// lschema.WithExtension, they evaluate the CEL rules of those definitions
// (linter/apiserver.LintOptions installs the API server's).
func WithSchemaOptions(opts ...lschema.Option) Option {
	return lintOption(func(c *config) { c.schemaOpts = append(c.schemaOpts, opts...) })
}
