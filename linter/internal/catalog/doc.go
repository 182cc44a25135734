// Package catalog renders the rule catalog, linter/RULES.md, from the rules'
// own fields, so the documentation cannot drift from the code. The
// generator in ./gen writes the file (go generate ./linter) and a test
// fails when it is out of date.
package catalog
