package hostile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CacheCase is a hostile verdict cache: a package of CustomResourceDefinitions
// whose API-server verdicts (XP420) xpkg-lint caches, and the cache
// directory it is linted with (xpkg-lint --cache-dir CacheDir(dir) SOURCE,
// whose verdict cache is VerdictsDir(dir)). Write writes the package and
// fills the cache directory as the case says. The CLI lints the package
// twice; Poison, when not nil, rewrites the verdict cache between the two
// runs (after the first filled it). Both runs must report the same, byte
// for byte, within the hostile bounds: a bad entry is a miss, never a
// verdict, and nothing blocks.
type CacheCase struct {
	Case
	// Poison rewrites the verdict cache at verdicts, which the first run
	// filled; nil to lint twice against what the first run left.
	Poison func(verdicts string) error
}

// CacheDir returns the cache directory (--cache-dir) of the case written
// in dir.
func (c CacheCase) CacheDir(dir string) string { return filepath.Join(dir, c.Name+".cache") }

// VerdictsDir returns the verdict cache of the case written in dir: the
// verdicts directory of its cache directory, where xpkg-lint keeps it.
func (c CacheCase) VerdictsDir(dir string) string {
	return filepath.Join(c.CacheDir(dir), "verdicts")
}

// cacheCRDs is how many CRDs the package of each cache case holds: every
// tenth has a CEL rule that does not compile (an XP420 error).
const cacheCRDs = 300

// writeCacheCRDs writes the package of the cache cases: a Provider and
// cacheCRDs CustomResourceDefinitions of 4 fields each, each field with
// a CEL rule.
func writeCacheCRDs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprint(w, "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-cache\n")
	for i := range cacheCRDs {
		kind := fmt.Sprintf("Thing%d", i)
		plural := strings.ToLower(kind) + "s"
		fmt.Fprintf(w, "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: %s.example.org\nspec:\n  group: example.org\n"+
			"  names: {kind: %s, plural: %s}\n  scope: Cluster\n  versions:\n  - name: v1\n    served: true\n    storage: true\n"+
			"    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n",
			plural, kind, plural)
		for j := range 4 {
			rule := fmt.Sprintf("self.size() <= %d", 64+j)
			if i%10 == 0 && j == 0 {
				rule = "self.sise > 0" // does not compile
			}
			fmt.Fprintf(w, "              field%d:\n                type: string\n                maxLength: 256\n                x-kubernetes-validations:\n                - rule: %q\n", j, rule)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// cacheCase makes a CacheCase whose cache directory prefill fills (nil:
// empty) and whose verdict cache poison rewrites between the runs.
func cacheCase(name, desc string, size int64, heavy bool, prefill func(cacheDir string) error, poison func(string) error) CacheCase {
	c := CacheCase{Poison: poison, Case: Case{
		Name: name, Description: desc, Kind: KindPackageYAML, Expect: rule(ClassLintError, "XP420"), Size: size, Heavy: heavy,
	}}
	c.Write = func(ctx context.Context, dir string) (string, error) {
		cd := c.CacheDir(dir)
		if err := os.MkdirAll(cd, 0o755); err != nil {
			return "", err
		}
		if prefill != nil {
			if err := prefill(cd); err != nil {
				return "", err
			}
		}
		if err := ctx.Err(); err != nil {
			return "", err
		}
		p := filepath.Join(dir, name+".yaml")
		if err := writeCacheCRDs(p); err != nil {
			return "", err
		}
		return p, nil
	}
	return c
}

// linkEntries fills the verdict cache of cacheDir with n entries named as
// keys are (64 hex digits, in a directory named by the first two), each a
// hard link to one file of size bytes per directory, so that writing a
// large cache takes little disk: the cache counts each name's size.
func linkEntries(cacheDir string, n, size int) error {
	v := filepath.Join(cacheDir, "verdicts")
	if err := os.MkdirAll(v, 0o755); err != nil {
		return err
	}
	content := bytes.Repeat([]byte("x"), size)
	for s := range 256 {
		if err := os.Mkdir(filepath.Join(v, fmt.Sprintf("%02x", s)), 0o755); err != nil && !os.IsExist(err) {
			return err
		}
		// A file outside the cache's directories for each: a
		// filesystem allows a file some tens of thousands of links.
		if err := os.WriteFile(filepath.Join(cacheDir, fmt.Sprintf("entry-%02x", s)), content, 0o644); err != nil {
			return err
		}
	}
	for i := range n {
		// Spread over the 256 directories; the names are no key of
		// the package's (those are SHA-256 digests).
		k := fmt.Sprintf("%02x%062x", i%256, i)
		if err := os.Link(filepath.Join(cacheDir, "entry-"+k[:2]), filepath.Join(v, k[:2], k)); err != nil {
			return err
		}
	}
	return nil
}

// entries lists the verdict cache's entries (regular files in its
// two-character directories), sorted.
func entries(verdicts string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(verdicts, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, p)
		}
		return nil
	})
	slices.Sort(out)
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("%s: no entries to poison: the first run wrote none", verdicts)
	}
	return out, err
}

