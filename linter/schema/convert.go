package schema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"sync"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/limit"
)

// Limits bound the cost of the schemas a Validator accepts. A schema
// beyond a limit is not used: validating against it returns a *limit.Error
// naming the field (it matches limit.ErrExceeded). A zero field means its
// default; limit.Unlimited (any negative value) lifts that limit.
type Limits struct {
	// MaxNodes is the most schema nodes (properties, items, branches...) in
	// one version's schema. Default 200,000.
	MaxNodes int
	// MaxDepth is the deepest nesting of schema nodes. Default 128.
	MaxDepth int
	// MaxEnum is the most values of one enum. Default 10,000.
	MaxEnum int
	// MaxPatternLength is the longest pattern, in bytes, compiled. Default
	// 4,096.
	MaxPatternLength int
	// MaxCombinatorDepth is the deepest nesting of allOf, anyOf, oneOf and
	// not, whose branches each validate the same value again. Default 4.
	MaxCombinatorDepth int
	// MaxCombinatorBranches is the most branches of allOf, anyOf, oneOf
	// and not in one version's schema. Default 1,024.
	MaxCombinatorBranches int
	// MaxPatternProgram is the largest compiled pattern, in instructions of
	// its regexp/syntax program: a short pattern such as ^([a-z]+.){1000}z$
	// compiles to thousands, and matching costs the string's length times
	// the program's. A larger pattern is left out and recorded. Default
	// 5,000.
	MaxPatternProgram int
	// MaxCost bounds the work of all validations of one Validator, in
	// units of about one value checked against one schema node: schemas
	// compiled (and compiled again after being released), values visited,
	// enum and required checks, the branches of allOf, anyOf, oneOf and not
	// times the size of the value they validate, and patterns times the
	// length of the string they match. A validation that would go beyond it
	// fails with a *limit.Error (Limit "MaxCost"). Default 5,000,000 (a few
	// seconds of CPU).
	MaxCost int
	// MaxViolations is the most violations one validation lists; those
	// beyond it are counted in Result.Omitted. Default 1,000.
	MaxViolations int
	// MaxRetainedNodes bounds the compiled schema nodes a Validator keeps
	// for later validations: beyond it, the least recently used compiled
	// schemas are released (and compiled again if needed, at a cost
	// counted in MaxCost). Default 100,000.
	MaxRetainedNodes int
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) { *v = limitval.Or(*v, d) }
	def(&l.MaxNodes, 200_000)
	def(&l.MaxDepth, 128)
	def(&l.MaxEnum, 10_000)
	def(&l.MaxPatternLength, 4096)
	def(&l.MaxCombinatorDepth, 4)
	def(&l.MaxCombinatorBranches, 1024)
	def(&l.MaxPatternProgram, 5000)
	def(&l.MaxCost, 5_000_000)
	def(&l.MaxViolations, 1000)
	def(&l.MaxRetainedNodes, 100_000)
	return l
}

// limitErr is the *limit.Error of the limit name of value max, wrapped in
// an error that says where it was reached ("schema at spec.foo").
func limitErr[T int | int64](name limit.Name, max T, where string) error {
	return fmt.Errorf("%s: %w", where, &limit.Error{Limit: name, Value: int64(max) + 1, Max: int64(max)})
}

// node is the structural view of a schema the walker uses: what the API
// server prunes, defaults and checks besides kube-openapi's validation.
type node struct {
	props      map[string]*node
	additional *node // additionalProperties schema
	addAny     bool  // additionalProperties: true, or a schema
	items      *node
	preserve   bool // x-kubernetes-preserve-unknown-fields
	embedded   bool // x-kubernetes-embedded-resource
	nullable   bool
	hasDefault bool
	def        any
	listType   string
	mapKeys    []string
	patterns   []*regexp.Regexp // this node's pattern and those of its allOf branches
	cel        int              // x-kubernetes-validations rules here
	types      []string

	// s is the node's own schema; after compilation, its properties,
	// additionalProperties and items are cleared (the walker descends
	// them), so local validates only this value's keywords.
	s         *spec.Schema
	localOnce sync.Once
	local     *validate.SchemaValidator // nil: nothing to check here
	checks    bool                      // s has keywords for local
	typeOnly  bool                      // s has a type and nothing else for local
	// enum is the set of the enum's values (canonical JSON), checked by
	// the walker; enumVals the first values, for the message.
	enum     map[string]struct{}
	enumVals []any
	unique   bool     // uniqueItems, checked by the walker with a hash
	required []string // required fields, checked by the walker
	defaults []string // names of the properties that have a default
	defSize  int      // values in the default
	progs    []int    // instructions of each pattern's program
	// work is the cost of validating one value here besides visiting it
	// (required fields); branches the cost per value of the value's size
	// (the allOf, anyOf, oneOf and not branches' weight).
	work, branches int
	// weight is this node's subtree weight, for a branch that holds it.
	weight int

	defOnce sync.Once
	defViol []Violation // the default's own violations, found once
	defOmit int
	defErr  error
}

