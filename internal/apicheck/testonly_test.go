package apicheck_test

import (
	"os/exec"
	"path"
	"strings"
	"testing"
)

// testOnlyExceptions are the test-only internal packages whose names do not
// say so, each documented as such: the adversarial corpus (with its
// generator), the consumer programs (tests written as a new user would),
// and this API guard (with its dump command).
var testOnlyExceptions = []string{
	"internal/hostile",
	"internal/consumer",
	"internal/apicheck",
}

// isTestOnly reports whether the internal package rel (its path in the
// module) holds test-only helpers: named "…test" or "test…", or one of
// testOnlyExceptions (or a package below one).
func isTestOnly(rel string) bool {
	name := path.Base(rel)
	if strings.HasSuffix(name, "test") || strings.HasPrefix(name, "test") {
		return true
	}
	for _, e := range testOnlyExceptions {
		if rel == e || strings.HasPrefix(rel, e+"/") {
			return true
		}
	}
	return false
}

// TestTestOnlyPackagesApart keeps test-only helpers apart from the internal
// code the module ships: no package a user's program links (the public
// packages, the examples, and the internal packages they import) imports a
// test-only package outside its tests, and an internal package that none
// of them imports, nor an internal command (a go:generate generator), is
// named as test-only.
func TestTestOnlyPackagesApart(t *testing.T) {
	t.Parallel()
	const module = "github.com/xpkgkit/xpkgkit"
	out, err := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{.Name}} {{join .Imports \",\"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type pkg struct {
		name    string
		imports []string
	}
	pkgs := map[string]pkg{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		p := pkg{name: f[1]}
		if len(f) > 2 {
			p.imports = strings.Split(f[2], ",")
		}
		pkgs[strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")] = p
	}
	internal := func(rel string) bool {
		return strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/")
	}
	// shipped: every package outside internal/, and what they import
	// from the module, transitively.
	shipped := map[string]bool{}
	var visit func(rel string)
	visit = func(rel string) {
		if shipped[rel] {
			return
		}
		shipped[rel] = true
		for _, imp := range pkgs[rel].imports {
			if r, ok := strings.CutPrefix(imp, module+"/"); ok {
				visit(r)
			}
		}
	}
	for rel := range pkgs {
		if !internal(rel) && rel != "" {
			visit(rel)
		}
	}
	visit("")
	if len(shipped) < 10 {
		t.Fatalf("go list found %d shipped packages: %s", len(shipped), out)
	}
	for rel := range shipped {
		if internal(rel) && isTestOnly(rel) {
			t.Errorf("%s is test-only, but the shipped code links it", rel)
		}
	}
	// tooling: what the module's internal commands (go:generate
	// generators, the API dump) import.
	tooling := map[string]bool{}
	for rel, p := range pkgs {
		if internal(rel) && p.name == "main" {
			for _, imp := range p.imports {
				tooling[strings.TrimPrefix(imp, module+"/")] = true
			}
		}
	}
	for rel, p := range pkgs {
		if !internal(rel) || shipped[rel] || tooling[rel] || p.name == "main" {
			continue
		}
		if !isTestOnly(rel) {
			t.Errorf("%s is imported only by tests: name it as a test helper (…test) or link it from shipped code", rel)
		}
	}
}
