package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/parser"
)

// pipelineFix returns the fix of XP410: the Composition's spec rewritten
// in mode Pipeline, its resources, patch sets and environment patches moved
// into one function-patch-and-transform step, as crossplane beta convert
// pipeline-composition did (crossplane CLI before v2,
// cmd/crossplane/beta/convert/pipelinecomposition, convertPnTToPipeline):
// patches get their default type, mergeOptions become a toFieldPath
// policy, transforms and connection details get their now required types,
// and unnamed resources are named resource-N. The spec is written anew
// (keys sorted, its comments dropped); the rest of the document and of the
// file is kept as written. nil when the spec cannot be located or decoded.
func pipelineFix(p *linter.Pass, o *parser.Object) *linter.SuggestedFix {
	if p.AtCap() {
		return nil // the diagnostic is only counted
	}
	u, err := o.Unstructured()
	if err != nil {
		return nil
	}
	spec, ok := u.Object["spec"].(map[string]any)
	if !ok {
		return nil
	}
	spec = convertToPipeline(spec)
	out, err := yaml.Marshal(spec)
	if err != nil {
		return nil
	}
	raw := o.Raw()
	base := o.RawOffset()
	loc, err := o.FieldLocator() // one parse for every key's position
	if err != nil {
		return nil
	}
	pos, err := loc.FieldPosition("spec")
	if raw == nil || err != nil || pos.Column != 1 || pos.Offset < base || pos.Offset-base >= int64(len(raw)) {
		return nil
	}
	// The spec block ends at the next top-level key, or the document's end.
	end := base + int64(len(raw))
	for k := range o.Outline() {
		if k == "spec" {
			continue
		}
		if kp, err := loc.FieldPosition(k); err == nil && kp.Column == 1 && kp.Offset > pos.Offset && kp.Offset < end {
			end = kp.Offset
		}
	}
	var b strings.Builder
	b.WriteString("spec:\n")
	for _, line := range strings.SplitAfter(strings.TrimSuffix(string(out), "\n"), "\n") {
		b.WriteString("  ")
		b.WriteString(line)
	}
	b.WriteString("\n")
	return &linter.SuggestedFix{
		Message:   "convert to a function-patch-and-transform pipeline",
		TextEdits: []linter.TextEdit{{File: o.Pos.File, Offset: pos.Offset, End: end, NewText: b.String()}},
	}
}

// convertToPipeline converts a Resources-mode Composition spec.
func convertToPipeline(spec map[string]any) map[string]any {
	out := make(map[string]any, len(spec)+1)
	for k, v := range spec {
		out[k] = v
	}
	input := map[string]any{"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources"}
	if env, ok := out["environment"].(map[string]any); ok {
		if patches, ok := env["patches"].([]any); ok {
			input["environment"] = map[string]any{"patches": migratePatches(patches)}
		}
		rest := map[string]any{}
		for k, v := range env {
			if k != "patches" {
				rest[k] = v
			}
		}
		if len(rest) == 0 {
			delete(out, "environment")
		} else {
			out["environment"] = rest
		}
	}
	if sets, ok := out["patchSets"].([]any); ok {
		var ps []any
		for _, s := range sets {
			if sm, ok := s.(map[string]any); ok {
				sm = clone(sm)
				if patches, ok := sm["patches"].([]any); ok {
					sm["patches"] = migratePatches(patches)
				}
				ps = append(ps, sm)
			} else {
				ps = append(ps, s)
			}
		}
		input["patchSets"] = ps
		delete(out, "patchSets")
	}
	if res, ok := out["resources"].([]any); ok {
		var rs []any
		for i, r := range res {
			rm, ok := r.(map[string]any)
			if !ok {
				rs = append(rs, r)
				continue
			}
			rm = clone(rm)
			if _, ok := rm["name"]; !ok {
				rm["name"] = fmt.Sprintf("resource-%d", i)
			}
			if cds, ok := rm["connectionDetails"].([]any); ok {
				rm["connectionDetails"] = migrateConnectionDetails(cds)
			}
			if patches, ok := rm["patches"].([]any); ok {
				rm["patches"] = migratePatches(patches)
			}
			rs = append(rs, rm)
		}
		input["resources"] = rs
	}
	delete(out, "resources")
	out["mode"] = "Pipeline"
	out["pipeline"] = []any{map[string]any{
		"step":        "patch-and-transform",
		"functionRef": map[string]any{"name": "function-patch-and-transform"},
		"input":       input,
	}}
	return out
}

