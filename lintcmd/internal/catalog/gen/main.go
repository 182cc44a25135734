// Command gen writes linter/RULES.md, the catalog of the rules: the one
// list of every rule the module ships (Rules), rendered by package
// catalog. It is the program that has every rule, so the layers below
// need not import the ones above them (package catalog, under linter,
// imports no xpkg/deps).
//
//	go run ./lintcmd/internal/catalog/gen -o linter/RULES.md   (from the repository root)
package main

import (
	"flag"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/xpkgkit/xpkgkit/lintcmd/internal/catalog"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apiserver"
	"github.com/xpkgkit/xpkgkit/linter/changerules"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/linter/rules"
)

// Rules returns the rules the catalog describes, in its order: the
// linter's built-in rules (package rules), with the API-server rules of
// linter/apiserver (XP420-XP423, package rules that xpkg-lint
// installs) after the linter's other XP4xx rules, then the dependency
// graph rules of xpkg/deps (XP6xx, graph rules), then the API change
// rules of linter/apidiff (XP701-XP749, change rules).
func Rules() []*linter.Rule {
	builtin := rules.Builtin()
	at := 0
	for i, r := range builtin {
		if strings.HasPrefix(r.ID, "XP4") && r.ID < "XP420" {
			at = i + 1
		}
	}
	all := slices.Insert(builtin, at, apiserver.Rules()...)
	return append(append(all, graphrules.Rules()...), changerules.Rules()...)
}

func main() {
	out := flag.String("o", "RULES.md", "file to write")
	flag.Parse()
	md := append(catalog.Markdown(Rules()), '\n')
	if err := os.WriteFile(*out, md, 0o644); err != nil {
		log.Fatal(err)
	}
}
