package hostile

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FileCase is a worst case of what xpkg-lint reads or writes beside the
// package (issue 30's classes 4 to 7): a flag that names a file or a
// pattern, or a key of .xpkg-lint.yaml, given a link, a FIFO, a file far
// over a count, or an older package that does not parse. A correct run
// ends with Exit, within the hostile budget, and leaves the files of
// Untouched as they were: nothing is written or created through a link,
// outside the package or the repository.
type FileCase struct {
	// Name is unique and starts with "files-".
	Name string
	// Description says what the case plants and what a correct run does.
	Description string
	// Surfaces are the surfaces the case attacks, as the coverage test
	// names them ("flag:--baseline", "config:ignore"; see Surfaces).
	Surfaces []string
	// Exit is xpkg-lint's exit status on the case.
	Exit int
	// Size is about the bytes Write puts on disk; Heavy marks cases over a
	// few MiB (skipped under -short and -race).
	Size  int64
	Heavy bool
	// NeedsFIFO says the case plants a FIFO: skipped where there are none.
	NeedsFIFO bool
	// Write lays the case out in dir and returns xpkg-lint's arguments:
	// flags, then the source.
	Write func(ctx context.Context, dir string) ([]string, error)
	// Untouched maps files, relative to dir, to the content they must
	// still hold after the run; "" means the file must not exist.
	Untouched map[string]string
}

// fixableMeta is a package's meta file with a finding --fix resolves
// (XP103: the deprecated v1alpha1 meta apiVersion) and no error.
const fixableMeta = "apiVersion: meta.pkg.crossplane.io/v1alpha1\nkind: Provider\nmetadata:\n  name: provider-hostile\n  annotations:\n" +
	"    meta.crossplane.io/maintainer: Hostile <hostile@example.org>\n    meta.crossplane.io/source: https://github.com/example/provider-hostile\n" +
	"    meta.crossplane.io/license: Apache-2.0\nspec:\n  crossplane:\n    version: \">=v1.14.0\"\n"

// depsCacheRoot is a Configuration depending on one Provider,
// xpkg.example.org/acme/provider-a.
const depsCacheRoot = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: configuration-hostile\nspec:\n  dependsOn:\n" +
	"  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.example.org/acme/provider-a\n    version: \">=v1.0.0\"\n"

// victimContent is what a file outside the package holds; a case's link
// points at it, and it must hold the same after the run.
const victimContent = "a file outside the package\n"

// fileLayout is a case's directory: files (relative path -> content), links
// (relative path -> target relative to dir), FIFOs (relative paths).
type fileLayout struct {
	files map[string]string
	links map[string]string
	fifos []string
}

// write lays l out in dir.
func (l fileLayout) write(ctx context.Context, dir string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	mk := func(rel string) (string, error) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		return p, os.MkdirAll(filepath.Dir(p), 0o755)
	}
	for rel, content := range l.files {
		p, err := mk(rel)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	for rel, to := range l.links {
		p, err := mk(rel)
		if err != nil {
			return err
		}
		if err := os.Symlink(filepath.Join(dir, filepath.FromSlash(to)), p); err != nil {
			return err
		}
	}
	for _, rel := range l.fifos {
		p, err := mk(rel)
		if err != nil {
			return err
		}
		if err := mkfifo(p); err != nil {
			return err
		}
	}
	return nil
}

// fileCase returns a FileCase that lays out l and runs xpkg-lint with args
// (see resolveArgs).
func fileCase(name, desc string, surfaces []string, exit int, l fileLayout, args ...string) FileCase {
	return FileCase{
		Name: name, Description: desc, Surfaces: surfaces, Exit: exit, NeedsFIFO: len(l.fifos) > 0,
		Size: int64(4 << 10), Untouched: map[string]string{"outside/victim": victimContent, "outside/created": ""},
		Write: func(ctx context.Context, dir string) ([]string, error) {
			if l.files == nil {
				l.files = map[string]string{}
			}
			if _, ok := l.files["outside/victim"]; !ok {
				l.files["outside/victim"] = victimContent
			}
			if err := l.write(ctx, dir); err != nil {
				return nil, err
			}
			return resolveArgs(dir, args), nil
		},
	}
}

