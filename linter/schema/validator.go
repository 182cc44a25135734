package schema

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Sentinel errors of validation.
var (
	// ErrNoDefinition: no definition of the Validator serves the object's
	// group, version and kind.
	ErrNoDefinition = errors.New("no definition serves this kind")
	// ErrInvalidSchema: the definition's schema cannot be used (it does not
	// decode, or a pattern does not compile).
	ErrInvalidSchema = errors.New("invalid schema")
	// ErrInvalidObject: the object is not a JSON object with an apiVersion
	// and a kind.
	ErrInvalidObject = errors.New("invalid object")
)

// Validator validates objects against the schemas of a set of definitions:
// CustomResourceDefinitions and the CRDs Crossplane derives from
// CompositeResourceDefinitions, or the built-in kinds of PackageKinds. It is
// lazy: a definition's schema is converted the first time an object of its
// kind is validated, and only that version's. A Validator is safe for
// concurrent use.
type Validator struct {
	lim    Limits
	byGVK  map[schema.GroupVersionKind]*entry
	order  []schema.GroupVersionKind
	groups map[schema.GroupKind]bool
	// rootCEL: XRD-derived CRDs carry the XRD schema's root-level
	// x-kubernetes-validations (Crossplane v2.2 and later).
	rootCEL bool
	cost    budget

	// mu guards the compiled schemas: the entries holding one, least
	// recently used first, and their nodes in all.
	mu       sync.Mutex
	retained []*entry
	nodes    int
	ext      Extension
}

// entry is one served version of one definition.
type entry struct {
	gvk        schema.GroupVersionKind
	definition string // the definition's kind and name, e.g. CustomResourceDefinition "buckets.example.org"
	served     bool
	// build returns the version's schema and whether unknown fields are
	// kept at the top level (v1beta1 CRDs with preserveUnknownFields);
	// a nil schema means the version has none (anything is accepted).
	build func() (any, bool, error)
	// defs, for built-in kinds, holds the OpenAPI definitions $refs name.
	defs map[string]any
	// tables is set for the package kinds, whose type trees WithTypesOnly
	// takes from the tables of kindtypes_table.go.
	tables bool

	// Under Validator.mu: the compiled schema (nil when not compiled, or
	// released), or the error compiling it gave.
	c   *compiled
	err error
}

// compiled is a version's schema, converted.
type compiled struct {
	schema   *spec.Schema
	root     *node
	defs     map[string]*spec.Schema
	cel      int
	skipped  []string
	preserve bool
	none     bool // no schema
	types    *tnode
	nodes    int     // schema nodes, for MaxRetainedNodes
	check    Checker // the Extension's, nil without one

	typesOnce sync.Once // builds types from root, for a CRD's schema
}

// typeRoot returns the type tree of the schema, built from the node tree
// the first time a CRD's schema is type-checked.
func (c *compiled) typeRoot() *tnode {
	if c.root == nil {
		return c.types
	}
	c.typesOnce.Do(func() { c.types = nodeTypes(c.root, map[*node]*tnode{}) })
	return c.types
}

// nodeTypes is typeTree over the converted node tree.
func nodeTypes(n *node, memo map[*node]*tnode) *tnode {
	if n == nil {
		return nil
	}
	if t, ok := memo[n]; ok {
		return t
	}
	t := &tnode{types: n.types, mask: kindsOf(n.types)}
	memo[n] = t
	for name, p := range n.props {
		if t.props == nil {
			t.props = make(map[string]*tnode, len(n.props))
		}
		t.props[name] = nodeTypes(p, memo)
	}
	t.additional = nodeTypes(n.additional, memo)
	t.items = nodeTypes(n.items, memo)
	t.typed = len(t.props) > 0 || t.additional != nil || t.items != nil
	t.isAny = len(t.types) == 0 && !t.typed
	return t
}

// Option configures New.
type Option func(*config)

