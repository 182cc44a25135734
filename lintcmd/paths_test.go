package lintcmd

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// TestCorpusPathsLand runs -o sarif and -o github on every form of each
// corpus package (the monolith aside) and checks that every path they name
// exists: each SARIF artifact and result location, each GitHub annotation's
// file. A file nested in an image artifact must be a file the image holds
// (package.yaml, or the examples file).
func TestCorpusPathsLand(t *testing.T) {
	t.Parallel()
	dir := testcorpus.Dir(t)
	var checked atomic.Int64
	t.Cleanup(func() {
		// The Configuration repositories have findings in examples/ and
		// skipped files under .github: the test must have looked at some.
		if checked.Load() < 10 && !t.Failed() {
			t.Errorf("%d paths checked, want at least 10", checked.Load())
		}
	})
	for _, name := range testcorpus.Names() {
		if name == monolith {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			skipLargeUnderRace(t, name)
			forms := []string{
				filepath.Join(dir, name+".xpkg"),
				filepath.Join(dir, name+".oci"),
				filepath.Join(dir, name, "package.yaml"),
			}
			if fi, err := os.Stat(filepath.Join(dir, name, "src")); err == nil && fi.IsDir() {
				forms = append(forms, filepath.Join(dir, name, "src"))
			}
			for _, source := range forms {
				checked.Add(int64(checkSARIFPaths(t, source) + checkGitHubPaths(t, source)))
			}
		})
	}
}

// checkSARIFPaths checks the paths of -o sarif on source.
func checkSARIFPaths(t *testing.T, source string) (checked int) {
	t.Helper()
	r := runCLI(t, nil, "-o", "sarif", source)
	if r.code == ExitError {
		t.Fatalf("%s: exit code 2: %s", source, r.stderr)
	}
	var log struct {
		Runs []struct {
			Artifacts []struct {
				Location    struct{ URI string }
				ParentIndex *int
			}
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI   string
							Index *int
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	for _, a := range run.Artifacts {
		if a.ParentIndex != nil {
			if a.Location.URI != xpkg.PackageFile && a.Location.URI != xpkg.ExamplesFile {
				t.Errorf("%s: SARIF artifact %q nested in the image is no file of an image", source, a.Location.URI)
			}
			continue
		}
		checkExists(t, source, "SARIF artifact", a.Location.URI)
		checked++
	}
	for _, res := range run.Results {
		for _, l := range res.Locations {
			al := l.PhysicalLocation.ArtifactLocation
			if al.Index != nil && run.Artifacts[*al.Index].ParentIndex != nil {
				continue // a file inside the image, checked above
			}
			checkExists(t, source, "SARIF result "+res.RuleID, al.URI)
			checked++
		}
	}
	return checked
}

// githubFile is the file property of a GitHub workflow command.
var githubFile = regexp.MustCompile(`^::(?:error|warning|notice) file=([^,]*),`)

// checkGitHubPaths checks the paths of -o github on source.
func checkGitHubPaths(t *testing.T, source string) (checked int) {
	t.Helper()
	r := runCLI(t, nil, "-o", "github", source)
	if r.code == ExitError {
		t.Fatalf("%s: exit code 2: %s", source, r.stderr)
	}
	unescape := strings.NewReplacer("%2C", ",", "%3A", ":", "%0A", "\n", "%0D", "\r", "%25", "%")
	for _, line := range strings.Split(r.stdout, "\n") {
		if !strings.HasPrefix(line, "::") {
			continue
		}
		m := githubFile.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s: annotation without a file: %s", source, line)
			continue
		}
		checkExists(t, source, "GitHub annotation", unescape.Replace(m[1]))
		checked++
	}
	return checked
}

// checkExists fails unless uri (a relative reference or a file URI) names
// an existing path.
func checkExists(t *testing.T, source, what, uri string) {
	t.Helper()
	p := uri
	if u, err := url.Parse(uri); err == nil && (u.Scheme == "file" || u.Scheme == "") {
		p = filepath.FromSlash(u.Path)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("%s: %s names %q, which does not exist: %v", source, what, uri, err)
	}
}
