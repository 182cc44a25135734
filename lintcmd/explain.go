package lintcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/lintcmd/internal/report"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/changerules"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/meta"
)

// explain writes the documentation of the rule named (by ID or name): its
// title, severity, kinds, description and examples.
func (ck *Checker) explain(w io.Writer, idOrName string) error {
	r := ck.lookupRule(idOrName)
	if r == nil {
		return fmt.Errorf("unknown rule %q", idOrName)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s\n\n", r.ID, r.Name, r.Title())
	fmt.Fprintf(&b, "Severity: %s\nKinds:    %s\n", r.Severity, report.KindsString(r.Kinds))
	if body := report.RuleBody(r); body != "" {
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	for _, ex := range []struct{ title, yaml string }{{"Reported", r.Bad}, {"Not reported", r.Good}} {
		if strings.TrimSpace(ex.yaml) == "" {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n\n", ex.title)
		for _, line := range strings.Split(strings.TrimRight(ex.yaml, "\n"), "\n") {
			if line == "" {
				b.WriteString("\n")
				continue
			}
			fmt.Fprintf(&b, "    %s\n", line)
		}
	}
	if r.ID == report.UnreadableRuleID {
		// Not a rule: nothing to disable, and nothing version-dependent.
		_, err := io.WriteString(w, safetext.EscapeLines(b.String()))
		return err
	}
	if ck.isBuiltinRule(r) {
		// The built-in rules follow the target release; a checker's own
		// rules say so in their doc if they do.
		fmt.Fprintf(&b, "\nVersion-dependent answers follow --crossplane-version (default: %s, the\nnewest stable Crossplane line).\n", linter.DefaultCrossplaneVersion)
	}
	fmt.Fprintf(&b, "\nDisable it with --disable %s, regrade it with --severity %s=LEVEL,\nor silence it in a package with the annotation\n%s: \"%s\".\n",
		r.ID, r.ID, meta.AnnotationSuppress, r.ID)
	// A checker's own rules bring their docs: escaped as every text a
	// user sees is (safetext), the lines kept.
	_, err := io.WriteString(w, safetext.EscapeLines(b.String()))
	return err
}

// isBuiltinRule reports whether r is one of xpkgkit's rules (package,
// API server, graph or API change rules), not one the checker was given.
func (ck *Checker) isBuiltinRule(r *linter.Rule) bool {
	for _, set := range [][]*linter.Rule{rules.Builtin(), apiserverRules(), graphrules.Rules(), changerules.Rules()} {
		if slices.ContainsFunc(set, func(b *linter.Rule) bool { return b.ID == r.ID }) {
			return true
		}
	}
	return false
}

// ruleEntry is one rule of --list-rules -o json.
type ruleEntry struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Severity string   `json:"severity"`
	Kinds    []string `json:"kinds"`
	Title    string   `json:"title"`
}

// listRules writes the rule catalog: a table, or a JSON array for the
// json format.
func (ck *Checker) listRules(w io.Writer, f report.Format) error {
	rules := ck.allRules()
	if f == report.FormatJSON {
		entries := make([]ruleEntry, 0, len(rules))
		for _, r := range rules {
			kinds := []string{}
			for _, k := range r.Kinds {
				kinds = append(kinds, string(k))
			}
			entries = append(entries, ruleEntry{ID: r.ID, Name: r.Name, Severity: r.Severity.String(), Kinds: kinds, Title: r.Title()})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSEVERITY\tKINDS\tTITLE")
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", safetext.Escape(r.ID), safetext.Escape(r.Name), r.Severity, report.KindsString(r.Kinds), safetext.Escape(r.Title()))
	}
	return tw.Flush()
}
