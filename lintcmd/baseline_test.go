package lintcmd

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
)

// TestBaselineSurvivesEdits is the acceptance test of baselines: a
// baseline written on a corpus package still matches every finding after
// unrelated lines are inserted above every object of every file; a new
// finding counts, and a fixed one leaves a stale entry.
func TestBaselineSurvivesEdits(t *testing.T) {
	t.Parallel()
	dir := testcorpus.Dir(t)
	pkg := filepath.Join(t.TempDir(), "configuration-aws-eks")
	copyDir(t, filepath.Join(dir, "configuration-aws-eks", "src"), pkg)
	base := filepath.Join(t.TempDir(), "baseline.json")

	// Written: every finding is in the baseline, the run passes.
	ds, r := jsonOutput(t, nil, "--fail-on", "info", "--baseline", base, "--write-baseline", pkg)
	if r.code != ExitOK || !strings.Contains(r.stderr, "wrote the baseline") {
		t.Fatalf("writing: exit %d, stderr %q", r.code, r.stderr)
	}
	written := len(ds)
	if written < 10 {
		t.Fatalf("%d findings baselined, want the package's (at least 10)", written)
	}

	// Unrelated lines above every object of every file.
	err := filepath.WalkDir(pkg, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		const noise = "# an unrelated comment\n\n# and another\n"
		s := noise + strings.ReplaceAll(string(data), "\n---\n", "\n---\n"+noise)
		return os.WriteFile(p, []byte(s), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	_, rep := decodeReport(t, runCLI(t, nil, "-o", "json", "--fail-on", "info", "--baseline", base, pkg))
	if len(rep.Diagnostics) != 0 || rep.Summary.Baselined != written || rep.Summary.StaleBaseline != 0 {
		t.Errorf("after the edits: %d new, %d baselined (want %d), %d stale:\n%+v", len(rep.Diagnostics), rep.Summary.Baselined, written, rep.Summary.StaleBaseline, rep.Diagnostics)
	}
	text := runCLI(t, nil, "--fail-on", "info", "--baseline", base, pkg)
	if text.code != ExitOK || !strings.Contains(text.stdout, "in the baseline") {
		t.Errorf("text: exit %d\n%s", text.code, text.stdout)
	}

	// A new finding counts; a fixed one leaves a stale entry.
	meta := filepath.Join(pkg, "crossplane.yaml")
	data, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), "meta.pkg.crossplane.io/v1alpha1", "meta.pkg.crossplane.io/v1", 1) // XP103 fixed
	s = strings.Replace(s, "  annotations:\n", "  annotations:\n    meta.crossplane.io/source: not a url\n", 1)
	if err := os.WriteFile(meta, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "-o", "json", "--fail-on", "warning", "--baseline", base, pkg)
	_, rep = decodeReport(t, r)
	if r.code != ExitFindings || len(rep.Diagnostics) == 0 || rep.Summary.StaleBaseline != 1 {
		t.Errorf("after a fix and a new finding: exit %d, new %+v, %d stale", r.code, rep.Diagnostics, rep.Summary.StaleBaseline)
	}
	text = runCLI(t, nil, "--baseline", base, pkg)
	if !strings.Contains(text.stdout, "1 baseline entry no longer matches") {
		t.Errorf("text summary lacks the stale entry:\n%s", text.stdout)
	}
	// SARIF says which results are new.
	sarif := runCLI(t, nil, "-o", "sarif", "--baseline", base, pkg)
	if !strings.Contains(sarif.stdout, `"baselineState": "new"`) || !strings.Contains(sarif.stdout, `"baselineState": "unchanged"`) {
		t.Errorf("SARIF lacks baselineState")
	}
}

func TestBaselineErrors(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "b.json")
	for _, content := range []string{"not json", `{"version": 9, "entries": []}`, `{"version": 1, "entries": [], "extra": 1}`} {
		if err := os.WriteFile(bad, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, nil, "--baseline", bad, cleanPackage)
		if r.code != ExitError || !strings.Contains(r.stderr, "--baseline") {
			t.Errorf("%q: exit %d, stderr %q", content, r.code, r.stderr)
		}
	}
}

// TestBaselineBound: a baseline over the size cap is an error, read no
// further than the cap.
func TestBaselineBound(t *testing.T) {
	t.Parallel()
	big := filepath.Join(t.TempDir(), "b.json")
	if err := os.WriteFile(big, []byte(`{"version":1,"entries":[`+strings.Repeat(" ", maxBaselineSize)+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := openBaseline(t.Context(), big, false, ""); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("too large: %v", err)
	}
}
