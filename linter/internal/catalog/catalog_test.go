package catalog_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/internal/catalog"
)

var update = flag.Bool("update", false, "rewrite linter/RULES.md")

var rulesMD = filepath.Join("..", "..", "RULES.md")

// TestRulesMDInSync fails when RULES.md differs from what the rules say.
func TestRulesMDInSync(t *testing.T) {
	want := append(catalog.Markdown(catalog.Rules()), '\n')
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
		t.Fatalf("linter/RULES.md is out of date: run go generate ./linter (or go test ./linter/internal/catalog -update)")
	}
}

// TestRuleSetValid checks the whole catalog as one rule set: no two rules
// share an ID or a name.
func TestRuleSetValid(t *testing.T) {
	t.Parallel()
	if err := linter.Validate(catalog.Rules()); err != nil {
		t.Fatal(err)
	}
}

func TestMarkdownDescribesEveryRule(t *testing.T) {
	t.Parallel()
	md := string(catalog.Markdown(catalog.Rules()))
	for _, r := range catalog.Rules() {
		for _, s := range []string{"## " + r.ID + " " + r.Name, strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(r.Title()), r.Severity.String()} {
			if !strings.Contains(md, s) {
				t.Errorf("catalog lacks %q for %s", s, r.ID)
			}
		}
	}
}

func ExampleMarkdown() {
	r := &linter.Rule{
		ID: "ACME1", Name: "team-label", Severity: linter.SeverityWarning,
		Doc: "Objects need a team label\n\nEvery object names the team that owns it.",
		Run: func(*linter.Pass) error { return nil },
	}
	md := catalog.Markdown([]*linter.Rule{r})
	os.Stdout.Write(md[bytes.Index(md, []byte("## ACME1")):])
	// Output:
	// ## ACME1 team-label
	//
	// **Objects need a team label** · severity `warning` · kinds: all
	//
	// Every object names the team that owns it.
}
