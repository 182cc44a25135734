package hostile

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// DepsCase is a hostile dependency graph: a root package and a directory
// of its dependencies laid out as deps.NewDirSource reads it
// (DIR/<registry>/<repository>/<tag>.yaml). Write writes both and returns
// the root's path; DepsDir says where the dependencies are. The CLI runs
// it as xpkg-lint --deps --offline --deps-from DepsDir(dir) ROOT.
type DepsCase struct {
	Case
	// Rules are the graph rules (XP6xx) the case gives the most work for
	// its size; a graph rule that no case names fails
	// TestDepsWorstCasesCoverEveryRule.
	Rules []string
}

// DepsDir returns the directory of the dependencies Write puts in dir.
func (c DepsCase) DepsDir(dir string) string { return filepath.Join(dir, c.Name+".deps") }

// depsReg is the registry and organisation of every package of the cases.
const depsReg = "xpkg.example.org/acme/"

// depEntry is one dependsOn entry.
type depEntry struct {
	kind, pkg, version string
}

// writeMeta writes a meta document of the given kind and name with the
// entries of next (called until it returns false) as spec.dependsOn, and
// spec.crossplane.version when xp is not empty.
func writeMeta(w io.Writer, kind, name, xp string, next func(yield func(depEntry) bool)) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "apiVersion: meta.pkg.crossplane.io/v1\nkind: %s\nmetadata:\n  name: %s\nspec:\n", kind, name)
	if xp != "" {
		fmt.Fprintf(bw, "  crossplane:\n    version: %q\n", xp)
	}
	first := true
	if next != nil {
		next(func(d depEntry) bool {
			if first {
				bw.WriteString("  dependsOn:\n")
				first = false
			}
			fmt.Fprintf(bw, "  - apiVersion: pkg.crossplane.io/v1\n    kind: %s\n    package: %s\n    version: %q\n", d.kind, d.pkg, d.version)
			return true
		})
	}
	return bw.Flush()
}

