package lintcmd

// A small JSON Schema (draft-04) validator, enough for the SARIF 2.1.0
// schema: it checks the SARIF output of xpkg-lint in TestSARIFSchema. It
// refuses schemas that use a keyword it does not implement, so that a
// keyword cannot be skipped silently.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// schemaValidator validates JSON documents against one draft-04 schema.
type schemaValidator struct {
	root map[string]any
	mu   sync.Mutex
	res  map[string]*regexp.Regexp
}

// annotationKeywords are the keywords that do not constrain an instance.
var annotationKeywords = map[string]bool{
	"$schema": true, "id": true, "title": true, "description": true, "default": true, "definitions": true,
}

// validationKeywords are the keywords the validator implements.
var validationKeywords = map[string]bool{
	"$ref": true, "type": true, "enum": true,
	"properties": true, "additionalProperties": true, "patternProperties": true, "required": true,
	"minProperties": true, "maxProperties": true,
	"items": true, "additionalItems": true, "minItems": true, "maxItems": true, "uniqueItems": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "pattern": true, "format": true,
	"allOf": true, "anyOf": true, "oneOf": true, "not": true,
}

// newSchemaValidator parses a schema and checks that every keyword in it
// is implemented.
func newSchemaValidator(schema []byte) (*schemaValidator, error) {
	v, err := decodeJSON(schema)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema: not an object")
	}
	if s, _ := root["$schema"].(string); s != "" && !strings.Contains(s, "draft-04") {
		return nil, fmt.Errorf("schema: %s is not draft-04", s)
	}
	sv := &schemaValidator{root: root, res: map[string]*regexp.Regexp{}}
	if err := sv.checkKeywords(root, "#"); err != nil {
		return nil, err
	}
	return sv, nil
}