// converter turns a CRD version's openAPIV3Schema into the kube-openapi
// schema the API server validates with (the conversions of the
// apiextensions-apiserver: int-or-string, supported formats only) and the
// structural node tree.
type converter struct {
	lim       Limits
	nodes     int
	branches  int
	skipped   []string // what was left out, for the reports
	cel       int
	patternRe map[string]*regexp.Regexp
	progs     map[*regexp.Regexp]int
}

// decodeSchema decodes a schema held as a generic value (from YAML or
// JSON) into a kube-openapi schema.
func decodeSchema(v any) (*spec.Schema, error) {
	b, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
		}
	}
	s := new(spec.Schema)
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	return s, nil
}

// convert rewrites s in place and returns its structural node.
func (c *converter) convert(s *spec.Schema, path string, depth, combDepth int) (*node, error) {
	c.nodes++
	if c.nodes > c.lim.MaxNodes {
		return nil, limitErr(limitval.MaxNodes, c.lim.MaxNodes, "schema at "+path)
	}
	if depth > c.lim.MaxDepth {
		return nil, limitErr(limitval.MaxDepth, c.lim.MaxDepth, "schema at "+path)
	}
	if len(s.Enum) > c.lim.MaxEnum {
		return nil, limitErr(limitval.MaxEnum, c.lim.MaxEnum, "schema at "+path)
	}
	n := &node{nullable: s.Nullable, s: s}
	// A CRD may not use $ref (the API server refuses such a CRD), and
	// kube-openapi cannot validate one: drop it.
	if s.Ref.String() != "" {
		s.Ref = spec.Ref{}
		c.skip(path, "$ref")
	}
	s.Definitions = nil
	s.Dependencies = nil
	if len(s.PatternProperties) > 0 {
		// Not allowed in structural schemas; kube-openapi would compile the
		// patterns into a process-wide cache.
		s.PatternProperties = nil
		c.skip(path, "patternProperties")
	}
	if ext := s.Extensions; ext != nil {
		n.preserve = extBool(ext, "x-kubernetes-preserve-unknown-fields")
		n.embedded = extBool(ext, "x-kubernetes-embedded-resource")
		if extBool(ext, "x-kubernetes-int-or-string") {
			s.Type = spec.StringOrArray{"integer", "string"}
		}
		if lt, ok := ext["x-kubernetes-list-type"].(string); ok {
			n.listType = lt
		}
		if keys, ok := ext["x-kubernetes-list-map-keys"].([]any); ok {
			for _, k := range keys {
				if ks, ok := k.(string); ok {
					n.mapKeys = append(n.mapKeys, ks)
				}
			}
		}
		if rules, ok := ext["x-kubernetes-validations"].([]any); ok {
			n.cel = len(rules)
			c.cel += len(rules)
		}
	}
	stripFormat(s)
	n.types = s.Type
	if s.Default != nil {
		n.hasDefault, n.def = true, s.Default
		n.defSize = valueSize(s.Default)
	}
	n.work = 1 + len(s.Required)
	if combDepth == 0 && len(s.Required) > 0 {
		// Checked by the walker, which lists only the violations it keeps
		// (kube-openapi formats an error for each missing field).
		n.required, s.Required = s.Required, nil
	}
	if len(s.Enum) > 0 && combDepth > 0 {
		// In a branch, kube-openapi checks it.
		n.work += len(s.Enum)
	}
	if len(s.Enum) > 0 && combDepth == 0 {
		// Checked by the walker against a set: kube-openapi compares each
		// value in turn and lists every value in each failure's message.
		n.enum = make(map[string]struct{}, len(s.Enum))
		size := 0
		for _, e := range s.Enum {
			n.enum[canonical(e)] = struct{}{}
			if size < 4*maxValueLen {
				n.enumVals = append(n.enumVals, e)
				size += len(fmt.Sprint(e)) + 2
			}
		}
		s.Enum = nil
	}
	if s.UniqueItems {
		// Checked by the walker with a hash: kube-openapi compares pairs.
		// (The API server refuses uniqueItems in a CRD for that reason.)
		if combDepth == 0 {
			n.unique = true
		} else {
			c.skip(path, "uniqueItems")
		}
		s.UniqueItems = false
	}
	if s.Pattern != "" {
		re, err := c.compile(s.Pattern, path)
		if err != nil {
			return nil, err
		}
		if re != nil {
			n.patterns = append(n.patterns, re)
			n.progs = append(n.progs, c.progs[re])
		}
		// Patterns are checked by the walker with this validator's own
		// compiled expressions: kube-openapi keeps every pattern it ever
		// compiles in a process-wide cache.
		s.Pattern = ""
	}
	for name, p := range s.Properties {
		child, err := c.convert(&p, path+"."+name, depth+1, combDepth)
		if err != nil {
			return nil, err
		}
		if combDepth > 0 {
			// In a branch, kube-openapi walks the converted schema; in
			// the structural tree, the child node holds it (and the map's
			// copy is dropped below, so the tree is not held twice).
			s.Properties[name] = p
		}
		if n.props == nil {
			n.props = make(map[string]*node, len(s.Properties))
		}
		n.props[name] = child
	}
	if combDepth == 0 {
		s.Properties = nil
	}
	if ap := s.AdditionalProperties; ap != nil {
		n.addAny = ap.Allows || ap.Schema != nil
		if ap.Schema != nil {
			n.addAny = true
			child, err := c.convert(ap.Schema, path+".additionalProperties", depth+1, combDepth)
			if err != nil {
				return nil, err
			}
			n.additional = child
		}
	}
	if it := s.Items; it != nil {
		if it.Schema != nil {
			child, err := c.convert(it.Schema, path+".items", depth+1, combDepth)
			if err != nil {
				return nil, err
			}
			n.items = child
		}
		for i := range it.Schemas {
			if _, err := c.convert(&it.Schemas[i], fmt.Sprintf("%s.items[%d]", path, i), depth+1, combDepth); err != nil {
				return nil, err
			}
		}
	}
	if s.AdditionalItems != nil && s.AdditionalItems.Schema != nil {
		if _, err := c.convert(s.AdditionalItems.Schema, path+".additionalItems", depth+1, combDepth); err != nil {
			return nil, err
		}
	}
	// Value validations: each branch validates the same value again.
	branches := func(list []spec.Schema, what string) error {
		if len(list) == 0 {
			return nil
		}
		if combDepth+1 > c.lim.MaxCombinatorDepth {
			return limitErr(limitval.MaxCombinatorDepth, c.lim.MaxCombinatorDepth, "schema at "+path+"."+what)
		}
		c.branches += len(list)
		if c.branches > c.lim.MaxCombinatorBranches {
			return limitErr(limitval.MaxCombinatorBranches, c.lim.MaxCombinatorBranches, "schema at "+path+"."+what)
		}
		for i := range list {
			sub, err := c.convert(&list[i], fmt.Sprintf("%s.%s[%d]", path, what, i), depth+1, combDepth+1)
			if err != nil {
				return err
			}
			n.branches += sub.weight
			if what == "allOf" {
				// Every allOf branch applies to this value: its patterns do.
				n.patterns = append(n.patterns, sub.patterns...)
				n.progs = append(n.progs, sub.progs...)
			} else if len(sub.patterns) > 0 {
				c.skip(path+"."+what, "pattern")
			}
		}
		return nil
	}
	if err := branches(s.AllOf, "allOf"); err != nil {
		return nil, err
	}
	if err := branches(s.AnyOf, "anyOf"); err != nil {
		return nil, err
	}
	if err := branches(s.OneOf, "oneOf"); err != nil {
		return nil, err
	}
	if s.Not != nil {
		list := []spec.Schema{*s.Not}
		if err := branches(list, "not"); err != nil {
			return nil, err
		}
		*s.Not = list[0]
	}
	n.weight += n.work + len(n.enum) + n.branches
	for _, p := range n.props {
		n.weight += p.weight
	}
	if n.additional != nil {
		n.weight += n.additional.weight
	}
	if n.items != nil {
		n.weight += n.items.weight
	}
	for name, p := range n.props {
		if p.hasDefault {
			n.defaults = append(n.defaults, name)
		}
	}
	sort.Strings(n.defaults)
	return n, nil
}