// resolveArgs joins the relative paths of args to dir: every argument that
// is not a flag, and the FILE of SECRET/KEY=FILE; an argument starting
// with @ is a value, kept without the @.
func resolveArgs(dir string, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "-"):
			out[i] = a
		case strings.HasPrefix(a, "@"): // a value, not a path
			out[i] = a[1:]
		case strings.Contains(a, "="):
			k, v, _ := strings.Cut(a, "=")
			out[i] = k + "=" + filepath.Join(dir, v)
		default:
			out[i] = filepath.Join(dir, filepath.FromSlash(a))
		}
	}
	return out
}

// pkgFiles is a package directory at pkg/ with the fixable meta file.
func pkgFiles(extra map[string]string) map[string]string {
	m := map[string]string{"pkg/crossplane.yaml": fixableMeta, ".git/HEAD": "ref: refs/heads/main\n"}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// configFiles is a package whose repository holds .xpkg-lint.yaml with body.
func configFiles(body string, extra map[string]string) map[string]string {
	m := pkgFiles(extra)
	m[".xpkg-lint.yaml"] = body
	return m
}

// againstCRD is a CRD of one served version, v1.
const againstCRD = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.org\nspec:\n  group: example.org\n" +
	"  names: {kind: Widget, plural: widgets}\n  scope: Cluster\n  versions:\n  - name: v1\n    served: true\n    storage: true\n" +
	"    schema:\n      openAPIV3Schema: {type: object}\n"

// againstPair is an older package (old/) whose CRD does not parse, the
// CRD's served version v1alpha1 removed in the newer one (pkg/): a
// breaking change the readable pair reports as an error.
func againstPair(extra map[string]string) map[string]string {
	m := pkgFiles(extra)
	m["pkg/crds/widgets.yaml"] = againstCRD
	m["old/crossplane.yaml"] = fixableMeta
	m["old/crds/widgets.yaml"] = strings.Replace(againstCRD, "  versions:\n", "  versions:\n  - name: v1alpha1\n    served: true\n    storage: false\n", 1) + "    bad: [unclosed\n"
	return m
}

// longGlobs is an ignore list of n globs of size bytes each, written to
// cost path.Match the most: stars between letters no file name holds.
func longGlobs(n, size int) string {
	var b strings.Builder
	for i := range n {
		g := strings.Repeat("*q", size/2)
		fmt.Fprintf(&b, "  - '%d%s'\n", i, g[:size-len(fmt.Sprint(i))])
	}
	return b.String()
}

// manyPackageFiles are n package files, each only a comment (the package
// reads each, and matches its path against the globs).
func manyPackageFiles(n int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[fmt.Sprintf("pkg/dir%d/file-%d.yaml", i%10, i)] = "# no object\n"
	}
	return m
}

// hugeBaseline writes a baseline of empty entries just under the 16 MiB
// byte cap: 5.6 million entries, which decoded at once took 1.1 GiB.
func hugeBaseline(ctx context.Context, p string) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(`{"version":1,"entries":[{}`)
	for n := 26; n+5 < 16<<20; n += 3 {
		if n%(3<<20) == 26%(3<<20) {
			if err := ctx.Err(); err != nil {
				f.Close()
				return err
			}
		}
		w.WriteString(",{}")
	}
	w.WriteString("]}")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// FileCases returns the worst cases of the files beside the package.
func FileCases() []FileCase {
	return append(baseFileCases(), moreFileCases()...)
}

