package linter

import (
	"strings"

	"github.com/xpkgkit/xpkgkit/parser"
)

// SuppressAnnotation is the annotation that silences rules inside a
// package. Its value lists rule IDs or names separated by commas or spaces:
//
//	metadata:
//	  annotations:
//	    lint.xpkgkit.dev/ignore: "XP205, description"
//
// On an object it silences those rules for diagnostics inside that object's
// document; on a meta object, for the whole package. An entry that silences
// nothing is reported by XP004 unused-suppression, unless the rule it names
// did not run (disabled, not for this kind of package, or lacking image
// facts or a target version), when nothing can be told.
const SuppressAnnotation = "lint.xpkgkit.dev/ignore"

// unusedSuppressionID is the ID of the rule the driver itself implements.
const unusedSuppressionID = "XP004"

type suppression struct {
	obj     *parser.Object
	entries []suppressionEntry
	global  bool
}

type suppressionEntry struct {
	text string
	rule *Rule // nil when the entry names no rule of the set
	used bool
}

type docKey struct {
	file string
	doc  int
}

// suppress drops the diagnostics an annotation silences and adds the XP004
// diagnostics of entries that silenced nothing.
func suppress(pkg *parser.Package, all []*Rule, ran map[string]bool, diags []Diagnostic, sh *shared) []Diagnostic {
	var sups []*suppression
	byDoc := map[docKey]*suppression{}
	add := func(o *parser.Object, global bool) {
		v, ok := o.ObjectMeta.Annotations[SuppressAnnotation]
		if !ok {
			return
		}
		s := &suppression{obj: o, global: global}
		for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
			e := suppressionEntry{text: f}
			for _, r := range all {
				if r.Matches(f) {
					e.rule = r
					break
				}
			}
			s.entries = append(s.entries, e)
		}
		sups = append(sups, s)
		if !global {
			byDoc[docKey{o.Pos.File, o.Pos.Document}] = s
		}
	}
	for _, o := range pkg.Meta {
		add(o, true)
	}
	for _, o := range pkg.Objects {
		add(o, false)
	}
	if len(sups) == 0 {
		return diags
	}

	silence := func(d Diagnostic) bool {
		hit := false
		mark := func(s *suppression) {
			for i := range s.entries {
				if e := &s.entries[i]; e.rule != nil && e.rule.ID == d.RuleID {
					e.used, hit = true, true
				}
			}
		}
		for _, s := range sups {
			if s.global {
				mark(s)
			}
		}
		if s := byDoc[docKey{d.Pos.File, d.Pos.Document}]; s != nil && d.Pos.Line > 0 {
			mark(s)
		}
		return hit
	}
	kept := diags[:0]
	for _, d := range diags {
		if !silence(d) {
			kept = append(kept, d)
		}
	}

	var unusedRule *Rule
	for _, r := range all {
		if r.ID == unusedSuppressionID && ran[r.ID] {
			unusedRule = r
		}
	}
	if unusedRule == nil {
		return kept
	}
	var unused []Diagnostic
	for _, s := range sups {
		for _, e := range s.entries {
			if e.used || e.rule != nil && (!ran[e.rule.ID] || e.rule.ID == unusedSuppressionID) {
				continue
			}
			path := []string{"metadata", "annotations", SuppressAnnotation}
			p := &Pass{Rule: unusedRule, shared: sh}
			pos := p.Pos(s.obj, path...)
			msg := "suppression of " + token(e.text) + " silences nothing"
			if e.rule == nil {
				msg = "suppression names " + token(e.text) + ", which is no rule ID or name"
			} else if s.global {
				msg += " in this package"
			} else {
				msg += " in this object"
			}
			unused = append(unused, Diagnostic{
				RuleID: unusedRule.ID, RuleName: unusedRule.Name, Severity: unusedRule.Severity,
				Message: msg, Pos: pos, Field: FieldPath(path...), Object: RefOf(s.obj),
			})
		}
	}
	for _, d := range unused {
		if !silence(d) {
			kept = append(kept, d)
		}
	}
	return kept
}
