package linter

import (
	"context"
	"slices"
	"strings"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Suppress applies the suppression annotations of pkg to diagnostics that
// another runner of rules reported about it, as Lint applies them to its
// own: it returns the diagnostics that stand and those silenced, each with
// its Suppression. graphrules.Lint (linter/graphrules) silences a graph rule's
// diagnostics in the root package's documents with the root's
// annotations, and every one of the rule's diagnostics with an annotation
// on the root's meta object. The annotations name rules by ID or by name:
// rules are those the names may refer to (the diagnostics' own rules are
// known by their RuleID and RuleName). Suppress reports no unused
// suppression (that of Rule.SuppressionCheck is Lint's). It is linear in the diagnostics and the
// annotations' entries; diags is reused.
func Suppress(ctx context.Context, pkg *parser.Package, rules []*Rule, diags []Diagnostic) (kept, silenced []Diagnostic) {
	if pkg == nil {
		return diags, nil
	}
	known := slices.Clone(rules)
	seen := map[string]bool{}
	for _, r := range rules {
		if r != nil {
			seen[r.ID] = true
		}
	}
	for _, d := range diags {
		if !seen[d.RuleID] {
			seen[d.RuleID] = true
			known = append(known, &Rule{ID: d.RuleID, Name: d.RuleName})
		}
	}
	known = slices.DeleteFunc(known, func(r *Rule) bool { return r == nil })
	kept, silenced = suppress(ctx, pkg, known, nil, diags, nil, 0)
	SortDiagnostics(silenced)
	return kept, silenced
}

type suppression struct {
	obj     *parser.Object
	entries []suppressionEntry
	global  bool
	// names holds the IDs of the rules the entries name, each with the
	// reason of its first entry; hit, those that silenced a diagnostic.
	// Maps, so that silencing is constant time per diagnostic however many
	// entries and annotations there are.
	names map[string]string
	hit   map[string]bool
}

type suppressionEntry struct {
	text   string
	reason string
	rule   *Rule // nil when the entry names no rule of the set
}

// suppressionEntries splits an annotation value into its entries: clauses
// separated by ';' or new lines, each a list of rule IDs or names separated
// by commas, spaces or tabs, then optionally ':' and the clause's reason.
func suppressionEntries(v string) []suppressionEntry {
	var out []suppressionEntry
	for _, clause := range strings.FieldsFunc(v, func(r rune) bool { return r == ';' || r == '\n' }) {
		list, reason, _ := strings.Cut(clause, ":")
		reason = strings.TrimSpace(reason)
		for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' }) {
			out = append(out, suppressionEntry{text: f, reason: reason})
		}
	}
	return out
}

type docKey struct {
	file string
	doc  int
}

// suppress separates the diagnostics an annotation silences (returned
// second, each with its Suppression) from those that stand, and adds the
// diagnostics of the SuppressionCheck rule for the of entries that silenced nothing, at most maxDiags of them
// (see WithMaxDiagnostics). It is linear in the diagnostics and the
// annotations' entries.
func suppress(ctx context.Context, pkg *parser.Package, all []*Rule, ran map[string]bool, diags []Diagnostic, sh *shared, maxDiags int) (kept, silenced []Diagnostic) {
	var sups []*suppression
	byDoc := map[docKey]*suppression{}
	// The global suppressions (on meta objects) act as one.
	global := &suppression{global: true, names: map[string]string{}, hit: map[string]bool{}}
	add := func(o *parser.Object, isGlobal bool) {
		v, ok := o.ObjectMeta.Annotations[meta.AnnotationSuppress]
		if !ok {
			return
		}
		s := &suppression{obj: o, global: isGlobal, names: map[string]string{}, hit: map[string]bool{}}
		if isGlobal {
			s.names, s.hit = global.names, global.hit
		}
		for _, e := range suppressionEntries(v) {
			for _, r := range all {
				if r.Matches(e.text) {
					e.rule = r
					if _, seen := s.names[r.ID]; !seen {
						s.names[r.ID] = e.reason
					}
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
		return diags, nil
	}

	// silence reports whether an annotation silences d, and the reason:
	// that of the object's own annotation before the package's.
	silence := func(d Diagnostic) (string, bool) {
		reason, hit := "", false
		if r, ok := global.names[d.RuleID]; ok {
			global.hit[d.RuleID], hit, reason = true, true, r
		}
		if s := byDoc[docKey{d.Pos.File, d.Pos.Document}]; s != nil && d.Pos.Line > 0 {
			if r, ok := s.names[d.RuleID]; ok {
				s.hit[d.RuleID], hit, reason = true, true, r
			}
		}
		return reason, hit
	}
	keep := func(d Diagnostic) {
		if reason, ok := silence(d); ok {
			d.Suppression = &Suppression{Reason: reason}
			silenced = append(silenced, d)
			return
		}
		kept = append(kept, d)
	}
	kept = diags[:0]
	for _, d := range diags {
		keep(d)
	}

	var unusedRule *Rule
	for _, r := range all {
		if unusedRule != nil {
			break
		}
		if r.SuppressionCheck && ran[r.ID] {
			unusedRule = r
		}
	}
	if unusedRule == nil {
		return kept, silenced
	}
	p := &Pass{Rule: unusedRule, ctx: ctx, shared: sh, max: maxDiags}
	path := []string{"metadata", "annotations", meta.AnnotationSuppress}
	for _, s := range sups {
		if p.canceled() {
			return kept, silenced // Lint returns the context's error
		}
		var pos *parser.Position // found once per annotation, when needed
		for _, e := range s.entries {
			if e.rule != nil && (s.hit[e.rule.ID] || !ran[e.rule.ID] || e.rule == unusedRule) {
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
			p.Report(Diagnostic{Message: msg, Pos: *pos, Field: parser.FieldPath(path...), Object: s.obj.Ref()})
		}
	}
	p.summarize()
	for _, d := range p.diags {
		keep(d)
	}
	return kept, silenced
}
