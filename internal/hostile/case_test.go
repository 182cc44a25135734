package hostile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func TestCasesAreWellFormed(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range append(Cases(), Controls()...) {
		if seen[c.Name] {
			t.Errorf("duplicate case name %q", c.Name)
		}
		seen[c.Name] = true
		if !namePattern.MatchString(c.Name) {
			t.Errorf("%s: name is not lower-case-with-dashes", c.Name)
		}
		if len(strings.TrimSpace(c.Description)) < 20 {
			t.Errorf("%s: description %q is too short", c.Name, c.Description)
		}
		if c.Kind < KindXpkg || c.Kind > KindPackageDir {
			t.Errorf("%s: kind %v is not a known kind", c.Name, c.Kind)
		}
		if c.Write == nil {
			t.Errorf("%s: Write is nil", c.Name)
		}
		if c.Seed && c.Heavy {
			t.Errorf("%s: a seed cannot be heavy", c.Name)
		}
		if c.Seed && c.Size > SeedLimit {
			t.Errorf("%s: a seed of %d bytes exceeds SeedLimit", c.Name, c.Size)
		}
		for _, o := range append([]Outcome{c.Expect}, c.Alternatives...) {
			if o.Class != ClassLimitExceeded && o.Limit != LimitAny {
				t.Errorf("%s: outcome %v names a limit without being %v", c.Name, o, ClassLimitExceeded)
			}
		}
		for _, o := range c.Alternatives {
			if o == c.Expect {
				t.Errorf("%s: alternative %v repeats the expected outcome", c.Name, o)
			}
		}
	}
	for _, c := range Cases() {
		// The expected outcome of a hostile case fails the run; an
		// alternative may not (dir-symlink-escape: a reader that skips the
		// link reads a clean package), when the description says why.
		if code := c.Expect.Class.ExitCode(); code != 1 && code != 2 {
			t.Errorf("%s: a hostile case must expect exit 1 or 2, not %d", c.Name, code)
		}
	}
	for _, c := range Controls() {
		if c.Expect.Class != ClassOK || len(c.Alternatives) != 0 {
			t.Errorf("%s: a control must expect only %v", c.Name, ClassOK)
		}
	}
	// Every kind is exercised by some hostile case.
	kinds := map[SourceKind]bool{}
	for _, c := range Cases() {
		kinds[c.Kind] = true
	}
	for k := KindXpkg; k <= KindPackageDir; k++ {
		if !kinds[k] {
			t.Errorf("no hostile case of kind %v", k)
		}
	}
}

func TestCasesWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range append(Cases(), Controls()...) {
		if c.Heavy {
			continue // TestHeavyCases writes them, one at a time
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			if raceEnabled && c.Size >= 256<<10 {
				// Compressing hundreds of layers under the race detector
				// takes 25 s a case; TestCasesAreDeterministic writes
				// every case (twice) in .ci/run's run without -race.
				t.Skip("over 256 KiB: written without -race (TestCasesAreDeterministic)")
			}
			checkWrite(t, c, dir)
		})
	}
}

// checkWrite writes c into dir, checks what it wrote and removes it. It
// returns how long Write took and the bytes it wrote.
func checkWrite(t *testing.T, c Case, dir string) (time.Duration, int64) {
	t.Helper()
	start := time.Now()
	p, err := c.Write(t.Context(), dir)
	took := time.Since(start)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("not supported here: %v", err)
	}
	if err != nil {
		t.Fatalf("%s: Write: %v", c.Name, err)
	}
	if want := filepath.Join(dir, c.Name+c.Kind.ext()); p != want {
		t.Errorf("%s: Write returned %s, want %s", c.Name, p, want)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if isDir := c.Kind == KindOCILayoutDir || c.Kind == KindPackageDir; fi.IsDir() != isDir {
		t.Errorf("%s: %s is a directory: %v, want %v", c.Name, p, fi.IsDir(), isDir)
	}
	n, err := diskSize(p)
	if err != nil {
		t.Fatal(err)
	}
	// Size documents the disk cost: keep it within a factor of two.
	if c.Size > 8<<10 && (n < c.Size/2 || n > c.Size*2) {
		t.Errorf("%s: wrote %d bytes, Size says %d", c.Name, n, c.Size)
	}
	if c.Size <= 8<<10 && n > 16<<10 {
		t.Errorf("%s: wrote %d bytes, Size says %d", c.Name, n, c.Size)
	}
	if n > 32<<20 && !c.Heavy {
		t.Errorf("%s: a case of %d bytes must be marked Heavy", c.Name, n)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".build-"+c.Name {
			t.Errorf("%s: scratch directory %s left behind", c.Name, e.Name())
		}
	}
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	return took, n
}

