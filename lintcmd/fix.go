package lintcmd

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/linter"
)

// fileFix is one suggested fix of a diagnostic, with its edits' file.
type fileFix struct {
	diag linter.Diagnostic
	fix  linter.SuggestedFix
}

// fixResult is what applying the fixes to one file gave.
type fixResult struct {
	file     string
	old, new []byte
	edits    []linter.TextEdit // applied, sorted
	applied  int               // fixes applied
	skipped  []string          // why fixes were not
}

// fixAll lints the sources, applies their suggested fixes to the package
// files (--fix) or prints them as unified diffs (--diff), and says on
// stderr what was fixed and what was skipped. With --fix the sources are
// then linted again for the report; with --diff the diff is the output.
func (ck *Checker) fixAll(ctx context.Context, c *config, l loader, stdin io.Reader, stdout, stderr io.Writer) int {
	byFile := map[string][]fileFix{}
	roots := map[string]string{} // file -> the package root it must lie in
	var files []string
	code := ExitOK
	unfixable := 0 // fixes in sources that are no package directory or file
	lintAll(ctx, c, l, stdin, func(o outcome) {
		s := o.src
		if s.Err != nil {
			fmt.Fprintf(stderr, "%s: %s: %s\n", ck.name, s.Name, errorLine(s.Name, s.Err))
			code = ExitError
			return
		}
		if s.Image || s.Name == stdinSource || s.Name == "<stdin>" {
			// Said once per source, not per finding; and the run fails:
			// what was asked cannot be done.
			n := 0
			for _, d := range s.Diagnostics {
				if len(d.SuggestedFixes) > 0 {
					n++
				}
			}
			if n > 0 {
				fmt.Fprintf(stderr, "%s: %s: %s not applied: the source is not a package directory or file (fix the files it was built from)\n", ck.name, s.Name, plural(n, "fix"))
				unfixable += n
			}
			return
		}
		for _, d := range s.Diagnostics {
			if len(d.SuggestedFixes) == 0 {
				continue
			}
			f := d.SuggestedFixes[0]
			if len(f.TextEdits) == 0 {
				continue
			}
			file := f.TextEdits[0].File
			if _, ok := byFile[file]; !ok {
				files = append(files, file)
				roots[file] = o.root
			}
			byFile[file] = append(byFile[file], fileFix{diag: d, fix: f})
		}
	})
	if code != ExitOK {
		return code
	}
	fixed, skipped := 0, 0
	for _, file := range files {
		r := applyFixes(ctx, file, byFile[file])
		fixed += r.applied
		skipped += len(r.skipped)
		for _, why := range r.skipped {
			fmt.Fprintf(stderr, "%s: %s: fix skipped: %s\n", ck.name, safetext.Escape(file), why)
		}
		if r.applied == 0 {
			continue
		}
		if c.diff {
			if _, err := io.WriteString(stdout, unifiedDiff(file, r.old, r.edits)); err != nil {
				fmt.Fprintf(stderr, "%s: writing the diff: %v\n", ck.name, err)
				return ExitError
			}
			continue
		}
		if err := writeFile(ctx, file, roots[file], r.new); err != nil {
			fmt.Fprintf(stderr, "%s: %s: %v\n", ck.name, safetext.Escape(file), err)
			return ExitError
		}
	}
	verb := "fixed"
	if c.diff {
		verb = "fixes for"
	}
	fmt.Fprintf(stderr, "%s: %s %s in %s", ck.name, verb, plural(fixed, "finding"), plural(countApplied(files, byFile), "file"))
	if skipped > 0 {
		fmt.Fprintf(stderr, "; %s skipped", plural(skipped, "fix"))
	}
	fmt.Fprintln(stderr)
	if unfixable > 0 {
		return ExitError
	}
	return code
}