func baseFileCases() []FileCase {
	outsideRepo := fileCase("files-config-baseline-outside",
		"The configuration's baseline key names a file beside its repository's root, outside it: refused before the lint (exit 2), nothing created.",
		[]string{"config:baseline"}, 2,
		fileLayout{files: configFiles("baseline: ../created-by-files-config-baseline-outside\n", nil)},
		"--write-baseline", "pkg")
	outsideRepo.Untouched["../created-by-files-config-baseline-outside"] = ""
	cs := []FileCase{
		fileCase("files-fix-link-at-temp",
			"Issue 30 class 4: a link at crossplane.yaml.xpkg-lint-fix, the temporary file --fix wrote with os.WriteFile (which follows it), to a file outside the package: --fix writes an exclusive temporary file of another name and renames it, so the outside file keeps its content and the fix applies (exit 0).",
			[]string{"flag:--fix"}, 0,
			fileLayout{files: pkgFiles(nil), links: map[string]string{"pkg/crossplane.yaml.xpkg-lint-fix": "outside/victim"}},
			"--fix", "pkg"),
		fileCase("files-fix-fifo-at-temp",
			"Issue 30 class 4: a FIFO at crossplane.yaml.xpkg-lint-fix, where --fix used to write and hang forever: the fix never opens that name (exit 0).",
			[]string{"flag:--fix"}, 0,
			fileLayout{files: pkgFiles(nil), fifos: []string{"pkg/crossplane.yaml.xpkg-lint-fix"}},
			"--fix", "pkg"),
		fileCase("files-fix-linked-package-file",
			"A package file that is a link to a file outside the package: the package reader passes over links (XP006), and --fix never writes through one (exit 0; the outside file unchanged).",
			[]string{"flag:--fix"}, 0,
			fileLayout{files: pkgFiles(map[string]string{"outside/other.yaml": fixableMeta}), links: map[string]string{"pkg/linked.yaml": "outside/other.yaml"}},
			"--fix", "pkg"),
		fileCase("files-diff-fifo-at-temp",
			"--diff on a package with a FIFO and a link planted beside its file: --diff reads the package's files through the file layer and writes nothing (exit 0).",
			[]string{"flag:--diff"}, 0,
			fileLayout{files: pkgFiles(nil), fifos: []string{"pkg/crossplane.yaml.xpkg-lint-fix"}, links: map[string]string{"pkg/x.orig": "outside/victim"}},
			"--diff", "pkg"),
		fileCase("files-baseline-dangling-link",
			"Issue 30 class 5: --baseline names a dangling link to a file outside the repository and --write-baseline asks to write it: refused (a link), nothing created outside (exit 2).",
			[]string{"flag:--baseline", "flag:--write-baseline"}, 2,
			fileLayout{files: pkgFiles(nil), links: map[string]string{"baseline.json": "outside/created"}},
			"--baseline", "baseline.json", "--write-baseline", "pkg"),
		fileCase("files-baseline-dangling-link-read",
			"Issue 34 item 2 and issue 30 class 5: --baseline names a dangling link and no --write-baseline: a baseline that is not there is an error, never a new baseline written through the link (exit 2).",
			[]string{"flag:--baseline"}, 2,
			fileLayout{files: pkgFiles(nil), links: map[string]string{"baseline.json": "outside/created"}},
			"--baseline", "baseline.json", "pkg"),
		fileCase("files-baseline-fifo",
			"--baseline names a FIFO: opened non-blocking and refused as not a regular file (exit 2), where it used to hang.",
			[]string{"flag:--baseline"}, 2,
			fileLayout{files: pkgFiles(nil), fifos: []string{"baseline.json"}},
			"--baseline", "baseline.json", "pkg"),
		fileCase("files-config-baseline-dangling-link",
			"The configuration's baseline key names a dangling link to a file outside the repository, with --write-baseline: refused (exit 2), nothing created.",
			[]string{"config:baseline"}, 2,
			fileLayout{files: configFiles("baseline: baseline.json\n", nil), links: map[string]string{"baseline.json": "outside/created"}},
			"--write-baseline", "pkg"),
		outsideRepo,
		fileCase("files-image-config-fifo",
			"Issue 30 class 6: --image-config names a FIFO, which was opened blocking and parsed under context.Background(): refused as not a regular file (exit 2).",
			[]string{"flag:--image-config"}, 2,
			fileLayout{files: pkgFiles(nil), fifos: []string{"ic.yaml"}},
			"--image-config", "ic.yaml", "pkg"),
		fileCase("files-config-image-config-fifo",
			"Issue 30 class 6: the configuration's image-config names a FIFO: refused, a configuration error with its file and line (exit 2).",
			[]string{"config:image-config"}, 2,
			fileLayout{files: configFiles("image-config: ic.yaml\n", nil), fifos: []string{"ic.yaml"}},
			"pkg"),
		fileCase("files-config-fifo",
			"The .xpkg-lint.yaml found beside the package is a FIFO: refused, a configuration error (exit 2).",
			[]string{"file:.xpkg-lint.yaml"}, 2,
			fileLayout{files: pkgFiles(nil), fifos: []string{"pkg/.xpkg-lint.yaml"}},
			"pkg"),
		fileCase("files-config-link",
			"The .xpkg-lint.yml found beside the package is a link to a file outside: refused, a configuration error (exit 2).",
			[]string{"file:.xpkg-lint.yml"}, 2,
			fileLayout{files: pkgFiles(map[string]string{"outside/c.yaml": "fail-on: info\n"}), links: map[string]string{"pkg/.xpkg-lint.yml": "outside/c.yaml"}},
			"pkg"),
		fileCase("files-config-flag-fifo",
			"--config names a FIFO: refused (exit 2).",
			[]string{"flag:--config"}, 2,
			fileLayout{files: pkgFiles(nil), fifos: []string{"c.yaml"}},
			"--config", "c.yaml", "pkg"),
		fileCase("files-ignore-long-globs",
			"Issue 30 class 6: 1,000 ignore globs of 900 bytes (25 s of CPU, matching never looking at the context): a glob is at most 256 bytes, a configuration error (exit 2).",
			[]string{"config:ignore"}, 2,
			fileLayout{files: configFiles("ignore:\n"+longGlobs(1000, 900), nil)},
			"pkg"),
		fileCase("files-ignore-flag-long-glob",
			"--ignore with a glob of 900 bytes: refused (exit 2).",
			[]string{"flag:--ignore"}, 2,
			fileLayout{files: pkgFiles(nil)},
			"--ignore", "@"+strings.Repeat("*q", 450), "pkg"),
		fileCase("files-config-disable-over-cap",
			"The disable list with 1,001 entries: a list is at most 1,000 (exit 2).",
			[]string{"config:disable"}, 2,
			fileLayout{files: configFiles("disable:\n"+strings.Repeat("  - XP206\n", 1001), nil)},
			"pkg"),
		fileCase("files-config-severity-over-cap",
			"The severity mapping with 1,001 rules: refused before a rule is looked up (exit 2).",
			[]string{"config:severity"}, 2,
			fileLayout{files: configFiles("severity:\n"+severities(1001), nil)},
			"pkg"),
		fileCase("files-config-deps-from-over-cap",
			"deps-from with 1,001 directories: refused before any is looked at (exit 2).",
			[]string{"config:deps-from"}, 2,
			fileLayout{files: configFiles("deps-from:\n"+strings.Repeat("  - pkg\n", 1001), nil)},
			"pkg"),
		fileCase("files-config-huge-version",
			"crossplane-version of 900 KB (the file's cap is 1 MiB): not a semantic version, a configuration error (exit 2).",
			[]string{"config:crossplane-version"}, 2,
			fileLayout{files: configFiles("crossplane-version: v1."+strings.Repeat("9", 900_000)+"\n", nil)},
			"pkg"),
		fileCase("files-config-huge-fail-on",
			"fail-on of 900 KB: not a level, a configuration error (exit 2).",
			[]string{"config:fail-on"}, 2,
			fileLayout{files: configFiles("fail-on: "+strings.Repeat("e", 900_000)+"\n", nil)},
			"pkg"),
		fileCase("files-config-huge-max-crds",
			"max-crds of 900 KB of digits: past any integer, a configuration error (exit 2), never a number parsed digit by digit into a wrong limit.",
			[]string{"config:max-crds"}, 2,
			fileLayout{files: configFiles("max-crds: "+strings.Repeat("9", 900_000)+"\n", nil)},
			"pkg"),
		fileCase("files-config-huge-max-apiserver-memory",
			"max-apiserver-memory of 900 KB: not a Kubernetes quantity, a configuration error (exit 2); the quantity parser is not handed the whole string.",
			[]string{"config:max-apiserver-memory"}, 2,
			fileLayout{files: configFiles("max-apiserver-memory: 1"+strings.Repeat("0", 900_000)+"Gi\n", nil)},
			"pkg"),
		fileCase("files-against-unparseable-old",
			"Issue 30 class 7: --against names an older package whose CRD does not parse; it used to be dropped silently, the new CRD was then \"new\", the removed served version v1alpha1 vanished and the run exited 0. The older package cannot be compared: exit 2 with the position.",
			[]string{"flag:--against"}, 2,
			fileLayout{files: againstPair(nil)},
			"--against", "old", "--against-version", "@v1.0.0", "--package-version", "@v1.1.0", "pkg"),
		fileCase("files-against-fifo",
			"--against names a FIFO: the package reader refuses a source that is not a regular file or a directory (exit 2), never blocking on it.",
			[]string{"flag:--against"}, 2,
			fileLayout{files: pkgFiles(nil), fifos: []string{"old.xpkg"}},
			"--against", "old.xpkg", "pkg"),
		fileCase("files-config-against-unparseable-old",
			"Issue 30 class 7 through the configuration's against key: exit 2 with the position.",
			[]string{"config:against"}, 2,
			fileLayout{files: againstPair(map[string]string{".xpkg-lint.yaml": "against: old\n"})},
			"pkg"),
		fileCase("files-registry-config-fifo",
			"--registry-config names a FIFO, which the registry client would read by name and block on, with a reference as the source (a loopback port nothing listens on): refused before any request (exit 2).",
			[]string{"flag:--registry-config"}, 2,
			fileLayout{files: pkgFiles(nil), fifos: []string{"docker.json"}},
			"--registry-config", "docker.json", "@127.0.0.1:1/acme/provider-hostile:v1.0.0"),
		fileCase("files-verify-key-fifo",
			"--verify-key names a FIFO: the key is read through the file layer and refused (exit 2).",
			[]string{"flag:--verify-key"}, 2,
			fileLayout{files: pkgFiles(nil), fifos: []string{"key.pem"}},
			"--verify", "--verify-key", "secret/key=key.pem", "pkg"),
		fileCase("files-deps-cache-fifo",
			"--deps-cache names a Crossplane package cache whose entry for the one dependency (acme-provider-a-<12 hex>.gz) is a FIFO: the read blocked forever; the entry is refused as not a regular file, a dependency that cannot be read (exit 2).",
			[]string{"flag:--deps-cache"}, 2,
			fileLayout{files: map[string]string{"pkg/crossplane.yaml": depsCacheRoot, ".git/HEAD": "ref: refs/heads/main\n"}, fifos: []string{"cache/acme-provider-a-0123456789ab.gz"}},
			"--deps", "--offline", "--deps-cache", "cache", "pkg"),
		fileCase("files-trusted-root-fifo",
			"--trusted-root names a FIFO: refused (exit 2).",
			[]string{"flag:--trusted-root"}, 2,
			fileLayout{files: pkgFiles(nil), fifos: []string{"root.json"}},
			"--verify", "--trusted-root", "root.json", "pkg"),
	}
	return cs
}

