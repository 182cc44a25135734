package apidiff_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apidiff"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// modifications make the "new" copy of a corpus package: "release" edits
// a few definitions as a release would (a type changed, an enum value
// dropped, a field added); "every" changes every definition (a type in
// each), so that none is skipped as byte-equal: the worst case.
var modifications = map[string]func(string) string{
	"release": func(s string) string {
		docs := strings.Split(s, "\n---\n")
		for i := 0; i < len(docs); i += 50 {
			docs[i] = strings.Replace(docs[i], "type: string", "type: integer", 1)
			docs[i] = strings.Replace(docs[i], "type: boolean", "type: string", 1)
		}
		return strings.Join(docs, "\n---\n")
	},
	"every": func(s string) string {
		return strings.ReplaceAll(s, "type: boolean", "type: string")
	},
}

func readCorpus(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(testcorpus.Path(tb, name), "package.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// BenchmarkDiffCorpus diffs the two largest corpus providers against
// modified copies, and lints both packages for comparison (the issue's
// budget: a diff costs no more than linting both). Packages are parsed
// outside the timed loop; each Diff decodes the definitions it compares.
func BenchmarkDiffCorpus(b *testing.B) {
	for _, name := range []string{"provider-aws", "provider-upjet-aws-monolith"} {
		text := readCorpus(b, name)
		oldPkg := parse(b, "old/package.yaml", text)
		for _, mod := range []string{"release", "every"} {
			newPkg := parse(b, "new/package.yaml", modifications[mod](text))
			b.Run(name+"/diff-"+mod, func(b *testing.B) {
				ctx := context.Background()
				b.ReportAllocs()
				start, n := cpuTime(), 0
				for b.Loop() {
					n++
					res, err := apidiff.Diff(ctx, oldPkg, newPkg, apidiff.WithVersions("v1.0.0", "v1.1.0"))
					if err != nil {
						b.Fatal(err)
					}
					if len(res.Changes) == 0 {
						b.Fatal("no changes")
					}
				}
				b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(n), "cpu-ms/op")
			})
		}
		// Linting both as xpkg-lint does: parse and lint each.
		b.Run(name+"/lint-both", func(b *testing.B) {
			ctx := context.Background()
			texts := []string{text, modifications["release"](text)}
			b.ReportAllocs()
			start, n := cpuTime(), 0
			for b.Loop() {
				n++
				for _, s := range texts {
					p, err := parser.Parse(ctx, strings.NewReader(s), parser.WithFile("package.yaml"))
					if err != nil {
						b.Fatal(err)
					}
					if _, err := linter.Lint(ctx, p, linter.WithRuleSet(rules.Builtin()...)); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(n), "cpu-ms/op")
		})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
