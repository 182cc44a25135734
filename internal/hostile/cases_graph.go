package hostile

import (
	"bufio"
	"context"
	"fmt"
)

// graphDepsCases are the dependency graph cases of the graph's footprint
// and cost beyond one rule's worst case (see DepsCases).
func graphDepsCases() []DepsCase {
	return []DepsCase{
		depsCase("deps-cost-composed-distinct",
			"Issue 30's deps regression: 10 Configurations, each with 4 Compositions of 10,000 resources composing "+
				"distinct types nothing serves (400,000 composed types in all, 28 MB of YAML): 400,000 XP607 findings, "+
				"capped. A dependency's summary parsed each Composition a second time with the full YAML parser to "+
				"locate every composed entry (8.5 s of CPU through xpkg-lint on a loaded 2-core machine, 3.7 s "+
				"after); it now reads the content the parse read and places a dependency's findings at "+
				"their Composition with the field path.",
			[]string{"XP607"}, rule(ClassLintError, "XP607"), 30_000_000, true,
			rootOf(10, func(i int) depEntry { return depEntry{"Configuration", pkgName("distinct", i), ">=v1.0.0"} }),
			func(ctx context.Context, dd string) error {
				return compositionPackages(ctx, dd, "distinct", 10, 4, 10_000, func(w *bufio.Writer, c, j int) {
					fmt.Fprintf(w, "  - name: r%d\n    base:\n      apiVersion: g%d.example.org/v1\n      kind: K%d\n", j, c, j)
				}, false)
			}),
	}
}
