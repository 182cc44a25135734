package xpkg_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// hostileHeapBound is the peak heap (runtime.MemStats.HeapInuse, sampled
// every few milliseconds while one case is opened and linted, cases run one
// at a time) that no hostile case may exceed with the default limits. It is
// the bound for the CLI's resident set; the heap is a part of it.
const hostileHeapBound = 256 << 20

// hostileOptions are the options of Open in TestHostile: the default
// limits, except under the race detector, which makes the work a limit
// allows 10 to 20 times slower. There the bombs stop at tighter limits (the
// same limits, so the same outcome classes): 128 MiB per layer, 64 MiB per
// file, 10 000 documents.
func hostileOptions() []xpkg.Option {
	if !raceEnabled {
		return nil
	}
	var l xpkg.Limits // zero fields take their defaults
	l.OCI.MaxLayerSize = 128 << 20
	l.OCI.MaxImageSize = 256 << 20
	l.OCI.MaxFileSize = 64 << 20
	l.Parser.MaxDocuments = 10_000
	return []xpkg.Option{xpkg.WithLimits(l)}
}

// hostileDeadline is how long one case may take before it counts as a hang.
func hostileDeadline() time.Duration {
	if raceEnabled {
		return 90 * time.Second
	}
	return 30 * time.Second
}

// TestHostile runs every case of the hostile corpus (and the controls)
// through Open and Lint with the default limits, and asserts that nothing
// panics or hangs, that the outcome is one the case accepts, and that the
// peak heap stays under hostileHeapBound. Heavy cases are skipped under
// -short.
//
// The cases run one after another, not in parallel, so that each one's
// heap peak is its own.
func TestHostile(t *testing.T) {
	cases := append(hostile.Cases(), hostile.Controls()...)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Heavy && testing.Short() {
				t.Skipf("heavy case (%d bytes on disk) skipped under -short", c.Size)
			}
			dir := t.TempDir()
			src, err := c.Write(t.Context(), dir)
			if err != nil {
				t.Fatalf("writing the case: %v", err)
			}
			got, detail, peak := runHostile(t, src)
			detail = shorten(detail)
			t.Logf("%s: got %s (peak heap %d MiB): %s", c.Kind, got, peak>>20, detail)
			if !c.Accepts(got) {
				t.Errorf("outcome %s, want %s (or one of %v)\n%s", got, c.Expect, c.Alternatives, detail)
			}
			if peak > hostileHeapBound {
				t.Errorf("peak heap %d MiB, want at most %d MiB", peak>>20, hostileHeapBound>>20)
			}
		})
	}
}

// runHostile opens and lints src, returning the outcome, a description of
// what happened, and the peak heap in use meanwhile. A panic, a hang or an
// error of no known class fails t.
func runHostile(t *testing.T, src string) (hostile.Outcome, string, uint64) {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	stop := sampleHeap()

	ctx, cancel := context.WithTimeout(t.Context(), hostileDeadline())
	defer cancel()
	type result struct {
		pkg   *xpkg.Package
		res   *linter.Result
		err   error
		panic any
		stack []byte
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r.panic, r.stack = p, debug.Stack()
			}
			done <- r
		}()
		r.pkg, r.err = xpkg.Open(ctx, src, hostileOptions()...)
		if r.err == nil {
			r.res, r.err = r.pkg.Lint(ctx)
		}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(hostileDeadline() + 10*time.Second):
		t.Fatalf("Open+Lint did not return within %v of its context's deadline: hang", hostileDeadline())
	}
	peak := stop()
	if r.panic != nil {
		t.Fatalf("panic: %v\n%s", r.panic, r.stack)
	}
	if errors.Is(r.err, context.DeadlineExceeded) {
		t.Fatalf("Open+Lint ran past %v (a hang or super-linear work): %v", hostileDeadline(), r.err)
	}
	got, detail, ok := hostileOutcome(r.pkg, r.res, r.err)
	if !ok {
		t.Errorf("error of no known class (untyped): %v", r.err)
	}
	return got, detail, peak
}

// sampleHeap samples HeapInuse every 2 ms until the returned function is
// called, which returns the peak.
func sampleHeap() func() uint64 {
	var peak atomic.Uint64
	read := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > peak.Load() {
			peak.Store(ms.HeapInuse)
		}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				read()
			}
		}
	})
	return func() uint64 {
		close(quit)
		wg.Wait()
		read()
		return peak.Load()
	}
}

