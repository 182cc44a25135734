package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// serveEnv makes the test binary a language server (TestMain): the
// Neovim test starts it as the editor's server.
const serveEnv = "XPKG_LSP_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		if err := New().Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// corpusDir finds ../shared/corpus beside the repository, or
// $XPKGKIT_CORPUS.
func corpusDir() string {
	if d := os.Getenv("XPKGKIT_CORPUS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "corpus")
}

// TestNeovim drives the server from a real editor: Debian's neovim,
// headless, its built-in LSP client running testdata/nvim/session.lua over
// a corpus Configuration. It skips when nvim is not installed (.ci/run
// installs it) or the corpus is absent.
func TestNeovim(t *testing.T) {
	t.Parallel()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim is not installed (apt-get install neovim)")
	}
	corpus, err := filepath.Abs(filepath.Join(corpusDir(), "configuration-aws-network", "src"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(corpus, "crossplane.yaml")); err != nil {
		t.Skipf("no corpus: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("testdata/nvim/session.lua")
	want := xpkgLintFindings(t, corpus)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-c", "luafile "+script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), serveEnv+"=1", "XPKG_LSP="+self, "CORPUS="+corpus,
		"FIXTURE="+fixture(t, ""), fmt.Sprintf("EXPECT=%d", len(want)), "OUT="+out, "HOME="+cmd.Dir, "XDG_STATE_HOME="+cmd.Dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("nvim wrote nothing: %v", err)
	}
	defer f.Close()
	var got []string
	steps := map[string]map[string]any{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		step, _ := m["step"].(string)
		if step == "diagnostic" {
			got = append(got, fmt.Sprintf("%s:%v:%v %s", m["file"], m["line"], m["col"], m["code"]))
			continue
		}
		steps[step] = m
	}
	if e := steps["error"]; e != nil {
		t.Fatalf("the session failed: %v", e["error"])
	}
	// 2. The diagnostics of xpkg-lint, at the same positions.
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("Neovim shows\n%s\nxpkg-lint reports\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// 3. The quick fix applied, its diagnostic gone.
	if fix := steps["fix"]; fix == nil || fix["gone"] != true || fix["line1"] != "apiVersion: meta.pkg.crossplane.io/v1" {
		t.Errorf("quick fix: %v", fix)
	}
	// 4. Hover: the field's schema description.
	if h := steps["hover"]; h == nil || !strings.Contains(fmt.Sprint(h["value"]), "CompositeTypeRef specifies the type of composite resource") {
		t.Errorf("hover: %v", h)
	}
	// 5. Completion of a composed resource's field.
	if c := steps["completion"]; c == nil || !slices.Contains(c["labels"].([]any), any("zone")) {
		t.Errorf("completion: %v %v", c, steps["completion-error"])
	}
	// 6. compositeTypeRef to the XRD.
	if d := steps["definition"]; d == nil || d["uri"] != pathToURI(filepath.Join(corpus, "apis", "definition.yaml")) || d["line"] != float64(0) {
		t.Errorf("definition: %v", d)
	}
}