// writeDepFile creates path (and its directory) and writes it with fn.
func writeDepFile(path string, fn func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// depPath is where a dependency's tag goes in a case's dependency dir.
func depPath(depsDir, pkg, tag string) string {
	return filepath.Join(depsDir, filepath.FromSlash(pkg), tag+".yaml")
}

// depsCase makes a DepsCase whose root is written by root and whose
// dependencies by deps (given the dependency directory).
func depsCase(name, desc string, rules []string, expect Outcome, size int64, heavy bool,
	root func(io.Writer) error, deps func(ctx context.Context, depsDir string) error) DepsCase {
	c := DepsCase{Rules: rules, Case: Case{
		Name: name, Description: desc, Kind: KindPackageYAML, Expect: expect, Size: size, Heavy: heavy,
	}}
	c.Write = func(ctx context.Context, dir string) (string, error) {
		dd := c.DepsDir(dir)
		if err := os.MkdirAll(dd, 0o755); err != nil {
			return "", err
		}
		if err := deps(ctx, dd); err != nil {
			return "", err
		}
		p := filepath.Join(dir, name+".yaml")
		if err := writeDepFile(p, root); err != nil {
			return "", err
		}
		return p, nil
	}
	return c
}

// pkgName is the name of the i-th package of a case's family.
func pkgName(family string, i int) string { return fmt.Sprintf("%s%s-%d", depsReg, family, i) }

// rootOf returns a root Configuration whose dependsOn has n entries, the
// i-th made by entry.
func rootOf(n int, entry func(i int) depEntry) func(io.Writer) error {
	return func(w io.Writer) error {
		return writeMeta(w, "Configuration", "root", "", func(yield func(depEntry) bool) {
			for i := range n {
				if !yield(entry(i)) {
					return
				}
			}
		})
	}
}

// plainPackages writes n packages of a family, each at tag, of the kind
// given, each with the crossplane constraint xp ("" for none).
func plainPackages(ctx context.Context, depsDir, family, kind, tag, xp string, n int) error {
	for i := range n {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		name := fmt.Sprintf("%s-%d", family, i)
		if err := writeDepFile(depPath(depsDir, pkgName(family, i), tag), func(w io.Writer) error {
			return writeMeta(w, kind, name, xp, nil)
		}); err != nil {
			return err
		}
	}
	return nil
}

// Sizes of the dependency cases: the graph's default limits are 2,000
// packages and 50,000 dependsOn entries.
const (
	depsEntries  = 10_000 // entries of a wide root (see DepsCases)
	depsPackages = 1_990  // packages of a wide graph
)

// DepsCases returns the dependency graph cases: for each graph rule, the
// graph that gives it the most work under the resolver's default limits,
// and the shapes of issue 17's defects 4, 6, 8 and 13. A wide root has
// 10,000 entries (each 10 times the findings the cap keeps): a meta
// document of 40,000 counts past the parser's MaxNodes, and one of 20,000
// (2.4 MB) costs the package linter a few hundred milliseconds per rule
// that locates fields in it, which delays its answer to SIGINT (the
// package linter's cost, not the graph's).
func DepsCases() []DepsCase {
	return append([]DepsCase{
		depsCase("deps-cost-unresolved",
			"A root of 10,000 dependsOn entries naming 1,990 packages that no source holds, each named about 5 times: "+
				"10,000 XP601 findings, which the graph rules' cap (linter.DefaultMaxDiagnostics per rule, and one that "+
				"counts the rest) keeps to 1,001.",
			[]string{"XP601"}, rule(ClassLintError, "XP601"), 5_000_000, true,
			rootOf(depsEntries, func(i int) depEntry {
				return depEntry{"Provider", pkgName("missing", i%depsPackages), ">=v1.0.0"}
			}),
			func(ctx context.Context, dd string) error {
				return os.MkdirAll(filepath.Join(dd, "xpkg.example.org"), 0o755)
			}),
		depsCase("deps-cost-version-choice",
			"Issue 17 defect 6: 3,000 dependsOn entries on one package, each a constraint of 32 '||' alternatives (the most "+
				"semver v3.5.0 reads, from Crossplane v2.4; the case had 100, which v2.4 refuses unread) that no tag "+
				"satisfies, against 10,000 tags. Checked tag by tag that is about a billion comparisons (at 100 "+
				"alternatives: killed at 45 s, 29 s more after SIGINT); each distinct constraint is now parsed and checked "+
				"once, and the comparisons are bounded by Limits.MaxVersionChecks: a *limit.Error, exit 2, at every line.",
			[]string{"XP601"}, limit(LimitAny), 5_000_000, true,
			rootOf(3000, func(i int) depEntry {
				var b strings.Builder
				fmt.Fprintf(&b, "=9.%d.0", i)
				for k := range 31 {
					fmt.Fprintf(&b, "||=8.0.%d", k)
				}
				return depEntry{"Provider", depsReg + "provider-tags", b.String()}
			}),
			func(ctx context.Context, dd string) error {
				for i := range 10_000 {
					if i%256 == 0 {
						if err := ctx.Err(); err != nil {
							return err
						}
					}
					if err := writeDepFile(depPath(dd, depsReg+"provider-tags", fmt.Sprintf("v1.%d.%d", i/100, i%100)), func(w io.Writer) error {
						return writeMeta(w, "Provider", "provider-tags", "", nil)
					}); err != nil {
						return err
					}
				}
				return nil
			}),
		depsCase("deps-cost-conflict",
			"A root of 10,000 dependsOn entries on one package, alternately '=v1.0.0' and '=v2.0.0': no tag satisfies "+
				"both, so each entry is an XP602 finding listing the constraints: 10,000 findings, capped.",
			[]string{"XP602"}, rule(ClassLintError, "XP602"), 5_000_000, true,
			rootOf(depsEntries, func(i int) depEntry {
				return depEntry{"Provider", depsReg + "provider-c", fmt.Sprintf("=v%d.0.0", 1+i%2)}
			}),
			func(ctx context.Context, dd string) error {
				for _, tag := range []string{"v1.0.0", "v2.0.0"} {
					if err := writeDepFile(depPath(dd, depsReg+"provider-c", tag), func(w io.Writer) error {
						return writeMeta(w, "Provider", "provider-c", "", nil)
					}); err != nil {
						return err
					}
				}
				return nil
			}),
		depsCase("deps-cost-cycles",
			"Issue 17 defect 4: a chain of 1,990 Configurations, each depending on the next and on 23 before it: about "+
				"46,000 cycles, which a depth-first search kept each with its full path (675 MiB, 50 s, 59 MB of output). "+
				"The cycles are found as strongly connected components (one here), linear in the graph, and reported "+
				"one per component with its size.",
			[]string{"XP603"}, rule(ClassLintError, "XP603"), 6_000_000, true,
			rootOf(1, func(int) depEntry { return depEntry{"Configuration", pkgName("chain", 0), ">=v1.0.0"} }),
			func(ctx context.Context, dd string) error {
				for i := range depsPackages {
					if i%128 == 0 {
						if err := ctx.Err(); err != nil {
							return err
						}
					}
					name := fmt.Sprintf("chain-%d", i)
					err := writeDepFile(depPath(dd, pkgName("chain", i), "v1.0.0"), func(w io.Writer) error {
						return writeMeta(w, "Configuration", name, "", func(yield func(depEntry) bool) {
							if i+1 < depsPackages && !yield(depEntry{"Configuration", pkgName("chain", i+1), ">=v1.0.0"}) {
								return
							}
							for k := 1; k <= 23 && i-k >= 0; k++ {
								if !yield(depEntry{"Configuration", pkgName("chain", i-k), ">=v1.0.0"}) {
									return
								}
							}
						})
					})
					if err != nil {
						return err
					}
				}
				return nil
			}),
		depsCase("deps-cost-kind",
			"A root of 10,000 entries that declare 1,990 Configurations to be Providers: 10,000 XP604 findings, capped.",
			[]string{"XP604"}, rule(ClassLintError, "XP604"), 5_000_000, true,
			rootOf(depsEntries, func(i int) depEntry {
				return depEntry{"Provider", pkgName("cfg", i%depsPackages), ">=v1.0.0"}
			}),
			func(ctx context.Context, dd string) error {
				return plainPackages(ctx, dd, "cfg", "Configuration", "v1.0.0", "", depsPackages)
			}),
		depsCase("deps-cost-crossplane-version",
			"1,990 Providers that each exclude the target Crossplane version (crossplane.version '<v1.0.0', linted at "+
				"v2.0.0), each constraint parsed once: 1,990 XP605 findings, capped.",
			[]string{"XP605"}, rule(ClassLintError, "XP605"), 1_000_000, true,
			rootOf(depsPackages, func(i int) depEntry { return depEntry{"Provider", pkgName("old", i), ">=v1.0.0"} }),
			func(ctx context.Context, dd string) error {
				return plainPackages(ctx, dd, "old", "Provider", "v1.0.0", "<v1.0.0", depsPackages)
			}),
		depsCase("deps-cost-composition-function",
			"10 Configurations, each with 4 Compositions of 5,000 pipeline steps naming Functions the graph does not "+
				"install, and 100 Functions the graph does: 200,000 XP606 findings, capped, each message naming the "+
				"graph's Functions (at most 8 of them).",
			[]string{"XP606"}, rule(ClassLintError, "XP606"), 20_000_000, true,
			rootOf(110, func(i int) depEntry {
				if i < 10 {
					return depEntry{"Configuration", pkgName("steps", i), ">=v1.0.0"}
				}
				return depEntry{"Function", pkgName("fn", i-10), ">=v1.0.0"}
			}),
			func(ctx context.Context, dd string) error {
				if err := plainPackages(ctx, dd, "fn", "Function", "v1.0.0", "", 100); err != nil {
					return err
				}
				return compositionPackages(ctx, dd, "steps", 10, 4, 5000, func(w *bufio.Writer, c, j int) {
					fmt.Fprintf(w, "  - step: s%d\n    functionRef:\n      name: fn-missing-%d\n", j, j)
				}, true)
			}),
		depsCase("deps-cost-composed-types",
			"Issue 17 defects 4 and 13: 10 Configurations, 9 of them composing 40,000 ConfigMaps each (the summaries "+
				"kept every base: 620 MiB, 88 s) and one composing 40,000 types nothing serves (40,000 XP607 findings, "+
				"22 MB of JSON). A dependency's summary keeps one composed type per Composition and type and no base; "+
				"the findings are capped.",
			[]string{"XP607"}, rule(ClassLintError, "XP607"), 30_000_000, true,
			rootOf(10, func(i int) depEntry { return depEntry{"Configuration", pkgName("composer", i), ">=v1.0.0"} }),
			func(ctx context.Context, dd string) error {
				return compositionPackages(ctx, dd, "composer", 10, 4, 10_000, func(w *bufio.Writer, c, j int) {
					if c == 0 {
						fmt.Fprintf(w, "  - name: r%d\n    base:\n      apiVersion: nothing.example.org/v1\n      kind: K%d\n", j, j)
						return
					}
					fmt.Fprintf(w, "  - name: r%d\n    base:\n      apiVersion: v1\n      kind: ConfigMap\n", j)
				}, false)
			}),
		depsCase("deps-cost-unsettled",
			"Issue 17 defect 8, 900 times: the root needs p-i '>=v1.0.0'; p-i v2.0.0 needs q-i, and q-i needs p-i "+
				"'<v2.0.0'. Each walk flips every p-i, and the walk stopped on a graph lacking the q-i, with no finding "+
				"and exit 0. The resolver stops when a selection repeats and reports XP608 naming the packages that flip.",
			[]string{"XP608"}, rule(ClassLintError, "XP608"), 1_000_000, true,
			rootOf(900, func(i int) depEntry { return depEntry{"Configuration", pkgName("p", i), ">=v1.0.0"} }),
			func(ctx context.Context, dd string) error {
				for i := range 900 {
					if i%128 == 0 {
						if err := ctx.Err(); err != nil {
							return err
						}
					}
					p, q := pkgName("p", i), pkgName("q", i)
					files := []struct {
						path string
						fn   func(io.Writer) error
					}{
						{depPath(dd, p, "v1.0.0"), func(w io.Writer) error { return writeMeta(w, "Configuration", "p", "", nil) }},
						{depPath(dd, p, "v2.0.0"), func(w io.Writer) error {
							return writeMeta(w, "Configuration", "p", "", func(yield func(depEntry) bool) { yield(depEntry{"Configuration", q, ">=v1.0.0"}) })
						}},
						{depPath(dd, q, "v1.0.0"), func(w io.Writer) error {
							return writeMeta(w, "Configuration", "q", "", func(yield func(depEntry) bool) { yield(depEntry{"Configuration", p, "<v2.0.0"}) })
						}},
					}
					for _, f := range files {
						if err := writeDepFile(f.path, f.fn); err != nil {
							return err
						}
					}
				}
				return nil
			}),
	}, graphDepsCases()...)
}

// compositionPackages writes n Configurations of a family, each with
// comps Compositions of per items: a pipeline of steps (pipeline) or
// spec.resources, each item written by item(w, package, index).
func compositionPackages(ctx context.Context, dd, family string, n, comps, per int, item func(w *bufio.Writer, pkg, j int), pipeline bool) error {
	for i := range n {
		name := fmt.Sprintf("%s-%d", family, i)
		err := writeDepFile(depPath(dd, pkgName(family, i), "v1.0.0"), func(w io.Writer) error {
			if err := writeMeta(w, "Configuration", name, "", nil); err != nil {
				return err
			}
			bw := bufio.NewWriter(w)
			for c := range comps {
				if err := ctx.Err(); err != nil {
					return err
				}
				fmt.Fprintf(bw, "---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c%d\nspec:\n"+
					"  compositeTypeRef:\n    apiVersion: x.example.org/v1\n    kind: XThing\n", c)
				if pipeline {
					bw.WriteString("  mode: Pipeline\n  pipeline:\n")
				} else {
					bw.WriteString("  resources:\n")
				}
				for j := range per {
					item(bw, i, j)
				}
			}
			return bw.Flush()
		})
		if err != nil {
			return err
		}
	}
	return nil
}