// hostileOutcome reduces what Open and Lint returned to a hostile.Outcome.
// An error of Open maps to the class its sentinel says (limits first, since
// a limit error may also carry a descriptor); a package whose documents did
// not all parse is a parse error (the rule that reports the first one);
// otherwise error diagnostics make a lint error. ok is false for an error
// that matches no class.
func hostileOutcome(pkg *xpkg.Package, res *linter.Result, err error) (out hostile.Outcome, detail string, ok bool) {
	if err != nil {
		c, l, ok := errorClass(err)
		return hostile.Outcome{Class: c, Limit: l}, err.Error(), ok
	}
	var first *linter.Diagnostic
	for i, d := range res.Diagnostics {
		if d.Severity == linter.SeverityError {
			first = &res.Diagnostics[i]
			break
		}
	}
	if len(pkg.Errors) > 0 {
		// The rule reporting a document error is the first error
		// diagnostic of XP001/XP002/XP005 kind.
		rule := ""
		for _, d := range res.Diagnostics {
			if d.RuleID == "XP001" || d.RuleID == "XP002" || d.RuleID == "XP005" {
				rule = d.RuleID
				break
			}
		}
		return hostile.Outcome{Class: hostile.ClassParseError, Rule: rule}, pkg.Errors[0].Error(), true
	}
	if first != nil {
		return hostile.Outcome{Class: hostile.ClassLintError, Rule: first.RuleID}, fmt.Sprintf("%d diagnostics, first error: %s", len(res.Diagnostics), first), true
	}
	return hostile.Outcome{Class: hostile.ClassOK}, fmt.Sprintf("%d diagnostics, none an error", len(res.Diagnostics)), true
}

// errorClass maps an error of Open to its hostile class and, for limits,
// which limit.
func errorClass(err error) (hostile.Class, hostile.Limit, bool) {
	var ol *oci.LimitError
	var pl *parser.LimitError
	var xl *xpkg.LimitError
	switch {
	case errors.As(err, &ol):
		return hostile.ClassLimitExceeded, ociLimit(ol.Name), true
	case errors.As(err, &pl):
		return hostile.ClassLimitExceeded, parserLimit(pl.Limit), true
	case errors.As(err, &xl):
		return hostile.ClassLimitExceeded, hostile.LimitStreamSize, true
	case errors.Is(err, oci.ErrLimit), errors.Is(err, parser.ErrLimit), errors.Is(err, xpkg.ErrLimit):
		return hostile.ClassLimitExceeded, hostile.LimitAny, true
	case errors.Is(err, oci.ErrDigestMismatch):
		return hostile.ClassDigestMismatch, hostile.LimitAny, true
	case errors.Is(err, oci.ErrSizeMismatch):
		return hostile.ClassSizeMismatch, hostile.LimitAny, true
	case errors.Is(err, oci.ErrUnsafePath):
		return hostile.ClassBadPath, hostile.LimitAny, true
	case errors.Is(err, oci.ErrNotFound), errors.Is(err, xpkg.ErrNoPackageYAML), errors.Is(err, fs.ErrNotExist),
		errors.Is(err, oci.ErrNoMatchingPlatform):
		return hostile.ClassNotFound, hostile.LimitAny, true
	case errors.Is(err, oci.ErrMalformed), errors.Is(err, oci.ErrInvalidDescriptor), errors.Is(err, oci.ErrEmptyIndex),
		errors.Is(err, oci.ErrDuplicateEntry), errors.Is(err, oci.ErrNotRegularFile), errors.Is(err, oci.ErrInvalidWhiteout),
		errors.Is(err, oci.ErrUnsupportedMediaType), errors.Is(err, oci.ErrUnknownFormat),
		errors.Is(err, xpkg.ErrMultipleBaseLayers), errors.Is(err, xpkg.ErrUnknownSource),
		errors.Is(err, parser.ErrSyntax):
		return hostile.ClassMalformed, hostile.LimitAny, true
	}
	return hostile.ClassMalformed, hostile.LimitAny, false
}

// ociLimit maps an oci.Limits field to the hostile limit it implements.
func ociLimit(name string) hostile.Limit {
	switch name {
	case "MaxManifestSize", "MaxConfigSize":
		return hostile.LimitManifestSize
	case "MaxIndexDepth":
		return hostile.LimitIndexDepth
	case "MaxLayers":
		return hostile.LimitLayerCount
	case "MaxLayerSize", "MaxImageSize", "MaxZstdWindow":
		return hostile.LimitDecompressedSize
	case "MaxTarEntries":
		return hostile.LimitEntryCount
	case "MaxFileSize":
		return hostile.LimitStreamSize
	}
	// MaxBlobSize (a compressed blob's claimed size) has no hostile
	// counterpart.
	return hostile.LimitAny
}

// parserLimit maps a parser.Limits field to the hostile limit it implements.
func parserLimit(name string) hostile.Limit {
	switch name {
	case "MaxDocumentBytes":
		return hostile.LimitDocumentSize
	case "MaxTotalBytes":
		return hostile.LimitStreamSize
	case "MaxDocuments":
		return hostile.LimitDocumentCount
	case "MaxDepth":
		return hostile.LimitDepth
	case "MaxAliasExpansion":
		return hostile.LimitAliases
	}
	return hostile.LimitAny
}

// shorten cuts s to a readable length for the test log.
func shorten(s string) string {
	const max = 400
	if len(s) <= max {
		return s
	}
	return s[:max/2] + " … " + s[len(s)-max/2:]
}
