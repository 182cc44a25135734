package apidiff_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apidiff"
	"github.com/xpkgkit/xpkgkit/linter/changerules"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// TestHostileDiff runs Diff on each worst case of the API diff
// (hostile.APIDiffCases): it finds at least the case's changes, keeps at
// most the cap per kind (and says how many it left out), and returns the
// context's error when cancelled. The memory and CPU budget is checked
// through the CLI (examples/xpkg-lint, TestHostileAPIDiffCLI).
func TestHostileDiff(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("4 MiB packages, seconds each under -race: run without -short and -race")
	}
	t.Parallel()
	dir := t.TempDir()
	for _, c := range hostile.APIDiffCases() {
		t.Run(c.Name, func(t *testing.T) {
			if !strings.HasPrefix(c.Name, "apidiff-cost-") {
				t.Errorf("name %q lacks the prefix apidiff-cost-", c.Name)
			}
			ctx := t.Context()
			var pkgs [2]*xpkg.Package
			for i, side := range []hostile.Case{c.Old, c.New} {
				src, err := side.Write(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				if pkgs[i], err = xpkg.Open(ctx, src); err != nil {
					t.Fatal(err)
				}
				if len(pkgs[i].Errors) > 0 {
					t.Fatalf("%s: %v", side.Name, pkgs[i].Errors[0])
				}
			}
			const most = 200
			res, err := apidiff.Diff(ctx, pkgs[0].Package, pkgs[1].Package, apidiff.WithMaxChanges(most), apidiff.WithVersions("v1.0.0", "v1.0.1"))
			if err != nil {
				t.Fatal(err)
			}
			total, kept := 0, map[apidiff.Kind]int{}
			for _, ch := range res.Changes {
				kept[ch.Kind]++
			}
			for k, n := range kept {
				total += n + res.Dropped[k]
				if n > most {
					t.Errorf("%s: %d changes kept, want at most %d", k, n, most)
				}
			}
			t.Logf("%d changes (%v kept, %v left out)", total, kept, res.Dropped)
			if total < c.MinChanges {
				t.Errorf("%d changes, want at least %d", total, c.MinChanges)
			}
			lr, err := changerules.Lint(ctx, res)
			if err != nil {
				t.Fatal(err)
			}
			ds := lr.Diagnostics
			per := map[string]int{}
			for _, d := range ds {
				per[d.RuleID]++
				if d.Severity != linter.SeverityError && d.Severity != linter.SeverityWarning && d.Severity != linter.SeverityInfo {
					t.Errorf("severity %v", d.Severity)
				}
			}
			for id, n := range per {
				if n > most+1 {
					t.Errorf("%s: %d diagnostics, want at most %d", id, n, most+1)
				}
			}
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			if _, err := apidiff.Diff(cancelled, pkgs[0].Package, pkgs[1].Package); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled: %v, want context.Canceled", err)
			}
		})
	}
}
