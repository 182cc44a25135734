package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
)

// walker does what the API server does to a custom resource, in the API
// server's order: it prunes unknown fields (reporting each), drops nulls of
// non-nullable fields without a default, applies defaults, and checks
// patterns, enums, list types (set and map uniqueness, uniqueItems) and
// embedded resources itself; every other keyword of a node it hands to
// kube-openapi's validator for that node's value alone (node.local), after
// the node's children. It returns the pruned, defaulted copy; the input is
// not modified. Its work is counted against the Validator's MaxCost, and it
// checks the context as it goes: on either it stops with w.err set.
type walker struct {
	ctx      context.Context
	cost     *budget
	pending  int
	err      error
	errPath  []string
	out      []Violation
	omitted  int
	max      int
	patterns bool // check patterns (off in types-only mode)
	dflt     bool // walking a default: validation only
	// rootPreserve keeps unknown fields at the top level (v1beta1 CRDs
	// with preserveUnknownFields).
	rootPreserve bool
}

// branchCost is the units of work of validating one value against one
// node of a combinator's branch.
const branchCost = 4

// budget is what is left of a Validator's MaxCost.
type budget struct {
	used atomic.Int64
	max  int64
}

// charge counts units of work, and reports whether the walker may go on.
func (w *walker) charge(units int, path []string) bool {
	if w.err != nil {
		return false
	}
	w.pending += units
	if w.pending >= 1<<12 {
		w.flush(path)
	}
	return w.err == nil
}

// flush counts the pending work and checks the context.
func (w *walker) flush(path []string) {
	if w.err != nil {
		return
	}
	p := int64(w.pending)
	w.pending = 0
	if w.cost != nil && w.cost.used.Add(p) > w.cost.max {
		w.err = limitErr(limitval.MaxCost, w.cost.max, "validation at object field "+quotePath(path))
		return
	}
	if w.ctx != nil {
		if err := w.ctx.Err(); err != nil {
			w.err = err
		}
	}
}

func quotePath(path []string) string {
	if len(path) == 0 {
		return "<object>"
	}
	return bounded(formatPath(path))
}

// full reports whether the walker lists no more violations, counting one.
func (w *walker) full() bool {
	if w.max > 0 && len(w.out) >= w.max {
		w.omitted++
		return true
	}
	return false
}

func (w *walker) add(path []string, kind ViolationKind, expected, found, msg string) {
	if w.full() {
		return
	}
	w.out = append(w.out, Violation{Path: clonePath(path), Kind: kind, Expected: expected, Found: found, Message: msg})
}

func clonePath(p []string) []string { return append([]string(nil), p...) }

func join(path []string, e string) []string {
	return append(path[:len(path):len(path)], e)
}

// walk returns v as the API server would keep it under n, and the number
// of values it holds. root marks the object's top level, whose apiVersion,
// kind and metadata are kept.
func (w *walker) walk(v any, n *node, path []string, root bool) (any, int) {
	if n == nil || w.err != nil {
		return v, 1
	}
	size := 1
	switch x := v.(type) {
	case map[string]any:
		return w.object(x, n, path, root)
	case []any:
		if !w.charge(1, path) {
			return v, 1
		}
		out := make([]any, len(x))
		for i, e := range x {
			var sz int
			out[i], sz = w.walk(e, n.items, join(path, strconv.Itoa(i)), false)
			size += sz
			if w.err != nil {
				return out, size
			}
		}
		if !w.dflt {
			w.listType(out, n, path)
		}
		if n.unique {
			w.uniqueItems(out, path)
		}
		v = out
	case string:
		units := 1
		if w.patterns && !w.dflt && hasType(n, "string") {
			for _, p := range n.progs {
				units += len(x) * p / 64
			}
		}
		if !w.charge(units, path) {
			return v, 1
		}
		if w.patterns && !w.dflt && hasType(n, "string") {
			for _, re := range n.patterns {
				if !re.MatchString(x) {
					w.add(path, KindPattern, "match "+bounded(re.String()), quoteValue(x),
						fmt.Sprintf("must match the pattern %s", bounded(re.String())))
				}
			}
		}
	default:
		if !w.charge(1, path) {
			return v, 1
		}
	}
	w.check(v, n, path, size)
	return v, size
}

