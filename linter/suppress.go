package linter

import (
	"context"
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
	// names holds the IDs of the rules the entries name; hit, those that
	// silenced a diagnostic. Sets, so that silencing is constant time per
	// diagnostic however many entries and annotations there are.
	names, hit map[string]bool
}

type suppressionEntry struct {
	text string
	rule *Rule // nil when the entry names no rule of the set
}

type docKey struct {
	file string
	doc  int
}

// suppress drops the diagnostics an annotation silences and adds the XP004
// diagnostics of entries that silenced nothing, at most maxDiags of them
// (see WithMaxDiagnostics). It is linear in the diagnostics and the
// annotations' entries.
func suppress(ctx context.Context, pkg *parser.Package, all []*Rule, ran map[string]bool, diags []Diagnostic, sh *shared, maxDiags int) []Diagnostic {
	var sups []*suppression
	byDoc := map[docKey]*suppression{}
	// The global suppressions (on meta objects) act as one.
	global := &suppression{global: true, names: map[string]bool{}, hit: map[string]bool{}}
	add := func(o *parser.Object, isGlobal bool) {
		v, ok := o.ObjectMeta.Annotations[SuppressAnnotation]
		if !ok {
			return
		}
		s := &suppression{obj: o, global: isGlobal, names: map[string]bool{}, hit: map[string]bool{}}
		if isGlobal {
			s.names, s.hit = global.names, global.hit
		}
		for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
			e := suppressionEntry{text: f}
			for _, r := range all {
				if r.Matches(f) {
					e.rule = r
					s.names[r.ID] = true
					break
				}
			}
			s.entries = append(s.entries, e)
		}
		sups = append(sups, s)
		if !isGlobal {
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
		if global.names[d.RuleID] {
			global.hit[d.RuleID], hit = true, true
		}
		if s := byDoc[docKey{d.Pos.File, d.Pos.Document}]; s != nil && d.Pos.Line > 0 && s.names[d.RuleID] {
			s.hit[d.RuleID], hit = true, true
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
	p := &Pass{Rule: unusedRule, ctx: ctx, shared: sh, max: maxDiags}
	path := []string{"metadata", "annotations", SuppressAnnotation}
	for _, s := range sups {
		if p.canceled() {
			return kept // Lint returns the context's error
		}
		var pos *parser.Position // found once per annotation, when needed
		for _, e := range s.entries {
			if e.rule != nil && (s.hit[e.rule.ID] || !ran[e.rule.ID] || e.rule.ID == unusedSuppressionID) {
				continue
			}
			if pos == nil {
				at := p.Pos(s.obj, path...)
				pos = &at
			}
			msg := "suppression of " + token(e.text) + " silences nothing"
			if e.rule == nil {
				msg = "suppression names " + token(e.text) + ", which is no rule ID or name"
			} else if s.global {
				msg += " in this package"
			} else {
				msg += " in this object"
			}
			p.Report(Diagnostic{Message: msg, Pos: *pos, Field: FieldPath(path...), Object: RefOf(s.obj)})
		}
	}
	p.summarize()
	for _, d := range p.diags {
		if !silence(d) {
			kept = append(kept, d)
		}
	}
	return kept
}