// finish makes each node of the structural tree (from root, through
// properties, additionalProperties and items) validate only its own value:
// the walker descends, and kube-openapi checks this value's keywords
// (types, formats, lengths, ranges, required fields, counts, and the
// combinators, whose branches it walks in full). The full schema tree is
// then no longer referenced.
func finish(n *node, seen map[*node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	for _, p := range n.props {
		finish(p, seen)
	}
	finish(n.additional, seen)
	finish(n.items, seen)
	s := n.s
	if s == nil {
		return
	}
	s.Properties = nil
	s.AdditionalProperties = nil
	s.Items = nil
	s.AdditionalItems = nil
	s.Default = nil
	s.Description = ""
	s.Example = nil
	s.Extensions = nil
	switch {
	case s.Format != "" || len(s.Required) > 0 || s.MaxLength != nil || s.MinLength != nil ||
		s.Maximum != nil || s.Minimum != nil || s.MultipleOf != nil || s.MaxItems != nil || s.MinItems != nil ||
		s.MaxProperties != nil || s.MinProperties != nil || len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.Not != nil:
		n.checks = true
	case len(s.Type) > 0:
		// A type alone, the most common node: the walker checks it as
		// kube-openapi's type validator does (typeError), and the schema
		// need not be kept.
		n.typeOnly = true
		n.s = nil
	default:
		n.s = nil
	}
}

// validator returns the node's own kube-openapi validator, built the first
// time a value reaches the node (a large schema of which an object uses a
// few fields builds a few), or nil when the node has nothing to check.
func (n *node) validator() *validate.SchemaValidator {
	if !n.checks {
		return nil
	}
	n.localOnce.Do(func() {
		n.local = validate.NewSchemaValidator(n.s, nil, pathMark, strfmt.Default)
	})
	return n.local
}

// pathMark is the path given to each node's kube-openapi validator: its
// errors name the value as pathMark, a field of it as pathMark.field.
const pathMark = "$"

// valueSize counts the values in a decoded value.
func valueSize(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 1
		for _, e := range x {
			n += valueSize(e)
		}
		return n
	case []any:
		n := 1
		for _, e := range x {
			n += valueSize(e)
		}
		return n
	}
	return 1
}

