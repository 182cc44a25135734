package linter

import (
	"bytes"
	"cmp"
	"slices"
)

// ApplyFixes applies to src, the content of file, the fixes that apply
// cleanly, taken in the order of their first edit's offset (fixes at one
// offset in the order given): each of a fix's edits must be in file (its
// File equal to file), within src, and overlap no edit of a fix taken
// before it (two insertions at one offset overlap too: their order would
// be arbitrary). It returns the new content, the edits applied sorted by
// offset, and, for each fix of fixes, why it was left out ("" when it was
// applied). It is linear in src plus the edits times the edits taken,
// and does not modify src or fixes.
func ApplyFixes(file string, src []byte, fixes []SuggestedFix) (out []byte, applied []TextEdit, skipped []string) {
	skipped = make([]string, len(fixes))
	order := make([]int, len(fixes))
	for i := range order {
		order[i] = i
	}
	first := func(i int) int64 {
		if len(fixes[i].TextEdits) == 0 {
			return 0
		}
		return fixes[i].TextEdits[0].Offset
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(first(a), first(b)) })
	for _, i := range order {
		f := fixes[i]
		why := ""
		if len(f.TextEdits) == 0 {
			why = "it has no edit"
		}
		for _, e := range f.TextEdits {
			switch {
			case e.File != file:
				why = "it edits more than one file"
			case e.Offset < 0 || e.End < e.Offset || e.End > int64(len(src)):
				why = "the file changed since it was read"
			case overlaps(applied, e):
				why = "it overlaps another fix"
			}
			if why != "" {
				break
			}
		}
		if why != "" {
			skipped[i] = why
			continue
		}
		applied = append(applied, f.TextEdits...)
	}
	slices.SortFunc(applied, func(a, b TextEdit) int { return cmp.Compare(a.Offset, b.Offset) })
	var b bytes.Buffer
	at := int64(0)
	for _, e := range applied {
		b.Write(src[at:e.Offset])
		b.WriteString(e.NewText)
		at = e.End
	}
	b.Write(src[at:])
	return b.Bytes(), applied, skipped
}

// overlaps reports whether e overlaps an edit of taken.
func overlaps(taken []TextEdit, e TextEdit) bool {
	for _, t := range taken {
		if e.Offset < t.End && t.Offset < e.End || e.Offset == t.Offset {
			return true
		}
	}
	return false
}
