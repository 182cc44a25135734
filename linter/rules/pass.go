package rules

import (
	"iter"

	"github.com/xpkgkit/xpkgkit/linter"
	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// The inputs of the built-in rules (linter.WithInput), each under a key
// of its own.
type (
	imageFactsKey    struct{}
	examplesKey      struct{}
	schemaOptionsKey struct{}
	metaMapKey       struct{}
)

// WithImageFacts gives the facts of the image the package was read from,
// enabling the XP5xx rules (which require them: they do not run without).
// Nil gives none.
func WithImageFacts(f *xpkg.ImageFacts) linter.Option {
	if f == nil {
		return linter.WithInput(imageFactsKey{}, nil)
	}
	return linter.WithInput(imageFactsKey{}, f)
}

// WithExamples gives the package's examples (the YAML files of the
// examples/ directory of a package directory, or .up/examples.yaml of an
// image's examples layer), enabling XP408 example-schema. Nil gives none.
func WithExamples(examples *parser.Package) linter.Option {
	if examples == nil {
		return linter.WithInput(examplesKey{}, nil)
	}
	return linter.WithInput(examplesKey{}, examples)
}

// WithSchemaOptions gives opts to the schema Validators the rules that
// validate objects against the package's definitions build (XP408
// example-schema, XP409 composed-resource-schema): with
// lschema.WithExtension, they evaluate the CEL rules of those definitions
// (linter/apiserver.LintOptions installs the API server's). A later
// WithSchemaOptions replaces an earlier one.
func WithSchemaOptions(opts ...lschema.Option) linter.Option {
	return linter.WithInput(schemaOptionsKey{}, opts)
}

// ImageFacts returns the image facts given to the Lint call
// (WithImageFacts), nil when none were: a rule of the caller's reads them
// as the image rules do.
func ImageFacts(p *linter.Pass) *xpkg.ImageFacts {
	f, _ := p.Input(imageFactsKey{}).(*xpkg.ImageFacts)
	return f
}

// imageFacts returns the image facts given (WithImageFacts), empty ones
// when none were: the rules that read them require them.
func imageFacts(p *linter.Pass) *xpkg.ImageFacts {
	if f := ImageFacts(p); f != nil {
		return f
	}
	return &xpkg.ImageFacts{}
}

// examples returns the examples given (WithExamples), nil when none were.
func examples(p *linter.Pass) *parser.Package {
	e, _ := p.Input(examplesKey{}).(*parser.Package)
	return e
}

// schemaOptions returns the schema options given (WithSchemaOptions).
func schemaOptions(p *linter.Pass) []lschema.Option {
	o, _ := p.Input(schemaOptionsKey{}).([]lschema.Option)
	return o
}

// imagePos returns the position of an image-level diagnostic: Line 0, and
// File the given name (a layer digest, say) or, when it is empty, the
// image's Source.
func imagePos(p *linter.Pass, file string) parser.Position {
	if file == "" {
		file = imageFacts(p).Source
	}
	return parser.Position{File: file}
}

// metaMap returns the content of the package's meta object, decoded once
// per Lint call for every rule that reads it; nil when the package does
// not hold exactly one.
func metaMap(p *linter.Pass) (map[string]any, error) {
	type decoded struct {
		m   map[string]any
		err error
	}
	d := p.Shared(metaMapKey{}, func() any {
		if len(p.Package.Meta) != 1 {
			return decoded{}
		}
		u, err := p.Package.Meta[0].Unstructured()
		if err != nil {
			return decoded{err: err}
		}
		return decoded{m: u.Object}
	}).(decoded)
	return d.m, d.err
}

// canceled reports whether the Lint call's context is done.
func canceled(p *linter.Pass) bool {
	select {
	case <-p.Context().Done():
		return true
	default:
		return false
	}
}

// each yields the objects of objs, stopping as soon as the Lint call's
// context is done: the built-in rules loop through it, so that each step
// over attacker data checks the context.
func each(p *linter.Pass, objs []*parser.Object) iter.Seq[*parser.Object] {
	return func(yield func(*parser.Object) bool) {
		done := p.Context().Done()
		for _, o := range objs {
			select {
			case <-done:
				return
			default:
			}
			if !yield(o) {
				return
			}
		}
	}
}