func (c *converter) skip(path, what string) {
	if len(c.skipped) < 16 {
		c.skipped = append(c.skipped, what+" at "+path)
	}
}

// compile compiles a pattern within the limits. A pattern the API server
// would refuse to compile makes the schema invalid; a pattern too long to
// compile here is left out and recorded.
func (c *converter) compile(p, path string) (*regexp.Regexp, error) {
	if re, ok := c.patternRe[p]; ok {
		return re, nil
	}
	if len(p) > c.lim.MaxPatternLength {
		c.skip(path, fmt.Sprintf("pattern longer than %d bytes", c.lim.MaxPatternLength))
		return nil, nil
	}
	// The program's size, not the pattern's, is what matching costs: a
	// repeat count multiplies it.
	parsed, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("%w: pattern at %s: %v", ErrInvalidSchema, path, err)
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, fmt.Errorf("%w: pattern at %s: %v", ErrInvalidSchema, path, err)
	}
	if len(prog.Inst) > c.lim.MaxPatternProgram {
		c.skip(path, fmt.Sprintf("pattern compiling to more than %d instructions", c.lim.MaxPatternProgram))
		return nil, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("%w: pattern at %s: %v", ErrInvalidSchema, path, err)
	}
	if c.patternRe == nil {
		c.patternRe = map[string]*regexp.Regexp{}
		c.progs = map[*regexp.Regexp]int{}
	}
	c.patternRe[p] = re
	c.progs[re] = len(prog.Inst)
	return re, nil
}

func extBool(ext spec.Extensions, key string) bool {
	b, _ := ext[key].(bool)
	return b
}

// supportedFormats are the string formats the API server validates (the
// apiextensions-apiserver's list, with dashes removed as go-openapi
// normalises format names); others are dropped, as the API server does.
var supportedFormats = map[string]bool{
	"bsonobjectid": true, "uri": true, "email": true, "hostname": true, "ipv4": true, "ipv6": true,
	"cidr": true, "mac": true, "uuid": true, "uuid3": true, "uuid4": true, "uuid5": true,
	"isbn": true, "isbn10": true, "isbn13": true, "creditcard": true, "ssn": true,
	"hexcolor": true, "rgbcolor": true, "byte": true, "password": true, "date": true,
	"duration": true, "datetime": true, "k8sshortname": true, "k8slongname": true,
}

// stripFormat drops the formats the API server does not validate.
func stripFormat(s *spec.Schema) {
	if s.Format == "" {
		return
	}
	t := ""
	if len(s.Type) == 1 {
		t = s.Type[0]
	}
	switch t {
	case "", "string":
		if !supportedFormats[strings.ReplaceAll(s.Format, "-", "")] {
			s.Format = ""
		}
	case "integer":
		if s.Format != "int32" && s.Format != "int64" {
			s.Format = ""
		}
	case "number":
		if s.Format != "float" && s.Format != "double" {
			s.Format = ""
		}
	default:
		s.Format = ""
	}
}
