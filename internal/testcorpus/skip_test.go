package testcorpus

import (
	"testing"
)

// fakeTB records a skip instead of stopping the test.
type fakeTB struct {
	testing.TB
	skippedWith string
}

func (f *fakeTB) Helper()                          {}
func (f *fakeTB) Skipf(format string, args ...any) { f.skippedWith = format }
func (f *fakeTB) Fatalf(format string, args ...any) {
	panic("Fatalf: " + format)
}

// TestDirCountsSkips: a test that Dir skips for want of the corpus is
// counted, for Main to say once how many were skipped.
func TestDirCountsSkips(t *testing.T) {
	t.Setenv(EnvVar, "")
	t.Setenv("CI", "")
	t.Chdir(t.TempDir()) // no shared/corpus above
	before := skipped.Load()
	f := &fakeTB{TB: t}
	if d := Dir(f); d != "" || f.skippedWith == "" {
		t.Fatalf("Dir = %q, skipped with %q; want a skip", d, f.skippedWith)
	}
	if got := skipped.Load() - before; got != 1 {
		t.Errorf("%d skips counted, want 1", got)
	}
}