func TestCasesAreDeterministic(t *testing.T) {
	if raceEnabled {
		t.Skip("writes every case twice, single-threaded: run without -race (.ci/run)")
	}
	t.Parallel()
	for _, c := range append(Cases(), Controls()...) {
		if c.Heavy {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			a, b := t.TempDir(), t.TempDir()
			pa, err := c.Write(t.Context(), a)
			if errors.Is(err, errors.ErrUnsupported) {
				t.Skip(err)
			}
			if err != nil {
				t.Fatal(err)
			}
			pb, err := c.Write(t.Context(), b)
			if err != nil {
				t.Fatal(err)
			}
			ta, tb := snapshot(t, pa), snapshot(t, pb)
			if len(ta) != len(tb) {
				t.Fatalf("first write has %d files, second %d", len(ta), len(tb))
			}
			for name, da := range ta {
				if !bytes.Equal(da, tb[name]) {
					t.Errorf("%s differs between two writes", name)
				}
			}
			// Writing again over the first result gives the same bytes.
			if _, err := c.Write(t.Context(), a); err != nil {
				t.Fatal(err)
			}
			for name, da := range snapshot(t, pa) {
				if !bytes.Equal(da, ta[name]) {
					t.Errorf("%s differs after a rewrite in place", name)
				}
			}
		})
	}
}

// snapshot maps every file, link and special file under root (or root
// itself, when a file) to its content, link target or mode.
func snapshot(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		switch {
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			out[rel] = b
			return err
		case d.Type()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			out[rel] = []byte("-> " + l)
			return err
		case !d.IsDir():
			out[rel] = []byte(d.Type().String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHeavyCases writes the heavy cases, and the compression bombs, one at a
// time (the test is not parallel) while sampling the heap: generation
// streams, so the heap stays far below the size of what is written.
func TestHeavyCases(t *testing.T) {
	if testing.Short() || raceEnabled {
		// Generation is single-threaded: the race detector would only
		// slow it tenfold. .ci/run runs this test without -race too.
		t.Skip("writes hundreds of MiB; skipped under -short and -race")
	}
	const bound = 64 << 20
	dir := t.TempDir()
	for _, c := range Cases() {
		if !c.Heavy && !strings.HasSuffix(c.Name, "-bomb") {
			continue
		}
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var peak atomic.Uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			var ms runtime.MemStats
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for {
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > peak.Load() {
					peak.Store(ms.HeapAlloc)
				}
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
		}()
		took, n := checkWrite(t, c, dir)
		close(stop)
		<-done
		t.Logf("%s: %d bytes in %v, peak heap %d KiB (%d KiB before)", c.Name, n, took.Round(time.Millisecond), peak.Load()>>10, base.HeapAlloc>>10)
		if peak.Load() > bound {
			t.Errorf("%s: peak heap %d bytes, over %d", c.Name, peak.Load(), bound)
		}
	}
}

func TestWriteStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, name := range []string{"yaml-scalar-200mb", "tar-bomb", "manifest-huge", "xpkg-outer-tar-bomb"} {
		c, _ := Lookup(name)
		start := time.Now()
		_, err := c.Write(ctx, t.TempDir())
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Write with a cancelled context returned %v, want context.Canceled", name, err)
		}
		t.Logf("%s: returned after %v", name, time.Since(start))
	}
}

func TestAccepts(t *testing.T) {
	t.Parallel()
	c := Case{
		Expect:       limit(LimitDecompressedSize),
		Alternatives: []Outcome{class(ClassMalformed)},
	}
	tests := []struct {
		name string
		got  Outcome
		want bool
	}{
		{"expected limit", limit(LimitDecompressedSize), true},
		{"limit unknown to the caller", limit(LimitAny), true},
		{"other limit", limit(LimitEntryCount), false},
		{"alternative", class(ClassMalformed), true},
		{"other class", class(ClassNotFound), false},
		{"success", class(ClassOK), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Accepts(tt.got); got != tt.want {
				t.Errorf("Accepts(%v) = %v, want %v", tt.got, got, tt.want)
			}
		})
	}
	if got := c.ExitCodes(); len(got) != 1 || got[0] != 2 {
		t.Errorf("ExitCodes() = %v, want [2]", got)
	}
	if _, ok := Lookup("no-such-case"); ok {
		t.Error("Lookup found a case that does not exist")
	}
}

func TestStringers(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want string }{
		{KindOCILayoutTar.String(), "oci-layout-tar"},
		{SourceKind(99).String(), "SourceKind(99)"},
		{ClassDigestMismatch.String(), "digest-mismatch"},
		{Class(-1).String(), "Class(-1)"},
		{LimitIndexDepth.String(), "index-depth"},
		{Limit(99).String(), "Limit(99)"},
		{limit(LimitAliases).String(), "limit-exceeded(aliases)"},
		{rule(ClassParseError, "XP001").String(), "parse-error[XP001]"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
