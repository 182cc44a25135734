package apidiff

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
)

// schemaDiff compares the schemas of one version of two definitions.
type schemaDiff struct {
	d       *differ
	o, n    *definition
	version string
}

func (s *schemaDiff) add(k Kind, class Class, data, oldAt, newAt []string, format string, args ...any) {
	path := dataPath(data)
	where := path
	if where == "" {
		where = "the root"
	}
	prefix := fmt.Sprintf("%s version %s: %s: ", s.n.what(), safetext.Token(s.version), where)
	s.d.add(k, class, s.n, s.o, s.version, path, oldAt, newAt, "%s", prefix+fmt.Sprintf(format, args...))
}

func join(p []string, e ...string) []string {
	return append(p[:len(p):len(p)], e...)
}

func str(m map[string]any, k string) string {
	v, _ := m[k].(string)
	return v
}

// typeOf returns a node's type, "int-or-string" for
// x-kubernetes-int-or-string, "" when the node takes any type.
func typeOf(m map[string]any) string {
	if b, _ := m["x-kubernetes-int-or-string"].(bool); b {
		return "int-or-string"
	}
	return str(m, "type")
}

// node compares the old and new schema nodes at data path p (oldAt and
// newAt are their field paths in the objects), and descends into the
// properties, items and additionalProperties both hold. Each node of
// either schema is visited at most once.
func (s *schemaDiff) node(o, n map[string]any, p, oldAt, newAt []string, depth int) error {
	s.d.nodes++
	if err := s.d.ctx.Err(); err != nil {
		return err
	}
	if depth > maxDepth {
		return nil
	}
	ot, nt := typeOf(o), typeOf(n)
	if ot != nt {
		switch {
		case ot == "":
			s.add(TypeChanged, Breaking, p, oldAt, join(newAt, "type"), "the type changed from any to %s", safetext.Token(nt))
			return nil
		case nt == "", ot == "integer" && nt == "number", nt == "int-or-string" && (ot == "integer" || ot == "string"):
			s.add(TypeChanged, Compatible, p, join(oldAt, "type"), join(newAt, "type"), "the type widened from %s to %s", safetext.Token(ot), quoteOr(nt, "any"))
		default:
			s.add(TypeChanged, Breaking, p, join(oldAt, "type"), join(newAt, "type"), "the type changed from %s to %s", safetext.Token(ot), safetext.Token(nt))
			return nil
		}
	}
	s.enum(o, n, p, oldAt, newAt)
	s.limits(o, n, p, oldAt, newAt)
	s.strings(o, n, p, oldAt, newAt)
	s.lists(o, n, p, oldAt, newAt)
	s.validations(o, n, p, oldAt, newAt)
	if err := s.properties(o, n, p, oldAt, newAt, depth); err != nil {
		return err
	}
	if oi, ok := o["items"].(map[string]any); ok {
		if ni, ok := n["items"].(map[string]any); ok {
			if err := s.node(oi, ni, join(p, "[*]"), join(oldAt, "items"), join(newAt, "items"), depth+1); err != nil {
				return err
			}
		}
	}
	if oa, ok := o["additionalProperties"].(map[string]any); ok {
		if na, ok := n["additionalProperties"].(map[string]any); ok {
			if err := s.node(oa, na, join(p, "*"), join(oldAt, "additionalProperties"), join(newAt, "additionalProperties"), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// canonical is a value's JSON form, maps with sorted keys.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func (s *schemaDiff) enum(o, n map[string]any, p, oldAt, newAt []string) {
	oe, oOK := o["enum"].([]any)
	ne, nOK := n["enum"].([]any)
	switch {
	case !oOK && !nOK:
		return
	case !nOK:
		s.add(EnumWidened, Compatible, p, join(oldAt, "enum"), newAt, "the enum was removed: any value is allowed")
		return
	case !oOK:
		s.add(EnumNarrowed, Breaking, p, oldAt, join(newAt, "enum"), "an enum was added: values outside %s are refused", values(ne))
		return
	}
	newSet := make(map[string]bool, len(ne))
	for _, v := range ne {
		newSet[canonical(v)] = true
	}
	oldSet := make(map[string]bool, len(oe))
	var removed []any
	for _, v := range oe {
		k := canonical(v)
		oldSet[k] = true
		if !newSet[k] {
			removed = append(removed, v)
		}
	}
	var added []any
	for _, v := range ne {
		if !oldSet[canonical(v)] {
			added = append(added, v)
		}
	}
	if len(removed) > 0 {
		s.add(EnumNarrowed, Breaking, p, join(oldAt, "enum"), join(newAt, "enum"), "the enum no longer allows %s", values(removed))
	}
	if len(added) > 0 {
		s.add(EnumWidened, Compatible, p, join(oldAt, "enum"), join(newAt, "enum"), "the enum now allows %s", values(added))
	}
}

// valueText formats a value for a message: a scalar as it is, a list or
// an object as JSON.
func valueText(v any) string {
	switch v.(type) {
	case map[string]any, []any:
		return safetext.Quote(canonical(v))
	}
	return safetext.Quote(v)
}

// values lists at most 5 values for a message.
func values(vs []any) string {
	const most = 5
	out := ""
	for i, v := range vs {
		if i == most {
			out += fmt.Sprintf(" and %d more", len(vs)-most)
			break
		}
		if i > 0 {
			out += ", "
		}
		out += safetext.Quote(v)
	}
	return out
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// limits compares the numeric limits: a lower bound raised or added, or an
// upper bound lowered or added, tightens; the reverse relaxes.
func (s *schemaDiff) limits(o, n map[string]any, p, oldAt, newAt []string) {
	for _, l := range []struct {
		key   string
		lower bool
	}{
		{"minimum", true}, {"maximum", false},
		{"minLength", true}, {"maxLength", false},
		{"minItems", true}, {"maxItems", false},
		{"minProperties", true}, {"maxProperties", false},
	} {
		ov, oOK := number(o[l.key])
		nv, nOK := number(n[l.key])
		switch {
		case !oOK && !nOK, oOK && nOK && ov == nv:
		case !oOK:
			s.add(LimitTightened, Breaking, p, oldAt, join(newAt, l.key), "%s %s was added", l.key, fmtNum(nv))
		case !nOK:
			s.add(LimitRelaxed, Compatible, p, join(oldAt, l.key), newAt, "%s %s was removed", l.key, fmtNum(ov))
		case l.lower == (nv > ov):
			s.add(LimitTightened, Breaking, p, join(oldAt, l.key), join(newAt, l.key), "%s tightened from %s to %s", l.key, fmtNum(ov), fmtNum(nv))
		default:
			s.add(LimitRelaxed, Compatible, p, join(oldAt, l.key), join(newAt, l.key), "%s relaxed from %s to %s", l.key, fmtNum(ov), fmtNum(nv))
		}
	}
	for _, key := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
		ob, _ := o[key].(bool)
		nb, _ := n[key].(bool)
		switch {
		case !ob && nb:
			s.add(LimitTightened, Breaking, p, oldAt, join(newAt, key), "%s was set: the bound itself is refused", key)
		case ob && !nb:
			s.add(LimitRelaxed, Compatible, p, join(oldAt, key), newAt, "%s was unset", key)
		}
	}
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// strings compares pattern, format, default and nullable.
func (s *schemaDiff) strings(o, n map[string]any, p, oldAt, newAt []string) {
	op, np := str(o, "pattern"), str(n, "pattern")
	switch {
	case op == np:
	case np == "":
		s.add(LimitRelaxed, Compatible, p, join(oldAt, "pattern"), newAt, "the pattern %s was removed", safetext.Quote(op))
	case op == "":
		s.add(PatternChanged, MayBreak, p, oldAt, join(newAt, "pattern"), "the pattern %s was added: may break existing values that do not match it", safetext.Quote(np))
	default:
		s.add(PatternChanged, MayBreak, p, join(oldAt, "pattern"), join(newAt, "pattern"), "the pattern changed from %s to %s: may break existing values", safetext.Quote(op), safetext.Quote(np))
	}
	of, nf := str(o, "format"), str(n, "format")
	switch t := typeOf(n); {
	case of == nf:
	case t == "integer" || t == "number":
		// int32, int64, float, double: the API server checks formats of
		// strings only (k8s.io/kube-openapi pkg/validation/validate,
		// formatValidator.Applies: kind == reflect.String), and
		// controller-gen adds and changes number formats freely.
	case nf == "":
		s.add(LimitRelaxed, Compatible, p, join(oldAt, "format"), newAt, "the format %s was removed", safetext.Quote(of))
	default:
		s.add(FormatChanged, MayBreak, p, join(oldAt, "format"), join(newAt, "format"), "the format changed from %s to %s: may break existing values", safetext.Quote(of), safetext.Quote(nf))
	}
	od, oOK := o["default"]
	nd, nOK := n["default"]
	if oOK && (!nOK || canonical(od) != canonical(nd)) {
		now := "removed"
		if nOK {
			now = "changed to " + valueText(nd)
		}
		s.add(DefaultChanged, MayBreak, p, join(oldAt, "default"), join(newAt, "default"), "the default %s was %s: objects that leave the field out change meaning", valueText(od), now)
	}
	if ob, _ := o["x-kubernetes-preserve-unknown-fields"].(bool); ob {
		if nb, _ := n["x-kubernetes-preserve-unknown-fields"].(bool); !nb {
			s.add(UnknownFieldsPruned, Breaking, p, join(oldAt, "x-kubernetes-preserve-unknown-fields"), newAt, "x-kubernetes-preserve-unknown-fields was removed: the API server now prunes the fields it kept")
		}
	}
	for _, key := range []string{"oneOf", "anyOf", "allOf", "not"} {
		ov, oOK := o[key]
		nv, nOK := n[key]
		if nOK && (!oOK || canonical(ov) != canonical(nv)) {
			s.add(ConstraintChanged, MayBreak, p, join(oldAt, key), join(newAt, key), "%s was added or changed: may break existing objects", key)
		}
	}
}

// lists compares the list and map types of server-side apply.
func (s *schemaDiff) lists(o, n map[string]any, p, oldAt, newAt []string) {
	for _, key := range []string{"x-kubernetes-list-type", "x-kubernetes-map-type"} {
		ov, nv := str(o, key), str(n, key)
		if ov != nv {
			s.add(ListTypeChanged, Breaking, p, join(oldAt, key), join(newAt, key), "%s changed from %s to %s: server-side apply merges differently, and existing lists may be refused", key, quoteOr(ov, "unset"), quoteOr(nv, "unset"))
		}
	}
	ok, nk := canonical(o["x-kubernetes-list-map-keys"]), canonical(n["x-kubernetes-list-map-keys"])
	if ok != nk {
		s.add(ListTypeChanged, Breaking, p, join(oldAt, "x-kubernetes-list-map-keys"), join(newAt, "x-kubernetes-list-map-keys"), "x-kubernetes-list-map-keys changed from %s to %s", safetext.Quote(ok), safetext.Quote(nk))
	}
}

func quoteOr(s, none string) string {
	if s == "" {
		return none
	}
	return safetext.Quote(s)
}

// validations reports the CEL rules added to a field both schemas hold.
func (s *schemaDiff) validations(o, n map[string]any, p, oldAt, newAt []string) {
	nv, _ := n["x-kubernetes-validations"].([]any)
	if len(nv) == 0 {
		return
	}
	ov, _ := o["x-kubernetes-validations"].([]any)
	old := make(map[string]bool, len(ov))
	for _, r := range ov {
		rm, _ := r.(map[string]any)
		old[str(rm, "rule")] = true
	}
	for i, r := range nv {
		rm, _ := r.(map[string]any)
		if rule := str(rm, "rule"); !old[rule] {
			s.add(ValidationAdded, MayBreak, p, oldAt, join(newAt, "x-kubernetes-validations", strconv.Itoa(i)), "the CEL rule %s was added: may break, existing objects may fail it", safetext.Quote(rule))
		}
	}
}

func requiredSet(m map[string]any) map[string]bool {
	l, _ := m["required"].([]any)
	out := make(map[string]bool, len(l))
	for _, e := range l {
		if k, ok := e.(string); ok {
			out[k] = true
		}
	}
	return out
}

// properties compares the fields of an object schema.
func (s *schemaDiff) properties(o, n map[string]any, p, oldAt, newAt []string, depth int) error {
	op, _ := o["properties"].(map[string]any)
	np, _ := n["properties"].(map[string]any)
	oreq, nreq := requiredSet(o), requiredSet(n)
	keys := make([]string, 0, len(np))
	for k := range np {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var removed, added []string
	oldKeys := make([]string, 0, len(op))
	for k := range op {
		oldKeys = append(oldKeys, k)
	}
	sort.Strings(oldKeys)
	for _, k := range oldKeys {
		if _, ok := np[k]; !ok {
			removed = append(removed, k)
		}
	}
	for _, k := range keys {
		if _, ok := op[k]; !ok {
			added = append(added, k)
		}
	}
	preserve, _ := n["x-kubernetes-preserve-unknown-fields"].(bool)
	for _, k := range removed {
		hint := ""
		if len(removed) == 1 && len(added) == 1 {
			hint = fmt.Sprintf(" (renamed to %s?)", safetext.Quote(added[0]))
		}
		effect := "the API server prunes it from every object"
		if preserve {
			effect = "it is no longer validated"
		}
		s.add(FieldRemoved, Breaking, join(p, k), join(oldAt, "properties", k), join(newAt, "properties"), "the field was removed%s: %s", hint, effect)
	}
	for _, k := range added {
		nm, _ := np[k].(map[string]any)
		_, hasDefault := nm["default"]
		if nreq[k] && !hasDefault {
			s.add(FieldRequired, Breaking, join(p, k), join(oldAt, "properties"), join(newAt, "properties", k), "a new required field without a default: existing objects lack it and are refused")
			continue
		}
		what := "optional"
		if nreq[k] {
			what = "required, with a default"
		}
		s.add(FieldAdded, Compatible, join(p, k), join(oldAt, "properties"), join(newAt, "properties", k), "a new %s field", what)
	}
	for _, k := range keys {
		if nreq[k] && !oreq[k] {
			if _, existed := op[k]; existed {
				s.add(FieldRequired, Breaking, join(p, k), join(oldAt, "required"), join(newAt, "required"), "the field was made required: objects that leave it out are refused")
			}
		}
	}
	for _, k := range keys {
		om, ok1 := op[k].(map[string]any)
		nm, ok2 := np[k].(map[string]any)
		if !ok1 || !ok2 {
			continue
		}
		if err := s.node(om, nm, join(p, k), join(oldAt, "properties", k), join(newAt, "properties", k), depth+1); err != nil {
			return err
		}
	}
	return nil
}
