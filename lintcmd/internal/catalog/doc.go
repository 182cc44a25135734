// Package catalog renders the rule catalog, linter/RULES.md, from the rules'
// own fields, so the documentation cannot drift from the code. The
// generator in ./gen assembles the one list of rules (it may import
// xpkg/deps, which this package, below it, must not) and writes the file
// (go generate ./linter); its test fails when the file is out of date.
package catalog
