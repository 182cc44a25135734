package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/lintcmd/internal/catalog"
	"github.com/xpkgkit/xpkgkit/linter"
)

var update = flag.Bool("update", false, "rewrite linter/RULES.md")

var rulesMD = filepath.Join("..", "..", "..", "..", "linter", "RULES.md")

// TestRulesMDInSync fails when RULES.md differs from what the rules say.
func TestRulesMDInSync(t *testing.T) {
	want := append(catalog.Markdown(Rules()), '\n')
	if *update {
		if err := os.WriteFile(rulesMD, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(rulesMD)
	if err != nil {
		t.Fatalf("%v: run go generate ./linter", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("linter/RULES.md is out of date: run go generate ./linter (or go test ./lintcmd/internal/catalog/gen -update)")
	}
}

// TestRuleSetValid checks the whole catalog as one rule set: no two rules
// share an ID or a name.
func TestRuleSetValid(t *testing.T) {
	t.Parallel()
	if err := linter.Validate(Rules()); err != nil {
		t.Fatal(err)
	}
}

func TestMarkdownDescribesEveryRule(t *testing.T) {
	t.Parallel()
	md := string(catalog.Markdown(Rules()))
	for _, r := range Rules() {
		for _, s := range []string{"## " + r.ID + " " + r.Name, strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(r.Title()), r.Severity.String()} {
			if !strings.Contains(md, s) {
				t.Errorf("catalog lacks %q for %s", s, r.ID)
			}
		}
	}
}