// config is what the Options of New set.
type config struct {
	lim     Limits
	rootCEL bool
	ext     Extension
}

// WithLimits sets the limits on the schemas the Validator uses.
func WithLimits(l Limits) Option { return func(c *config) { c.lim = l.withDefaults() } }

// WithCrossplaneRelease makes the CRDs the Validator derives from
// CompositeResourceDefinitions follow Crossplane release (such as "v2.3.4"
// or "v2.3"): from v2.2 Crossplane copies the root-level
// x-kubernetes-validations of an XRD version's schema into the CRD it
// generates (crossplane v2.2.0, internal/xcrd/crd.go genCrdVersion); v2.1
// and older drop them. Without it the Validator follows v2.1.0.
func WithCrossplaneRelease(release string) Option {
	return func(c *config) { c.rootCEL = release != "" && lineOf(release) >= lineOf("v2.2") }
}

// New returns a Validator for the CustomResourceDefinitions
// (apiextensions.k8s.io v1 and v1beta1) and CompositeResourceDefinitions
// (apiextensions.crossplane.io v1 and v2) among objs; other objects are
// ignored. It reads only the objects' outlines (group, names, versions):
// no schema is decoded until an object of its kind is validated. When two
// definitions serve the same kind and version, the first wins.
func New(objs []*parser.Object, opts ...Option) *Validator {
	c := config{lim: Limits{}.withDefaults()}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	v := &Validator{lim: c.lim, rootCEL: c.rootCEL, ext: c.ext, byGVK: map[schema.GroupVersionKind]*entry{}, groups: map[schema.GroupKind]bool{}}
	v.cost.max = int64(v.lim.MaxCost)
	for _, o := range objs {
		if o == nil {
			continue
		}
		gvk := o.GroupVersionKind()
		switch {
		case gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition":
			v.addCRD(o)
		case gvk.Group == "apiextensions.crossplane.io" && gvk.Kind == "CompositeResourceDefinition":
			v.addXRD(o)
		}
	}
	return v
}

func (v *Validator) add(e *entry) {
	if _, dup := v.byGVK[e.gvk]; dup || e.gvk.Kind == "" || e.gvk.Version == "" {
		return
	}
	v.byGVK[e.gvk] = e
	v.order = append(v.order, e.gvk)
	v.groups[e.gvk.GroupKind()] = true
}

// Kinds returns the group, version and kind of every version the
// Validator's definitions declare, served or not, in definition order.
func (v *Validator) Kinds() []schema.GroupVersionKind {
	return append([]schema.GroupVersionKind(nil), v.order...)
}

// Serves reports whether a definition of the Validator declares the kind
// at the version (served or not).
func (v *Validator) Serves(gvk schema.GroupVersionKind) bool {
	_, ok := v.byGVK[gvk]
	return ok
}

// ServesKind reports whether a definition of the Validator declares the
// group and kind at any version.
func (v *Validator) ServesKind(gk schema.GroupKind) bool { return v.groups[gk] }

// Result is the outcome of one validation.
type Result struct {
	// GVK is the object's group, version and kind.
	GVK schema.GroupVersionKind
	// Definition names the definition whose schema applied, e.g.
	// `CustomResourceDefinition "buckets.s3.example.org"`; the version of
	// it is GVK.Version.
	Definition string
	// Served is false when the definition declares the version but does
	// not serve it: the API server refuses the object whatever its content.
	Served bool
	// Violations lists every problem found, sorted by field path.
	Violations []Violation
	// CEL counts the x-kubernetes-validations (CEL) rules of the schema
	// and what became of them: this package evaluates none itself, so
	// without an Extension (WithExtension) they are all Unevaluated.
	// CEL.Skipped() is how many were not evaluated.
	CEL CELCounts
	// Skipped lists other parts of the schema that were not checked (a
	// pattern beyond MaxPatternLength, a $ref), for the report.
	Skipped []string
	// Omitted counts the violations found beyond Limits.MaxViolations,
	// which Violations does not list.
	Omitted int
	// Cut is set by WithTypesOnly when the object holds an empty mapping or
	// list, below its top level, where the schema defines typed fields: if
	// the object is an outline (parser.Object.Outline), it may have been cut
	// short there, and the full content should be checked.
	Cut bool
}