// checkKeywords walks a schema and fails on unknown keywords, bad
// patterns and unresolvable references.
func (sv *schemaValidator) checkKeywords(s map[string]any, path string) error {
	for k, v := range s {
		switch {
		case annotationKeywords[k]:
			if k == "definitions" {
				defs, ok := v.(map[string]any)
				if !ok {
					return fmt.Errorf("%s/definitions: not an object", path)
				}
				for name, d := range defs {
					if err := sv.checkSub(d, path+"/definitions/"+name); err != nil {
						return err
					}
				}
			}
		case !validationKeywords[k]:
			return fmt.Errorf("%s: keyword %q is not implemented", path, k)
		}
	}
	if ref, ok := s["$ref"].(string); ok {
		if _, err := sv.resolve(ref); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if p, ok := s["pattern"].(string); ok {
		if _, err := sv.regexp(p); err != nil {
			return fmt.Errorf("%s/pattern: %w", path, err)
		}
	}
	for _, k := range []string{"properties", "patternProperties"} {
		if m, ok := s[k].(map[string]any); ok {
			for name, sub := range m {
				if k == "patternProperties" {
					if _, err := sv.regexp(name); err != nil {
						return fmt.Errorf("%s/%s: %w", path, k, err)
					}
				}
				if err := sv.checkSub(sub, path+"/"+k+"/"+name); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range []string{"additionalProperties", "additionalItems", "not"} {
		if sub, ok := s[k].(map[string]any); ok {
			if err := sv.checkKeywords(sub, path+"/"+k); err != nil {
				return err
			}
		}
	}
	switch items := s["items"].(type) {
	case map[string]any:
		if err := sv.checkKeywords(items, path+"/items"); err != nil {
			return err
		}
	case []any:
		for i, sub := range items {
			if err := sv.checkSub(sub, fmt.Sprintf("%s/items/%d", path, i)); err != nil {
				return err
			}
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if subs, ok := s[k].([]any); ok {
			for i, sub := range subs {
				if err := sv.checkSub(sub, fmt.Sprintf("%s/%s/%d", path, k, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (sv *schemaValidator) checkSub(v any, path string) error {
	s, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: schema is not an object", path)
	}
	return sv.checkKeywords(s, path)
}

// resolve resolves a reference of the form #/definitions/name (or "#").
func (sv *schemaValidator) resolve(ref string) (map[string]any, error) {
	if ref == "#" {
		return sv.root, nil
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("$ref %q: only references inside the schema are supported", ref)
	}
	var cur any = sv.root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
	}
	s, ok := cur.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("$ref %q is not a schema", ref)
	}
	return s, nil
}

func (sv *schemaValidator) regexp(p string) (*regexp.Regexp, error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if re, ok := sv.res[p]; ok {
		return re, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	sv.res[p] = re
	return re, nil
}

// validate returns every violation of the schema by doc, each as
// "pointer: what".
func (sv *schemaValidator) validate(doc []byte) ([]string, error) {
	inst, err := decodeJSON(doc)
	if err != nil {
		return nil, err
	}
	var errs []string
	sv.check(sv.root, inst, "", &errs)
	return errs, nil
}

// check validates inst (at JSON pointer ptr) against schema s, appending
// violations to errs.
func (sv *schemaValidator) check(s map[string]any, inst any, ptr string, errs *[]string) {
	fail := func(format string, args ...any) {
		where := ptr
		if where == "" {
			where = "/"
		}
		*errs = append(*errs, where+": "+fmt.Sprintf(format, args...))
	}
	if ref, ok := s["$ref"].(string); ok {
		// Draft-04: a $ref replaces the rest of the schema.
		target, err := sv.resolve(ref)
		if err != nil {
			fail("%v", err)
			return
		}
		sv.check(target, inst, ptr, errs)
		return
	}
	if t, ok := s["type"]; ok {
		var types []string
		switch t := t.(type) {
		case string:
			types = []string{t}
		case []any:
			for _, x := range t {
				if x, ok := x.(string); ok {
					types = append(types, x)
				}
			}
		}
		if !slices.ContainsFunc(types, func(want string) bool { return hasType(inst, want) }) {
			fail("type %s, want %s", typeOf(inst), strings.Join(types, " or "))
			return
		}
	}
	if enum, ok := s["enum"].([]any); ok {
		if !slices.ContainsFunc(enum, func(e any) bool { return jsonEqual(e, inst) }) {
			fail("value %s is not one of the enum %s", compact(inst), compact(enum))
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		subs, ok := s[k].([]any)
		if !ok {
			continue
		}
		pass := 0
		var subErrs []string
		for _, sub := range subs {
			var e []string
			sv.check(sub.(map[string]any), inst, ptr, &e)
			if len(e) == 0 {
				pass++
			}
			subErrs = append(subErrs, e...)
		}
		switch {
		case k == "allOf" && pass != len(subs):
			fail("allOf: %s", strings.Join(subErrs, "; "))
		case k == "anyOf" && pass == 0:
			fail("anyOf: no schema matches (%s)", strings.Join(subErrs, "; "))
		case k == "oneOf" && pass != 1:
			fail("oneOf: %d schemas match, want exactly 1", pass)
		}
	}
	if not, ok := s["not"].(map[string]any); ok {
		var e []string
		sv.check(not, inst, ptr, &e)
		if len(e) == 0 {
			fail("matches the schema of not")
		}
	}
	switch v := inst.(type) {
	case map[string]any:
		sv.checkObject(s, v, ptr, errs, fail)
	case []any:
		sv.checkArray(s, v, ptr, errs, fail)
	case string:
		sv.checkString(s, v, fail)
	case json.Number:
		checkNumber(s, v, fail)
	}
}

func (sv *schemaValidator) checkObject(s map[string]any, obj map[string]any, ptr string, errs *[]string, fail func(string, ...any)) {
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, _ := r.(string); name != "" {
				if _, ok := obj[name]; !ok {
					fail("required property %q is missing", name)
				}
			}
		}
	}
	if n, ok := intKeyword(s, "minProperties"); ok && len(obj) < n {
		fail("%d properties, want at least %d", len(obj), n)
	}
	if n, ok := intKeyword(s, "maxProperties"); ok && len(obj) > n {
		fail("%d properties, want at most %d", len(obj), n)
	}
	props, _ := s["properties"].(map[string]any)
	patterns, _ := s["patternProperties"].(map[string]any)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		child := ptr + "/" + escapePointer(k)
		matched := false
		if sub, ok := props[k].(map[string]any); ok {
			matched = true
			sv.check(sub, obj[k], child, errs)
		}
		for p, sub := range patterns {
			if re, err := sv.regexp(p); err == nil && re.MatchString(k) {
				matched = true
				sv.check(sub.(map[string]any), obj[k], child, errs)
			}
		}
		if matched {
			continue
		}
		switch ap := s["additionalProperties"].(type) {
		case bool:
			if !ap {
				fail("property %q is not allowed", k)
			}
		case map[string]any:
			sv.check(ap, obj[k], child, errs)
		}
	}
}

func (sv *schemaValidator) checkArray(s map[string]any, arr []any, ptr string, errs *[]string, fail func(string, ...any)) {
	if n, ok := intKeyword(s, "minItems"); ok && len(arr) < n {
		fail("%d items, want at least %d", len(arr), n)
	}
	if n, ok := intKeyword(s, "maxItems"); ok && len(arr) > n {
		fail("%d items, want at most %d", len(arr), n)
	}
	if u, _ := s["uniqueItems"].(bool); u {
		for i := range arr {
			for j := i + 1; j < len(arr); j++ {
				if jsonEqual(arr[i], arr[j]) {
					fail("items %d and %d are equal, want unique items", i, j)
				}
			}
		}
	}
	switch items := s["items"].(type) {
	case map[string]any:
		for i, it := range arr {
			sv.check(items, it, ptr+"/"+strconv.Itoa(i), errs)
		}
	case []any:
		for i, it := range arr {
			if i < len(items) {
				sv.check(items[i].(map[string]any), it, ptr+"/"+strconv.Itoa(i), errs)
				continue
			}
			switch ai := s["additionalItems"].(type) {
			case bool:
				if !ai {
					fail("item %d is not allowed", i)
				}
			case map[string]any:
				sv.check(ai, it, ptr+"/"+strconv.Itoa(i), errs)
			}
		}
	}
}

func (sv *schemaValidator) checkString(s map[string]any, str string, fail func(string, ...any)) {
	n := utf8.RuneCountInString(str)
	if m, ok := intKeyword(s, "minLength"); ok && n < m {
		fail("string of %d characters, want at least %d", n, m)
	}
	if m, ok := intKeyword(s, "maxLength"); ok && n > m {
		fail("string of %d characters, want at most %d", n, m)
	}
	if p, ok := s["pattern"].(string); ok {
		if re, err := sv.regexp(p); err == nil && !re.MatchString(str) {
			fail("%q does not match the pattern %q", str, p)
		}
	}
	if f, ok := s["format"].(string); ok {
		if err := checkFormat(f, str); err != nil {
			fail("%q is not a valid %s: %v", str, f, err)
		}
	}
}

// checkFormat checks the formats the SARIF schema uses, lightly.
func checkFormat(format, s string) error {
	switch format {
	case "uri":
		u, err := url.Parse(s)
		if err != nil {
			return err
		}
		if u.Scheme == "" {
			return fmt.Errorf("no scheme: not an absolute URI")
		}
	case "uri-reference":
		if strings.ContainsAny(s, " \t\n\\") {
			return fmt.Errorf("holds white space or a backslash")
		}
		_, err := url.Parse(s)
		return err
	case "date-time":
		_, err := time.Parse(time.RFC3339Nano, s)
		return err
	}
	return nil // other formats are annotations
}

func checkNumber(s map[string]any, n json.Number, fail func(string, ...any)) {
	v, ok := new(big.Rat).SetString(n.String())
	if !ok {
		fail("%s is not a number", n)
		return
	}
	if m, ok := ratKeyword(s, "minimum"); ok {
		excl, _ := s["exclusiveMinimum"].(bool)
		if c := v.Cmp(m); c < 0 || (excl && c == 0) {
			fail("%s is below the minimum %s", n, m.RatString())
		}
	}
	if m, ok := ratKeyword(s, "maximum"); ok {
		excl, _ := s["exclusiveMaximum"].(bool)
		if c := v.Cmp(m); c > 0 || (excl && c == 0) {
			fail("%s is above the maximum %s", n, m.RatString())
		}
	}
	if m, ok := ratKeyword(s, "multipleOf"); ok && m.Sign() > 0 {
		if !new(big.Rat).Quo(v, m).IsInt() {
			fail("%s is not a multiple of %s", n, m.RatString())
		}
	}
}

func ratKeyword(s map[string]any, k string) (*big.Rat, bool) {
	n, ok := s[k].(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(n.String())
}

func intKeyword(s map[string]any, k string) (int, bool) {
	n, ok := s[k].(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return int(i), err == nil
}

// hasType reports whether v is of the JSON Schema type t.
func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		r, ok := new(big.Rat).SetString(n.String())
		return ok && r.IsInt()
	}
	return false
}

func typeOf(v any) string {
	for _, t := range []string{"object", "array", "string", "boolean", "null", "integer", "number"} {
		if hasType(v, t) {
			return t
		}
	}
	return fmt.Sprintf("%T", v)
}

// jsonEqual compares two decoded JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		ra, oka := new(big.Rat).SetString(a.String())
		rb, okb := new(big.Rat).SetString(b.String())
		return oka && okb && ra.Cmp(rb) == 0
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// decodeJSON decodes one JSON value, keeping numbers exact.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}