// check validates v, whose children are checked, against n's own keywords.
func (w *walker) check(v any, n *node, path []string, size int) {
	if n.enum != nil {
		ok := false
		if v != nil {
			_, ok = n.enum[canonical(v)]
		}
		if !ok && !w.full() {
			w.out = append(w.out, violationAt(openapierrors.EnumFail(pathMark, "body", v, n.enumVals), v, path))
		}
	}
	if n.typeOnly {
		if found := typeError(v, n); found != "" && !w.full() {
			w.out = append(w.out, violationAt(openapierrors.InvalidType(pathMark, "body", strings.Join(n.types, ","), found), v, path))
		}
		return
	}
	local := n.validator()
	if local == nil {
		return
	}
	// A branch costs more than a visit: kube-openapi builds a result, and
	// an error with its message for each keyword a value fails.
	if !w.charge(n.work+branchCost*n.branches*size, path) {
		return
	}
	res := local.Validate(v)
	if res == nil || res.IsValid() {
		return
	}
	start := len(w.out)
	typed := map[string]bool{}
	for _, e := range res.Errors {
		if w.full() {
			continue
		}
		x := violationAt(e, v, path)
		if x.Kind == KindType {
			typed[formatPath(x.Path)] = true
		}
		w.out = append(w.out, x)
	}
	// A number of the wrong type also fails kube-openapi's range check:
	// keep the type error only.
	kept := w.out[:start]
	for _, x := range w.out[start:] {
		if x.Kind == KindInvalid && typed[formatPath(x.Path)] && strings.HasPrefix(x.Message, "Checked value") {
			continue
		}
		kept = append(kept, x)
	}
	w.out = kept
}

// typeError returns the JSON type of v when n's types (and nullable) do
// not allow it, as kube-openapi's type validator decides for a schema with
// a type and no format: an integral number is an integer, an integer is a
// number; empty when v is allowed.
func typeError(v any, n *node) string {
	has := func(t string) bool {
		for _, x := range n.types {
			if x == t {
				return true
			}
		}
		return false
	}
	var t string
	switch x := v.(type) {
	case nil:
		if n.nullable || has("null") {
			return ""
		}
		return "null"
	case bool:
		t = "boolean"
	case string:
		t = "string"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		t = "integer"
		if has("number") {
			return ""
		}
	case float32:
		t = "number"
	case float64:
		t = "number"
		if has("integer") && x == math.Trunc(x) && !math.IsInf(x, 0) {
			return ""
		}
	case []any:
		t = "array"
	case map[string]any:
		t = "object"
	default:
		return ""
	}
	if has(t) {
		return ""
	}
	return t
}

// uniqueItems reports the first repeat of each value of a list whose
// schema sets uniqueItems, as kube-openapi does once per list.
func (w *walker) uniqueItems(l []any, path []string) {
	seen := make(map[string]struct{}, len(l))
	for _, e := range l {
		k := canonical(e)
		if _, dup := seen[k]; dup {
			if !w.full() {
				w.out = append(w.out, violationAt(openapierrors.DuplicateItems(pathMark, "body"), l, path))
			}
			return
		}
		seen[k] = struct{}{}
	}
}

func hasType(n *node, t string) bool {
	if len(n.types) == 0 {
		return true
	}
	for _, x := range n.types {
		if x == t {
			return true
		}
	}
	return false
}

func (w *walker) object(x map[string]any, n *node, path []string, root bool) (any, int) {
	if !w.charge(1+len(x), path) {
		return x, 1
	}
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(x))
	meta := root || n.embedded
	size := 1
	for _, k := range keys {
		if w.err != nil {
			return out, size
		}
		v := x[k]
		if meta && (k == "apiVersion" || k == "kind" || k == "metadata") {
			if _, defined := n.props[k]; !defined || k == "metadata" {
				// Kept as they are: ObjectMeta is validated on its own.
				out[k] = v
				size++
				continue
			}
		}
		child, ok := n.props[k]
		if !ok && n.addAny {
			child, ok = n.additional, true
		}
		if !ok {
			if n.preserve || root && w.rootPreserve {
				out[k] = v
				size++
				continue
			}
			if !w.dflt {
				w.add(join(path, k), KindUnknownField, "", "", "unknown field: the API server prunes it")
			}
			continue
		}
		if v == nil && child != nil && !child.nullable {
			// The API server drops non-nullable nulls that have no default,
			// and defaults those that have one (below).
			continue
		}
		if child == nil {
			out[k] = v
			size++
			continue
		}
		var sz int
		out[k], sz = w.walk(v, child, join(path, k), false)
		size += sz
	}
	// Defaults, after pruning, as the API server applies them. A default
	// is shared, not copied (nothing modifies the walked value), and its
	// own violations are found once per schema node.
	for _, k := range n.defaults {
		p := n.props[k]
		if cur, present := out[k]; !present || cur == nil && !p.nullable {
			if !w.charge(1, path) {
				return out, size
			}
			out[k] = p.def
			size += p.defSize
			if !w.dflt {
				w.defaultViolations(p, join(path, k))
			}
		}
	}
	if len(n.required) > 0 && w.charge(len(n.required), path) {
		for _, r := range n.required {
			if _, ok := out[r]; !ok {
				w.add(join(path, r), KindRequired, "required", "missing", "required field is missing")
			}
		}
	}
	if n.embedded && !w.dflt {
		w.embedded(out, path)
	}
	w.check(out, n, path, size)
	return out, size
}