// lie rewrites every entry of the verdict cache with one that lies, in
// turn: another entry's (a foreign key), truncated, a byte changed, a
// claim of a million findings under a wrong checksum, larger than an
// entry may be, empty, and a header with no body.
func lie(verdicts string) error {
	es, err := entries(verdicts)
	if err != nil {
		return err
	}
	contents := make([][]byte, len(es))
	for i, p := range es {
		if contents[i], err = os.ReadFile(p); err != nil {
			return err
		}
	}
	for i, p := range es {
		b := contents[i]
		var nb []byte
		switch i % 7 {
		case 0:
			nb = contents[(i+1)%len(es)] // another key's entry, whole
		case 1:
			nb = b[:len(b)/2]
		case 2:
			nb = bytes.Clone(b)
			nb[len(nb)-2] ^= 0x20
		case 3:
			head, _, _ := bytes.Cut(b, []byte("\n"))
			nb = append(append(head, '\n'), `{"key":"x","total":1000000,"findings":[]}`...)
		case 4:
			nb = bytes.Repeat([]byte("{"), 256<<10+1)
		case 5:
			nb = nil
		case 6:
			head, _, _ := bytes.Cut(b, []byte("\n"))
			nb = append(head, '\n')
		}
		if err := os.WriteFile(p, nb, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// fifos replaces every entry of the verdict cache with a FIFO (with no
// writer: opening it for reading blocks), a directory, or a link out of
// the cache, in turn, and one of its directories with a FIFO.
func fifos(verdicts string) error {
	es, err := entries(verdicts)
	if err != nil {
		return err
	}
	for i, p := range es {
		if err := os.Remove(p); err != nil {
			return err
		}
		switch i % 4 {
		case 0, 1:
			err = mkfifo(p)
		case 2:
			err = os.Mkdir(p, 0o755)
		case 3:
			err = os.Symlink("/dev/zero", p)
		}
		if err != nil {
			return err
		}
	}
	// The directory of the last entry, and every entry in it, a FIFO.
	d := filepath.Dir(es[len(es)-1])
	if err := os.RemoveAll(d); err != nil {
		return err
	}
	return mkfifo(d)
}

// CacheCases returns the verdict cache's worst cases.
func CacheCases() []CacheCase {
	const pkgSize = cacheCRDs * 1100
	return []CacheCase{
		cacheCase("cache-cost-100k-entries",
			"A verdict cache of 100,000 entries (hard links to one file), none the package's: the first entry the lint "+
				"writes counts the cache by one scan of its 256 directories (linear in the entries, once per run), "+
				"and each of the package's 300 CRDs is a miss, then stored; the second run reads all 300.",
			pkgSize, true,
			func(cd string) error { return linkEntries(cd, 100_000, 64) }, nil),
		cacheCase("cache-cost-full",
			"A verdict cache at its default bound (256 MiB: 2,048 names of 128 KiB, hard links to one file): the "+
				"first entry written evicts the least recently used entries to seven eighths of the bound in one pass, "+
				"and the rest fit.",
			pkgSize, false,
			func(cd string) error { return linkEntries(cd, 2048, 128<<10) }, nil),
		cacheCase("cache-cost-lying-entries",
			"After a first lint filled the cache, every entry is rewritten to lie: another key's entry, truncated, "+
				"a byte changed, a claim of a million findings, larger than an entry may be, empty, a header with no "+
				"body. Each is a miss (its key, checksum or bounds do not hold): the second lint validates again and "+
				"reports the same.",
			pkgSize, false, nil, lie),
		cacheCase("cache-cost-fifo-entries",
			"After a first lint filled the cache, every entry is replaced by a FIFO with no writer, a directory or "+
				"a link to /dev/zero, and one of the cache's directories by a FIFO: nothing is opened that can block "+
				"or is not a regular file inside the cache; each is a miss, and the entries cannot be stored where a "+
				"directory or FIFO stands.",
			pkgSize, false, nil, fifos),
		cacheCase("cache-cost-fifo-cache",
			"The verdict cache's directory is a FIFO: the cache cannot be opened, and the lint runs without it, "+
				"without blocking.",
			pkgSize, false,
			func(cd string) error { return mkfifo(filepath.Join(cd, "verdicts")) }, nil),
	}
}