// Valid reports whether the API server would accept the object: no
// violation other than unknown fields (which it prunes), and a served
// version. CEL rules left unevaluated are counted in CEL.
func (r *Result) Valid() bool {
	if !r.Served {
		return false
	}
	for _, v := range r.Violations {
		if v.Kind != KindUnknownField {
			return false
		}
	}
	return true
}

// ViolationKind classifies a Violation.
type ViolationKind string

// The kinds of violation.
const (
	KindType         ViolationKind = "type"
	KindRequired     ViolationKind = "required"
	KindEnum         ViolationKind = "enum"
	KindFormat       ViolationKind = "format"
	KindPattern      ViolationKind = "pattern"
	KindLength       ViolationKind = "length"
	KindRange        ViolationKind = "range"
	KindItems        ViolationKind = "items"
	KindProperties   ViolationKind = "properties"
	KindDuplicate    ViolationKind = "duplicate"
	KindUnknownField ViolationKind = "unknown-field"
	KindInvalid      ViolationKind = "invalid"
)

// Violation is one problem of an object against a schema.
type Violation struct {
	// Path is the field's path: mapping keys, and decimal indexes into
	// lists. Empty for the object itself.
	Path []string
	// Kind classifies the problem.
	Kind ViolationKind
	// Expected is the type or constraint the schema asks for, e.g.
	// "string" or "one of [Automatic, Manual]"; Found is what the object
	// holds, e.g. "number" or a quoted, shortened value.
	Expected, Found string
	// Message describes the problem, without the field path.
	Message string
	// Pos is the field's position (of its key) in the source, or of its
	// nearest present parent; set by ValidateObject, zero otherwise.
	Pos parser.Position
}

// Field formats the violation's path, e.g. spec.pipeline[0].step.
func (v Violation) Field() string { return formatPath(v.Path) }

func (v Violation) String() string {
	f := v.Field()
	if f == "" {
		f = "<object>"
	}
	return f + ": " + v.Message
}

// formatPath formats a field path as parser.FieldPath does.
func formatPath(path []string) string { return parser.FieldPath(path...) }

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ValidateOption changes what one validation checks.
type ValidateOption func(*validateConfig)

type validateConfig struct {
	skipRequired bool
	typesOnly    bool
}

// WithoutRequired leaves out the required fields check: for partial objects
// that something else completes later, such as a Composition's composed
// resource bases, whose patches fill fields in.
func WithoutRequired() ValidateOption { return func(c *validateConfig) { c.skipRequired = true } }

// WithTypesOnly reports only fields whose JSON type is not the schema's (null
// excepted), as decoding into a Go type does: no required fields, enums,
// formats, patterns, limits or unknown fields. It follows properties,
// additionalProperties and items (not allOf, anyOf, oneOf), with the types
// kube-openapi's validator applies (an integral number is an integer), and
// sets Result.Cut when the object may be an outline cut short.
func WithTypesOnly() ValidateOption { return func(c *validateConfig) { c.typesOnly = true } }

