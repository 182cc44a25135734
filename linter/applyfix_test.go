package linter_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
)

func edit(off, end int64, text string) linter.TextEdit {
	return linter.TextEdit{File: "f.yaml", Offset: off, End: end, NewText: text}
}

// TestApplyFixes checks which fixes ApplyFixes takes and the text it
// makes: fixes in offset order, one overlapping a fix taken, out of bounds,
// in another file or without edits left out with the reason.
func TestApplyFixes(t *testing.T) {
	t.Parallel()
	const src = "a: 1\nb: 2\n"
	tests := []struct {
		name    string
		fixes   []linter.SuggestedFix
		want    string
		skipped []string
	}{
		{name: "none", want: src},
		{name: "one replacement", fixes: []linter.SuggestedFix{{TextEdits: []linter.TextEdit{edit(3, 4, "10")}}}, want: "a: 10\nb: 2\n", skipped: []string{""}},
		{name: "two, given out of order", fixes: []linter.SuggestedFix{{TextEdits: []linter.TextEdit{edit(8, 9, "20")}}, {TextEdits: []linter.TextEdit{edit(3, 4, "10")}}},
			want: "a: 10\nb: 20\n", skipped: []string{"", ""}},
		{name: "an insertion and a deletion", fixes: []linter.SuggestedFix{{TextEdits: []linter.TextEdit{edit(0, 0, "# x\n"), edit(5, 10, "")}}}, want: "# x\na: 1\n", skipped: []string{""}},
		{name: "overlapping", fixes: []linter.SuggestedFix{{TextEdits: []linter.TextEdit{edit(3, 4, "10")}}, {TextEdits: []linter.TextEdit{edit(3, 4, "11")}}},
			want: "a: 10\nb: 2\n", skipped: []string{"", "it overlaps another fix"}},
		{name: "out of bounds", fixes: []linter.SuggestedFix{{TextEdits: []linter.TextEdit{edit(3, 40, "x")}}}, want: src, skipped: []string{"the file changed since it was read"}},
		{name: "another file", fixes: []linter.SuggestedFix{{TextEdits: []linter.TextEdit{{File: "g.yaml", Offset: 0, End: 1}}}}, want: src, skipped: []string{"it edits more than one file"}},
		{name: "no edit", fixes: []linter.SuggestedFix{{Message: "empty"}}, want: src, skipped: []string{"it has no edit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, applied, skipped := linter.ApplyFixes("f.yaml", []byte(src), tt.fixes)
			if string(out) != tt.want {
				t.Errorf("text %q, want %q", out, tt.want)
			}
			if len(skipped) != len(tt.fixes) || len(tt.skipped) > 0 && !slices.Equal(skipped, tt.skipped) {
				t.Errorf("skipped %q, want %q", skipped, tt.skipped)
			}
			if !slices.IsSortedFunc(applied, func(a, b linter.TextEdit) int { return int(a.Offset - b.Offset) }) {
				t.Errorf("edits not sorted: %v", applied)
			}
		})
	}
}

// ExampleApplyFixes applies a diagnostic's suggested fix to the file it
// was found in.
func ExampleApplyFixes() {
	src := []byte("apiVersion: meta.pkg.crossplane.io/v1alpha1\nkind: Provider\n")
	fix := linter.SuggestedFix{Message: "use v1", TextEdits: []linter.TextEdit{{File: "crossplane.yaml", Offset: 35, End: 43, NewText: "v1"}}}
	out, _, skipped := linter.ApplyFixes("crossplane.yaml", src, []linter.SuggestedFix{fix})
	fmt.Printf("%s%q\n", out, skipped[0])
	// Output:
	// apiVersion: meta.pkg.crossplane.io/v1
	// kind: Provider
	// ""
}