// defaultViolations reports the violations of p's default, found once, at
// path.
func (w *walker) defaultViolations(p *node, path []string) {
	p.defOnce.Do(func() {
		dw := &walker{ctx: w.ctx, cost: w.cost, max: w.max, dflt: true}
		dw.walk(p.def, p, nil, false)
		dw.flush(nil)
		p.defViol, p.defOmit, p.defErr = dw.out, dw.omitted, dw.err
	})
	if p.defErr != nil {
		if w.err == nil {
			w.err = p.defErr
		}
		return
	}
	for _, v := range p.defViol {
		if w.full() {
			continue
		}
		v.Path = append(clonePath(path), v.Path...)
		w.out = append(w.out, v)
	}
	w.omitted += p.defOmit
}

// embedded checks what the API server requires of an embedded resource:
// an apiVersion and a kind.
func (w *walker) embedded(x map[string]any, path []string) {
	for _, k := range []string{"apiVersion", "kind"} {
		v, ok := x[k]
		if !ok {
			w.add(join(path, k), KindRequired, "required", "missing", "required: an embedded resource needs "+k)
			continue
		}
		s, ok := v.(string)
		switch {
		case !ok:
			w.add(join(path, k), KindType, "string", jsonType(v), "must be a string")
		case s == "":
			w.add(join(path, k), KindInvalid, "non-empty", `""`, "must not be empty")
		case k == "apiVersion":
			if _, err := schema.ParseGroupVersion(s); err != nil {
				w.add(join(path, k), KindInvalid, "group/version", quoteValue(s), bounded(err.Error()))
			}
		case k == "kind":
			if errs := validation.IsDNS1035Label(strings.ToLower(s)); len(errs) > 0 {
				w.add(join(path, k), KindInvalid, "DNS-1035 label, any case", quoteValue(s), bounded(strings.Join(errs, ", ")))
			}
		}
	}
}

// listType checks the uniqueness x-kubernetes-list-type asks of a list.
func (w *walker) listType(l []any, n *node, path []string) {
	switch n.listType {
	case "set":
		seen := make(map[string]bool, len(l))
		reported := map[string]bool{}
		for i, e := range l {
			k := canonical(e)
			if seen[k] && !reported[k] {
				reported[k] = true
				w.add(join(path, strconv.Itoa(i)), KindDuplicate, "unique items (list-type set)", bounded(k), "duplicate value in a list-type set")
			}
			seen[k] = true
		}
	case "map":
		for i, e := range l {
			if _, ok := e.(map[string]any); e != nil && !ok {
				w.add(join(path, strconv.Itoa(i)), KindInvalid, "object", jsonType(e), "must be an object for an array of list-type map")
				return
			}
		}
		seen := make(map[string]bool, len(l))
		reported := map[string]bool{}
		var keySet map[string]bool
		for i, e := range l {
			m, _ := e.(map[string]any)
			key := make(map[string]any, min(len(m), len(n.mapKeys)))
			if len(m) < len(n.mapKeys) {
				// Look the item's fields up among the keys, not each key in
				// the item: the cost is the smaller of the two.
				if keySet == nil {
					keySet = make(map[string]bool, len(n.mapKeys))
					for _, f := range n.mapKeys {
						keySet[f] = true
					}
				}
				for f, v := range m {
					if keySet[f] {
						key[f] = v
					}
				}
			} else {
				for _, f := range n.mapKeys {
					if v, ok := m[f]; ok {
						key[f] = v
					}
				}
			}
			if !w.charge(1+len(key), path) {
				return
			}
			k := canonical(key)
			if seen[k] && !reported[k] {
				reported[k] = true
				w.add(join(path, strconv.Itoa(i)), KindDuplicate, bounded("unique keys "+strings.Join(n.mapKeys, ","))+" (list-type map)", bounded(k), "duplicate entry in a list-type map")
			}
			seen[k] = true
		}
	}
}

// canonical is a value's JSON form (maps with sorted keys).
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case int, int32, int64, uint, uint32, uint64:
		return "integer"
	case float32:
		return "number"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

const maxValueLen = 80

// bounded shortens s for a message.
func bounded(s string) string {
	if len(s) <= maxValueLen {
		return s
	}
	cut := maxValueLen
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// quoteValue quotes and shortens a string value for a message.
func quoteValue(s string) string { return strconv.Quote(bounded(s)) }