// Validate validates obj, a decoded object (maps, lists, strings, bools,
// int64 and float64, as from JSON or YAML), against the schema of the
// version of its apiVersion and kind. It returns an error wrapping
// ErrNoDefinition when no definition declares them, ErrInvalidSchema or
// a *limit.Error when the schema cannot be used, ErrInvalidObject when obj has no
// apiVersion or kind.
func (v *Validator) Validate(ctx context.Context, obj map[string]any, opts ...ValidateOption) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion == "" || kind == "" {
		return nil, fmt.Errorf("%w: no apiVersion or kind", ErrInvalidObject)
	}
	gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
	e, ok := v.byGVK[gvk]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoDefinition, bounded(gvk.String()))
	}
	var cfg validateConfig
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.typesOnly && e.tables {
		// A package kind: its type tree is in the tables, and its
		// schema need not be decoded or compiled (kindtypes.go).
		if tr, ok := kindTypes()[gvk]; ok {
			r := &Result{GVK: gvk, Definition: e.definition, Served: e.served, CEL: unevaluated(tr.cel), Skipped: tr.skipped}
			typeCheck(obj, tr.root, &r.Violations, &r.Cut)
			sortViolations(r.Violations)
			return r, nil
		}
	}
	c, err := v.compile(ctx, e)
	if err != nil {
		return nil, fmt.Errorf("%s version %s: %w", e.definition, bounded(gvk.Version), err)
	}
	r := &Result{GVK: gvk, Definition: e.definition, Served: e.served, CEL: unevaluated(c.cel), Skipped: c.skipped}
	if c.none {
		return r, nil
	}
	if cfg.typesOnly {
		typeCheck(obj, c.typeRoot(), &r.Violations, &r.Cut)
		sortViolations(r.Violations)
		return r, nil
	}
	var found []Violation
	data := any(obj) // the object as the API server keeps it: pruned, defaulted
	if c.root != nil {
		w := &walker{ctx: ctx, cost: &v.cost, max: v.lim.MaxViolations, patterns: true, rootPreserve: c.preserve}
		data, _ = w.walk(obj, c.root, nil, true)
		w.flush(w.errPath)
		if w.err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%s version %s: %w", e.definition, bounded(gvk.Version), w.err)
		}
		found, r.Omitted = w.out, w.omitted
	} else {
		// A built-in kind, whose schema holds $refs: kube-openapi validates
		// it whole (its schemas are this module's own).
		found, err = c.validate(obj)
		if err != nil {
			return nil, err
		}
	}
	for _, f := range found {
		if cfg.skipRequired && f.Kind == KindRequired {
			continue
		}
		r.Violations = append(r.Violations, f)
	}
	if c.check != nil {
		runCheck(ctx, c, data, r, cfg.skipRequired)
	}
	sortViolations(r.Violations)
	return r, nil
}

// ValidateObject decodes obj and validates it like Validate, and sets the
// position of each violation.
func (v *Validator) ValidateObject(ctx context.Context, obj *parser.Object, opts ...ValidateOption) (*Result, error) {
	u, err := obj.Unstructured()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidObject, err)
	}
	r, err := v.Validate(ctx, u.Object, opts...)
	if err != nil {
		return nil, err
	}
	locate(obj, r.Violations)
	return r, nil
}

// locate sets the position of each violation in obj, parsing obj once.
func locate(obj *parser.Object, vs []Violation) {
	if len(vs) == 0 {
		return
	}
	loc, err := obj.FieldLocator()
	for i := range vs {
		vs[i].Pos = obj.Pos
		if err != nil {
			continue
		}
		for n := len(vs[i].Path); n > 0; n-- {
			if pos, err := loc.FieldPosition(vs[i].Path[:n]...); err == nil {
				vs[i].Pos = pos
				break
			}
		}
	}
}