func clone(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// migratePatches gives each patch its default type, its mergeOptions as a
// toFieldPath policy, and its transforms their required types.
func migratePatches(patches []any) []any {
	out := make([]any, 0, len(patches))
	for _, p := range patches {
		pm, ok := p.(map[string]any)
		if !ok {
			out = append(out, p)
			continue
		}
		pm = clone(pm)
		if _, ok := pm["type"]; !ok {
			pm["type"] = "FromCompositeFieldPath"
		}
		if pol, ok := pm["policy"].(map[string]any); ok {
			pol = clone(pol)
			if mo, ok := pol["mergeOptions"].(map[string]any); ok {
				keep, _ := mo["keepMapValues"].(bool)
				appendSlice, _ := mo["appendSlice"].(bool)
				switch {
				case keep && !appendSlice:
					pol["toFieldPath"] = "MergeObjects"
				case keep:
					pol["toFieldPath"] = "MergeObjectsAppendArrays"
				case appendSlice:
					pol["toFieldPath"] = "ForceMergeObjectsAppendArrays"
				default:
					pol["toFieldPath"] = "ForceMergeObjects"
				}
			}
			delete(pol, "mergeOptions")
			pm["policy"] = pol
		}
		if ts, ok := pm["transforms"].([]any); ok {
			pm["transforms"] = migrateTransforms(ts)
		}
		out = append(out, pm)
	}
	return out
}

// migrateTransforms sets the transform and math/string types the function
// requires and the built-in engine inferred.
func migrateTransforms(ts []any) []any {
	out := make([]any, 0, len(ts))
	for _, t := range ts {
		tm, ok := t.(map[string]any)
		if !ok {
			out = append(out, t)
			continue
		}
		tm = clone(tm)
		if _, ok := tm["type"]; !ok {
			if _, ok := tm["math"]; ok {
				tm["type"] = "math"
			}
			if _, ok := tm["string"]; ok {
				tm["type"] = "string"
			}
		}
		if m, ok := tm["math"].(map[string]any); ok && tm["type"] == "math" {
			if _, ok := m["type"]; !ok {
				m = clone(m)
				for _, k := range []string{"clampMin", "clampMax", "multiply"} {
					if _, ok := m[k]; ok {
						m["type"] = strings.ToUpper(k[:1]) + k[1:]
						break
					}
				}
				tm["math"] = m
			}
		}
		if s, ok := tm["string"].(map[string]any); ok && tm["type"] == "string" {
			if _, ok := s["type"]; !ok {
				s = clone(s)
				for _, k := range []string{"fmt", "convert", "regexp"} {
					if _, ok := s[k]; ok {
						s["type"] = map[string]string{"fmt": "Format", "convert": "Convert", "regexp": "Regexp"}[k]
						break
					}
				}
				tm["string"] = s
			}
		}
		out = append(out, tm)
	}
	return out
}

// migrateConnectionDetails sets the type every connection detail now
// requires, and the name of one read from a connection secret key.
func migrateConnectionDetails(cds []any) []any {
	out := make([]any, 0, len(cds))
	for _, c := range cds {
		cm, ok := c.(map[string]any)
		if !ok {
			out = append(out, c)
			continue
		}
		cm = clone(cm)
		if _, ok := cm["type"]; !ok {
			switch {
			case cm["value"] != nil:
				cm["type"] = "FromValue"
			case cm["fromFieldPath"] != nil:
				cm["type"] = "FromFieldPath"
			case cm["fromConnectionSecretKey"] != nil:
				cm["type"] = "FromConnectionSecretKey"
			}
		}
		if _, ok := cm["name"]; !ok && cm["type"] == "FromConnectionSecretKey" {
			cm["name"] = cm["fromConnectionSecretKey"]
		}
		out = append(out, cm)
	}
	return out
}

// pntPackage is the package of function-patch-and-transform that the
// pipeline of XP410's fix calls, and pntVersion the constraint the fix
// gives it (the first release with the typed patches the conversion
// writes).
const (
	pntPackage = "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform"
	pntVersion = ">=v0.8.0"
)

// pntDependency says whether the package needs function-patch-and-transform
// added to its meta object's spec.dependsOn for XP410's fix to give a
// package that works: needed is false when a dependency already names it
// (any registry, any version). When it is needed, fix adds it (a
// one-file fix of the meta file); fix is nil when the meta file cannot be
// edited so (no meta object, a dependsOn in flow style, an empty spec).
func pntDependency(p *linter.Pass) (meta *parser.Object, needed bool, fix *linter.SuggestedFix) {
	o, deps, err := dependencies(p)
	if o == nil || err != nil {
		return o, true, nil
	}
	for _, d := range deps {
		if _, ref, ok := d.refKey(); ok && isPnT(ref) {
			return o, false, nil
		}
	}
	edit, ok := pntDependencyEdit(o, len(deps))
	if !ok {
		return o, true, nil
	}
	return o, true, &linter.SuggestedFix{
		Message:   "add function-patch-and-transform to spec.dependsOn",
		TextEdits: []linter.TextEdit{edit},
	}
}

// isPnT reports whether a dependency's package reference names
// function-patch-and-transform.
func isPnT(ref string) bool {
	if i := strings.IndexAny(ref, "@"); i >= 0 {
		ref = ref[:i]
	}
	name := ref[strings.LastIndexByte(ref, '/')+1:]
	name, _, _ = strings.Cut(name, ":")
	return name == "function-patch-and-transform"
}

// pntDependencyEdit returns the insertion of a function-patch-and-transform
// entry into the meta object o's spec.dependsOn, which holds n entries: before
// the first entry of a block sequence, as a new dependsOn key before spec's
// first key, or as a new spec at the document's end.
func pntDependencyEdit(o *parser.Object, n int) (linter.TextEdit, bool) {
	raw, base := o.Raw(), o.RawOffset()
	loc, err := o.FieldLocator()
	if raw == nil || err != nil {
		return linter.TextEdit{}, false
	}
	entry := func(indent string) string {
		return indent + "- apiVersion: pkg.crossplane.io/v1\n" +
			indent + "  kind: Function\n" +
			indent + "  package: " + pntPackage + "\n" +
			indent + "  version: \"" + pntVersion + "\"\n"
	}
	// lineStart returns the offset of pos's line, and the text before pos
	// on it.
	lineStart := func(pos parser.Position) (int64, string, bool) {
		start := pos.Offset - int64(pos.Column-1)
		if pos.Column < 1 || start < base || pos.Offset > base+int64(len(raw)) {
			return 0, "", false
		}
		return start, string(raw[start-base : pos.Offset-base]), true
	}
	at := func(off int64, text string) (linter.TextEdit, bool) {
		return linter.TextEdit{File: o.Pos.File, Offset: off, End: off, NewText: text}, true
	}
	m := outline(o)
	specV, hasSpec := lookup(m, "spec")
	spec, _ := specV.(map[string]any)
	switch {
	case n > 0:
		pos, err := loc.FieldPosition("spec", "dependsOn", "0")
		if err != nil {
			return linter.TextEdit{}, false
		}
		start, prefix, ok := lineStart(pos)
		indent := strings.TrimLeft(prefix, " ")
		if !ok || !strings.HasPrefix(indent, "- ") || strings.TrimSpace(indent) != "-" {
			return linter.TextEdit{}, false // flow style, or an entry that does not start its line
		}
		return at(start, entry(prefix[:len(prefix)-len(indent)]))
	case hasSpec:
		if _, ok := lookup(m, "spec", "dependsOn"); ok {
			return linter.TextEdit{}, false // dependsOn: [] or null: rewrite it by hand
		}
		first := int64(-1)
		var firstPos parser.Position
		for k := range spec {
			kp, err := loc.FieldPosition("spec", k)
			if err == nil && (first < 0 || kp.Offset < first) {
				first, firstPos = kp.Offset, kp
			}
		}
		if first < 0 {
			return linter.TextEdit{}, false
		}
		start, prefix, ok := lineStart(firstPos)
		if !ok || strings.Trim(prefix, " ") != "" || prefix == "" {
			return linter.TextEdit{}, false // spec in flow style
		}
		return at(start, prefix+"dependsOn:\n"+entry(prefix))
	}
	if len(raw) == 0 || raw[len(raw)-1] != '\n' {
		return linter.TextEdit{}, false
	}
	return at(base+int64(len(raw)), "spec:\n  dependsOn:\n"+entry("  "))
}