// plural returns "1 finding", "2 findings", "2 fixes".
func plural(n int, word string) string {
	switch {
	case n == 1:
		return "1 " + word
	case strings.HasSuffix(word, "x"):
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// countApplied counts the files that had fixes.
func countApplied(files []string, byFile map[string][]fileFix) int {
	n := 0
	for _, f := range files {
		if len(byFile[f]) > 0 {
			n++
		}
	}
	return n
}

// applyFixes applies to the file the fixes that apply cleanly: every edit
// in the file's bounds and overlapping no edit of a fix already taken.
func applyFixes(ctx context.Context, file string, fixes []fileFix) fixResult {
	r := fixResult{file: file}
	old, err := safefile.Read(ctx, file, maxFixFileSize)
	if err != nil {
		for _, f := range fixes {
			r.skipped = append(r.skipped, fmt.Sprintf("%s %s: %v", f.diag.Where(), f.diag.RuleID, err))
		}
		return r
	}
	r.old = old
	slices.SortStableFunc(fixes, func(a, b fileFix) int { return cmp.Compare(a.fix.TextEdits[0].Offset, b.fix.TextEdits[0].Offset) })
	sfs := make([]linter.SuggestedFix, len(fixes))
	for i, f := range fixes {
		sfs[i] = f.fix
	}
	var skipped []string
	r.new, r.edits, skipped = linter.ApplyFixes(file, old, sfs)
	for i, f := range fixes {
		if why := skipped[i]; why != "" {
			r.skipped = append(r.skipped, fmt.Sprintf("%s %s (%s): %s", f.diag.Where(), f.diag.RuleID, f.fix.Message, why))
			continue
		}
		r.applied++
	}
	return r
}

// maxFixFileSize bounds a file --fix and --diff read: the largest package
// stream the parser reads by default.
const maxFixFileSize = 1 << 30

// writeFile replaces the file's content, keeping its mode, through
// safefile: an exclusive temporary file in the file's directory, renamed
// over it; a file that is a link, is not regular, or lies outside root (the
// package's directory, when known) is refused.
func writeFile(ctx context.Context, file, root string, data []byte) error {
	return safefile.Write(ctx, file, data, safefile.WriteOptions{Root: root, MustExist: true})
}

// diffContext is the number of unchanged lines a hunk shows around a change.
const diffContext = 3

// unifiedDiff returns the unified diff of the edits (sorted, disjoint) to
// old, in the form diff -u and git apply read. It works from the edits, in
// time linear in the file.
func unifiedDiff(file string, old []byte, edits []linter.TextEdit) string {
	// Line starts of old.
	starts := []int64{0}
	for i, c := range old {
		if c == '\n' && i+1 < len(old) {
			starts = append(starts, int64(i+1))
		}
	}
	lineOf := func(off int64) int {
		i, found := slices.BinarySearch(starts, off)
		if !found {
			i--
		}
		return max(i, 0)
	}
	lineEnd := func(l int) int64 { // end of line l, its newline included
		if l+1 < len(starts) {
			return starts[l+1]
		}
		return int64(len(old))
	}
	// Changes: runs of edits on shared lines, as old line ranges and new
	// lines.
	type change struct {
		from, to int // old lines [from, to)
		lines    []string
	}
	lines := func(s string) []string {
		s = strings.TrimSuffix(s, "\n")
		if s == "" {
			return nil
		}
		return strings.Split(s, "\n")
	}
	oldLine := func(l int) string { return strings.TrimSuffix(string(old[starts[l]:lineEnd(l)]), "\n") }
	var changes []change
	for i := 0; i < len(edits); {
		from := lineOf(edits[i].Offset)
		last := max(edits[i].End-1, edits[i].Offset)
		j := i + 1
		for j < len(edits) && lineOf(edits[j].Offset) <= lineOf(last) {
			last = max(edits[j].End-1, edits[j].Offset, last)
			j++
		}
		to := lineOf(last) + 1
		var b strings.Builder
		at := starts[from]
		for _, e := range edits[i:j] {
			b.Write(old[at:e.Offset])
			b.WriteString(e.NewText)
			at = e.End
		}
		b.Write(old[at:lineEnd(to-1)])
		nl := lines(b.String())
		// Lines the edit left as they were are context, not change.
		for from < to && len(nl) > 0 && oldLine(from) == nl[0] {
			from, nl = from+1, nl[1:]
		}
		for from < to && len(nl) > 0 && oldLine(to-1) == nl[len(nl)-1] {
			to, nl = to-1, nl[:len(nl)-1]
		}
		i = j
		if from == to && len(nl) == 0 {
			continue
		}
		if n := len(changes); n > 0 && changes[n-1].to == from {
			// Adjacent lines: one change, as diff shows it.
			changes[n-1].to = to
			changes[n-1].lines = append(changes[n-1].lines, nl...)
		} else {
			changes = append(changes, change{from, to, nl})
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", file, file)
	delta := 0
	for i := 0; i < len(changes); {
		j := i + 1
		for j < len(changes) && changes[j].from-changes[j-1].to <= 2*diffContext {
			j++
		}
		start := max(changes[i].from-diffContext, 0)
		end := min(changes[j-1].to+diffContext, len(starts))
		var body strings.Builder
		oldN, newN := 0, 0
		at := start
		for _, ch := range changes[i:j] {
			for ; at < ch.from; at++ {
				body.WriteString(" " + oldLine(at) + "\n")
				oldN++
				newN++
			}
			for ; at < ch.to; at++ {
				body.WriteString("-" + oldLine(at) + "\n")
				oldN++
			}
			for _, nl := range ch.lines {
				body.WriteString("+" + nl + "\n")
				newN++
			}
		}
		for ; at < end; at++ {
			body.WriteString(" " + oldLine(at) + "\n")
			oldN++
			newN++
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n%s", start+1, oldN, start+1+delta, newN, body.String())
		delta += newN - oldN
		i = j
	}
	return out.String()
}