func sortViolations(vs []Violation) {
	if len(vs) < 2 {
		return
	}
	sort.SliceStable(vs, func(i, j int) bool {
		a, b := vs[i], vs[j]
		for k := 0; k < len(a.Path) && k < len(b.Path); k++ {
			if a.Path[k] != b.Path[k] {
				ai, bi := isIndex(a.Path[k]), isIndex(b.Path[k])
				if ai && bi && len(a.Path[k]) != len(b.Path[k]) {
					return len(a.Path[k]) < len(b.Path[k])
				}
				return a.Path[k] < b.Path[k]
			}
		}
		if len(a.Path) != len(b.Path) {
			return len(a.Path) < len(b.Path)
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Message < b.Message
	})
}

// compile returns the entry's compiled schema, compiling it when it is
// not retained, and releases the least recently used others beyond
// MaxRetainedNodes. Compiling counts against MaxCost.
func (v *Validator) compile(ctx context.Context, e *entry) (*compiled, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if e.err != nil {
		return nil, e.err
	}
	if e.c != nil {
		for i, r := range v.retained {
			if r == e {
				copy(v.retained[i:], v.retained[i+1:])
				v.retained[len(v.retained)-1] = e
				break
			}
		}
		return e.c, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	wantRaw := v.ext != nil
	c, raw, err := e.compileRaw(v.lim, wantRaw)
	if err != nil {
		e.err = err
		return nil, err
	}
	if v.ext != nil && !c.none && c.defs == nil && c.cel > 0 {
		// The schema as built for doCompile: building it again would
		// decode the whole definition a second time.
		c.check, _ = v.ext.Compile(raw)
	}
	// A compile costs about as much as validating one value per node,
	// several times over.
	if v.cost.used.Add(int64(2*c.nodes)) > v.cost.max {
		return nil, limitErr(limitval.MaxCost, v.cost.max, "validation, compiling the schema")
	}
	e.c = c
	v.retained = append(v.retained, e)
	v.nodes += c.nodes
	for len(v.retained) > 1 && v.nodes > v.lim.MaxRetainedNodes {
		old := v.retained[0]
		v.retained = v.retained[1:]
		v.nodes -= old.c.nodes
		old.c = nil
	}
	return c, nil
}

func (e *entry) doCompile(lim Limits) (c *compiled, err error) {
	c, _, err = e.compileRaw(lim, false)
	return c, err
}

// compileRaw is doCompile, and returns the schema it built (decoded JSON,
// not modified), for an Extension to compile, when keepRaw: otherwise it
// drops it before converting, so the decoded schema and the converted tree
// are not both live (a hostile package of large schemas: 24 MiB more peak).
func (e *entry) compileRaw(lim Limits, keepRaw bool) (c *compiled, raw any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, raw, err = nil, nil, fmt.Errorf("%w: %v", ErrInvalidSchema, r)
		}
	}()
	raw, preserve, err := e.build()
	if err != nil {
		return nil, nil, err
	}
	if raw == nil {
		return &compiled{none: true}, nil, nil
	}
	s, err := decodeSchema(raw)
	if err != nil {
		return nil, nil, err
	}
	if !keepRaw {
		raw = nil
	}
	if e.defs != nil {
		// A built-in kind from Kubernetes' OpenAPI: definitions resolved
		// by $ref as validation reaches them.
		c := &compiled{schema: s, defs: map[string]*spec.Schema{}}
		for name, d := range e.defs {
			ds, err := decodeSchema(d)
			if err != nil {
				return nil, nil, err
			}
			c.defs[name] = ds
		}
		c.types = typeTree(s, c.defs, map[string]*tnode{})
		return c, raw, nil
	}
	conv := &converter{lim: lim}
	root, err := conv.convert(s, "", 0, 0)
	if err != nil {
		return nil, nil, err
	}
	finish(root, map[*node]bool{})
	return &compiled{root: root, cel: conv.cel, skipped: conv.skipped, preserve: preserve, nodes: conv.nodes}, raw, nil
}