// moreFileCases are the file cases built beyond fileCase's defaults.
func moreFileCases() []FileCase {
	// 1,000 globs at the 256-byte cap against 500 files, each path matched
	// once: the most ignore work a configuration can ask.
	atCap := fileCase("files-ignore-globs-at-cap",
		"1,000 ignore globs at the 256-byte cap, each a run of stars no file name satisfies, against a package of 500 files: each path is matched once against each glob (the answer kept), the context looked at per path (exit 0).",
		[]string{"config:ignore"}, 0,
		fileLayout{files: configFiles("ignore:\n"+longGlobs(1000, 256), manyPackageFiles(500))},
		"pkg")
	atCap.Size = 300 << 10
	exclude := fileCase("files-config-exclude-at-cap",
		"1,000 exclude entries for every rule, 999 with globs at the 256-byte cap that match nothing and the last matching every file: each finding's path is matched against each entry in turn, and every finding is left out (exit 0 with --fail-on info).",
		[]string{"config:exclude"}, 0,
		fileLayout{files: configFiles("exclude:\n"+excludes(999, 256)+"  - path: '*'\n", nil)},
		"--fail-on", "@info", "pkg")
	huge := FileCase{
		Name:        "files-baseline-entries",
		Description: "Issue 30 class 5: a baseline of 5.6 million empty entries, just under the 16 MiB byte cap, which decoded at once took 1.1 GiB: entries are counted as they are decoded and refused past 100,000 (exit 2).",
		Surfaces:    []string{"flag:--baseline"}, Exit: 2, Size: 16 << 20, Heavy: true,
		Untouched: map[string]string{},
		Write: func(ctx context.Context, dir string) ([]string, error) {
			if err := (fileLayout{files: pkgFiles(nil)}).write(ctx, dir); err != nil {
				return nil, err
			}
			if err := hugeBaseline(ctx, filepath.Join(dir, "baseline.json")); err != nil {
				return nil, err
			}
			return resolveArgs(dir, []string{"--baseline", "baseline.json", "pkg"}), nil
		},
	}
	return []FileCase{atCap, exclude, huge}
}

// severities is a severity mapping of n distinct keys.
func severities(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  XP%d: error\n", 1000+i)
	}
	return b.String()
}

// excludes is an exclude list of n entries with globs of size bytes.
func excludes(n, size int) string {
	var b strings.Builder
	for i := range n {
		g := fmt.Sprintf("%d%s", i, strings.Repeat("*q", size/2))
		fmt.Fprintf(&b, "  - path: '%s'\n", g[:size])
	}
	return b.String()
}