// validate runs kube-openapi's validator over data, for a built-in kind
// (a schema with definitions: the only kind compiled without a node tree),
// resolving $refs as validation reaches them.
func (c *compiled) validate(data any) (out []Violation, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%w: validation failed: %v", ErrInvalidSchema, r)
		}
	}()
	resolve := func(s *spec.Schema) *spec.Schema {
		for i := 0; i < 8 && s != nil && s.Ref.String() != ""; i++ {
			name := s.Ref.String()
			name = name[strings.LastIndex(name, "/")+1:]
			d, ok := c.defs[name]
			if !ok {
				return &spec.Schema{}
			}
			s = d
		}
		return s
	}
	var self validate.Option
	self = func(o *validate.SchemaValidatorOptions) {
		o.NewValidatorForField = func(_ string, s *spec.Schema, rootSchema any, path string, f strfmt.Registry, _ ...validate.Option) validate.ValueValidator {
			return validate.NewSchemaValidator(resolve(s), rootSchema, path, f, self)
		}
		o.NewValidatorForIndex = func(_ int, s *spec.Schema, rootSchema any, path string, f strfmt.Registry, _ ...validate.Option) validate.ValueValidator {
			return validate.NewSchemaValidator(resolve(s), rootSchema, path, f, self)
		}
	}
	res := validate.NewSchemaValidator(resolve(c.schema), nil, "", strfmt.Default, self).Validate(data)
	if res == nil || res.IsValid() {
		return nil, nil
	}
	typed := map[string]bool{}
	for _, e := range res.Errors {
		v := violationOf(e, data)
		if v.Kind == KindType {
			typed[formatPath(v.Path)] = true
		}
		out = append(out, v)
	}
	// A number of the wrong type also fails kube-openapi's range check:
	// keep the type error only.
	kept := out[:0]
	for _, v := range out {
		if v.Kind == KindInvalid && typed[formatPath(v.Path)] && strings.HasPrefix(v.Message, "Checked value") {
			continue
		}
		kept = append(kept, v)
	}
	return kept, nil
}

// violationOf converts a kube-openapi error into a Violation, finding the
// field path in data (kube-openapi joins keys with dots, so a key holding
// a dot is found by matching the object's keys).
func violationOf(err error, data any) Violation { return violationIn(err, data, nil, "") }

// violationAt converts the error of a node's own validator (whose path is
// pathMark), for the value data at path.
func violationAt(err error, data any, path []string) Violation {
	return violationIn(err, data, path, pathMark)
}

func violationIn(err error, data any, prefix []string, mark string) Violation {
	where := func(name string) []string {
		rel := resolvePath(strings.TrimPrefix(strings.TrimPrefix(name, mark), "."), data)
		if len(prefix) == 0 {
			return rel
		}
		return append(clonePath(prefix), rel...)
	}
	var ve *openapierrors.Validation
	if !errors.As(err, &ve) {
		// Range checks of numbers return plain errors ending "in <path>".
		msg := err.Error()
		path := clonePath(prefix)
		if i := strings.LastIndex(msg, " in "); i >= 0 {
			path = where(msg[i+4:])
			msg = msg[:i]
		}
		return Violation{Path: path, Kind: KindInvalid, Message: bounded(msg), Expected: bounded(msg)}
	}
	path := where(ve.Name)
	msg := ve.Error()
	if ve.Name != "" {
		msg = strings.TrimPrefix(msg, ve.Name)
		msg = strings.TrimPrefix(msg, " in body")
		msg = strings.TrimSpace(msg)
	}
	v := Violation{Path: path, Message: bounded(msg)}
	switch ve.Code() {
	case openapierrors.InvalidTypeCode:
		v.Kind = KindType
		v.Found, _ = ve.Value.(string)
		v.Expected = strings.TrimPrefix(msg, "must be of type ")
		if i := strings.Index(v.Expected, ": "); i >= 0 {
			v.Expected = v.Expected[:i]
		}
		if !typeNames(v.Expected) {
			// A format the value does not satisfy.
			v.Kind = KindFormat
			v.Message = fmt.Sprintf("want format %s, found %s", v.Expected, quoteValue(v.Found))
			v.Expected, v.Found = "format "+v.Expected, quoteValue(v.Found)
			break
		}
		v.Expected = strings.ReplaceAll(v.Expected, ",", " or ")
		if v.Found == "" {
			v.Found = jsonType(ve.Value)
		}
		v.Message = fmt.Sprintf("want %s, found %s", v.Expected, v.Found)
	case openapierrors.RequiredFailCode:
		v.Kind, v.Expected, v.Found = KindRequired, "required", "missing"
		v.Message = "required field is missing"
	case openapierrors.EnumFailCode:
		v.Kind = KindEnum
		vals := make([]string, 0, len(ve.Values))
		for _, x := range ve.Values {
			vals = append(vals, fmt.Sprint(x))
		}
		v.Expected = bounded("one of [" + strings.Join(vals, ", ") + "]")
		v.Found = bounded(fmt.Sprintf("%v", ve.Value))
		v.Message = fmt.Sprintf("want %s, found %s", v.Expected, v.Found)
	case openapierrors.TooLongFailCode, openapierrors.TooShortFailCode:
		v.Kind, v.Expected = KindLength, strings.TrimPrefix(msg, "should be ")
	case openapierrors.PatternFailCode:
		v.Kind, v.Expected = KindPattern, strings.TrimPrefix(msg, "should ")
	case openapierrors.MaxFailCode, openapierrors.MinFailCode, openapierrors.MultipleOfFailCode:
		v.Kind, v.Expected = KindRange, strings.TrimPrefix(msg, "should be ")
		v.Found = bounded(fmt.Sprint(ve.Value))
	case openapierrors.MaxItemsFailCode, openapierrors.MinItemsFailCode, openapierrors.UniqueFailCode:
		v.Kind, v.Expected = KindItems, strings.TrimPrefix(msg, "should ")
	case openapierrors.TooManyPropertiesCode, openapierrors.TooFewPropertiesCode:
		v.Kind, v.Expected = KindProperties, strings.TrimPrefix(msg, "should ")
	default:
		if strings.Contains(msg, "format") {
			v.Kind = KindFormat
		} else {
			v.Kind = KindInvalid
		}
		v.Expected = msg
	}
	if v.Found == "" && v.Kind != KindRequired {
		v.Found = bounded(fmt.Sprint(ve.Value))
	}
	return v
}

// typeNames reports whether s is a comma-separated list of JSON types.
func typeNames(s string) bool {
	for _, t := range strings.Split(s, ",") {
		switch t {
		case "string", "integer", "number", "boolean", "array", "object", "null":
		default:
			return false
		}
	}
	return s != ""
}

// resolvePath splits kube-openapi's dotted path against the data it names:
// at each object the longest key that the path continues with wins.
func resolvePath(p string, data any) []string {
	var out []string
	for p != "" {
		if p[0] == '[' {
			j := strings.IndexByte(p, ']')
			if j < 0 {
				return append(out, p)
			}
			idx := p[1:j]
			out = append(out, idx)
			p = strings.TrimPrefix(p[j+1:], ".")
			if l, ok := data.([]any); ok {
				if i, err := strconv.Atoi(idx); err == nil && i >= 0 && i < len(l) {
					data = l[i]
					continue
				}
			}
			data = nil
			continue
		}
		m, _ := data.(map[string]any)
		best := ""
		if len(m) > 0 {
			// The longest key the path continues with: looked up at each
			// place a key may end (a bounded number of them), never by
			// scanning the object's keys.
			ends := make([]int, 0, 8)
			for i := 0; i < len(p); i++ {
				if p[i] == '.' || p[i] == '[' {
					ends = append(ends, i)
				}
			}
			ends = append(ends, len(p))
			if len(ends) > 64 {
				ends = append(ends[:32], ends[len(ends)-32:]...)
			}
			for i := len(ends) - 1; i >= 0; i-- {
				if _, ok := m[p[:ends[i]]]; ok && ends[i] > 0 {
					best = p[:ends[i]]
					break
				}
			}
		}
		if best == "" {
			// Not in the data (a required field): the next segment.
			j := strings.IndexAny(p, ".[")
			if j < 0 {
				return append(out, p)
			}
			best = p[:j]
		}
		out = append(out, best)
		p = strings.TrimPrefix(p[len(best):], ".")
		data = m[best]
	}
	return out
}
