package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
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

// The verdict cache's packs (linter/apiserver/verdictcache's pack.go),
// written here from the format, not through the cache, as a hostile
// writer would: a magic, the records, a key table (each key's length,
// the key, its record's offset, length and CRC-32C of key and record) and
// a footer (the table's offset, length, count and CRC-32C, 4 bytes of
// zero, the magic), little-endian.
const (
	packMagic      = "xpkgvpk1"
	packFooterSize = 32
	packEntryFixed = 1 + 8 + 4 + 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// packEntry is an entry of a pack.
type packEntry struct {
	key, value []byte
}

// packName is the name of pack i in a verdict cache.
func packName(i int) string { return fmt.Sprintf("v1-%016x-%016x.pack", 1<<60+i, i) }

// encodePack encodes entries as a pack.
func encodePack(entries []packEntry) []byte {
	b := []byte(packMagic)
	var table []byte
	for _, e := range entries {
		off := len(b)
		b = append(b, e.value...)
		table = append(table, byte(len(e.key)))
		table = append(table, e.key...)
		table = binary.LittleEndian.AppendUint64(table, uint64(off))
		table = binary.LittleEndian.AppendUint32(table, uint32(len(e.value)))
		table = binary.LittleEndian.AppendUint32(table, packSum(e.key, e.value))
	}
	tableOff := len(b)
	b = append(b, table...)
	b = binary.LittleEndian.AppendUint64(b, uint64(tableOff))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(table)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(entries)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(table, castagnoli))
	b = binary.LittleEndian.AppendUint32(b, 0)
	return append(b, packMagic...)
}

func packSum(key, value []byte) uint32 {
	return crc32.Update(crc32.Update(0, castagnoli, key), castagnoli, value)
}

// decodePack decodes a pack encodePack or the cache wrote, trusting it.
func decodePack(b []byte) ([]packEntry, error) {
	if len(b) < len(packMagic)+packFooterSize {
		return nil, fmt.Errorf("a pack of %d bytes", len(b))
	}
	foot := b[len(b)-packFooterSize:]
	tableOff := int(binary.LittleEndian.Uint64(foot))
	count := int(binary.LittleEndian.Uint32(foot[12:]))
	t := b[tableOff : len(b)-packFooterSize]
	var out []packEntry
	for range count {
		kl := int(t[0])
		key := t[1 : 1+kl]
		off := int(binary.LittleEndian.Uint64(t[1+kl:]))
		n := int(binary.LittleEndian.Uint32(t[1+kl+8:]))
		out = append(out, packEntry{key: key, value: b[off : off+n]})
		t = t[kl+packEntryFixed:]
	}
	return out, nil
}

// writePacks fills the verdict cache of cacheDir with packs packs of per
// entries each, none the package's (their keys are no SHA-256 digest of
// its objects), every value of size bytes.
func writePacks(cacheDir string, packs, per, size int) error {
	v := filepath.Join(cacheDir, "verdicts")
	if err := os.MkdirAll(v, 0o755); err != nil {
		return err
	}
	value := bytes.Repeat([]byte("x"), size)
	entries := make([]packEntry, per)
	for p := range packs {
		for i := range entries {
			entries[i] = packEntry{key: []byte(fmt.Sprintf("%08x%056x", p, i)), value: value}
		}
		if err := os.WriteFile(filepath.Join(v, packName(p)), encodePack(entries), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// linkPacks fills the verdict cache of cacheDir with n names of one pack
// of per entries of size bytes (hard links to it, so that a large cache
// takes little disk: the cache counts each name's size).
func linkPacks(cacheDir string, n, per, size int) error {
	if err := writePacks(cacheDir, 1, per, size); err != nil {
		return err
	}
	v := filepath.Join(cacheDir, "verdicts")
	for i := 1; i < n; i++ {
		if err := os.Link(filepath.Join(v, packName(0)), filepath.Join(v, packName(i))); err != nil {
			return err
		}
	}
	return nil
}

// packsIn lists the verdict cache's packs (regular files named v1-*.pack),
// sorted.
func packsIn(verdicts string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(verdicts, "v1-*.pack"))
	var out []string
	for _, p := range m {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("%s: no packs to poison: the first run wrote none", verdicts)
	}
	return out, err
}

// lies are the ways lie rewrites a pack, each given the pack's bytes and
// entries and returning the bytes of a pack that lies.
var lies = []struct {
	name string
	lie  func(b []byte, es []packEntry) []byte
}{
	{"truncated", func(b []byte, _ []packEntry) []byte { return b[:len(b)/2] }},
	{"empty", func([]byte, []packEntry) []byte { return nil }},
	{"foreign", func(b []byte, _ []packEntry) []byte { return bytes.Repeat([]byte("PK\x03\x04"), len(b)/4) }},
	{"the table's checksum wrong", func(b []byte, _ []packEntry) []byte {
		b = bytes.Clone(b)
		b[len(b)-packFooterSize+16] ^= 1
		return b
	}},
	{"every record changed under its checksum", func(b []byte, es []packEntry) []byte {
		b = bytes.Clone(b)
		tableOff := int(binary.LittleEndian.Uint64(b[len(b)-packFooterSize:]))
		for i := len(packMagic); i < tableOff; i++ {
			b[i] ^= 0x20
		}
		return b
	}},
	{"the key table pointing outside the file", func(b []byte, es []packEntry) []byte {
		return rewriteTable(b, es, func(i int, e packEntry, off, n *uint64, sum *uint32) { *off = uint64(len(b)) + 1<<20 })
	}},
	{"records longer than an entry may be", func(b []byte, es []packEntry) []byte {
		return rewriteTable(b, es, func(i int, e packEntry, off, n *uint64, sum *uint32) { *n = 1 << 31 })
	}},
	{"a count of 2^31", func(b []byte, _ []packEntry) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint32(b[len(b)-packFooterSize+12:], 1<<31)
		return b
	}},
	{"a table of 4 GiB", func(b []byte, _ []packEntry) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint32(b[len(b)-packFooterSize+8:], 1<<32-1)
		return b
	}},
	{"each key holding the next key's entry, checksums right", func(_ []byte, es []packEntry) []byte {
		out := make([]packEntry, len(es))
		for i, e := range es {
			out[i] = packEntry{key: e.key, value: es[(i+1)%len(es)].value}
		}
		return encodePack(out)
	}},
	{"each entry a claim of a million findings, checksums right", func(_ []byte, es []packEntry) []byte {
		out := make([]packEntry, len(es))
		for i, e := range es {
			head, _, _ := bytes.Cut(e.value, []byte("\n"))
			out[i] = packEntry{key: e.key, value: fmt.Appendf(bytes.Clone(head), "\n{\"key\":%q,\"total\":1000000,\"findings\":[]}", e.key)}
		}
		return encodePack(out)
	}},
	{"each entry a byte changed, checksums right", func(_ []byte, es []packEntry) []byte {
		out := make([]packEntry, len(es))
		for i, e := range es {
			v := bytes.Clone(e.value)
			if len(v) > 1 {
				v[len(v)-2] ^= 0x20
			}
			out[i] = packEntry{key: e.key, value: v}
		}
		return encodePack(out)
	}},
}

// rewriteTable returns b with each table entry rewritten by fn and the
// table's checksum made right.
func rewriteTable(b []byte, es []packEntry, fn func(i int, e packEntry, off, n *uint64, sum *uint32)) []byte {
	b = bytes.Clone(b)
	foot := b[len(b)-packFooterSize:]
	tableOff := int(binary.LittleEndian.Uint64(foot))
	t := b[tableOff : len(b)-packFooterSize]
	at := 0
	for i, e := range es {
		kl := int(t[at])
		p := t[at+1+kl:]
		off, n, sum := binary.LittleEndian.Uint64(p), uint64(binary.LittleEndian.Uint32(p[8:])), binary.LittleEndian.Uint32(p[12:])
		fn(i, e, &off, &n, &sum)
		binary.LittleEndian.PutUint64(p, off)
		binary.LittleEndian.PutUint32(p[8:], uint32(n))
		binary.LittleEndian.PutUint32(p[12:], sum)
		at += kl + packEntryFixed
	}
	binary.LittleEndian.PutUint32(foot[16:], crc32.Checksum(t, castagnoli))
	return b
}

// lie replaces every pack of the verdict cache with one pack for each of
// lies, each lying about every entry of the packs: truncated, empty,
// foreign, the table's checksum wrong, every record changed under its
// checksum, a key table pointing outside the file or at records larger
// than an entry may be, a count of 2^31, a table of 4 GiB; and, with
// every checksum of the pack right, each key holding another key's entry,
// a claim of a million findings, or a byte changed.
func lie(verdicts string) error {
	ps, err := packsIn(verdicts)
	if err != nil {
		return err
	}
	var (
		all   []packEntry
		first []byte
	)
	for _, p := range ps {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		es, err := decodePack(b)
		if err != nil {
			return err
		}
		all = append(all, es...)
		if first == nil {
			first = b
		}
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	whole := encodePack(all)
	if len(ps) == 1 {
		whole = first
	}
	for i, l := range lies {
		if err := os.WriteFile(filepath.Join(verdicts, packName(1000+i)), l.lie(whole, all), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// fifos replaces every pack of the verdict cache with, in turn, a FIFO
// with no writer (opening it for reading blocks), a directory, a link to
// /dev/zero and a link to the pack copied out of the cache; and adds a
// FIFO named as a temporary file is.
func fifos(verdicts string) error {
	ps, err := packsIn(verdicts)
	if err != nil {
		return err
	}
	outside := filepath.Join(filepath.Dir(verdicts), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		return err
	}
	for i, p := range ps {
		for j := range 4 {
			name := p
			if j > 0 {
				name = filepath.Join(verdicts, packName(2000+4*i+j))
			}
			switch j {
			case 0:
				var b []byte
				b, err = os.ReadFile(p)
				if err == nil {
					err = os.WriteFile(filepath.Join(outside, filepath.Base(p)), b, 0o644)
				}
				if err == nil {
					err = os.Remove(p)
				}
				if err == nil {
					err = mkfifo(name)
				}
			case 1:
				err = os.Mkdir(name, 0o755)
			case 2:
				err = os.Symlink("/dev/zero", name)
			case 3:
				err = os.Symlink(filepath.Join(outside, filepath.Base(p)), name)
			}
			if err != nil {
				return err
			}
		}
	}
	return mkfifo(filepath.Join(verdicts, ".tmp-fifo"))
}

// CacheCases returns the verdict cache's worst cases.
func CacheCases() []CacheCase {
	const pkgSize = cacheCRDs * 1100
	return []CacheCase{
		cacheCase("cache-cost-100k-one-pack",
			"A verdict cache of one pack of 100,000 entries, none the package's: the first Get reads its key "+
				"table (within the 2^18 keys a cache reads), each of the package's 300 CRDs is a miss, and the "+
				"run writes one pack of them at its end; the second run reads all 300.",
			pkgSize+15<<20, true,
			func(cd string) error { return writePacks(cd, 1, 100_000, 64) }, nil),
		cacheCase("cache-cost-100k-many-packs",
			"A verdict cache of 100,000 entries in 1,000 packs of 100, none the package's: the first Get reads "+
				"the 64 most recently used packs' tables; writing the run's pack lists the directory once and "+
				"merges the smallest packs into one, leaving 8; the second run reads all 300 of its entries.",
			pkgSize+15<<20, true,
			func(cd string) error { return writePacks(cd, 1000, 100, 64) }, nil),
		cacheCase("cache-cost-full",
			"A verdict cache at its default bound (256 MiB: 64 names of one pack of 4 MiB, hard links to one "+
				"file): writing the run's pack merges the smallest 57 into one, reading all 228 MiB of them once "+
				"(the most a merge reads); their keys are the same, so one pack of 4 MiB is left, and the run's "+
				"pack fits.",
			pkgSize+4<<20, false,
			func(cd string) error { return linkPacks(cd, 64, 1000, 4<<10) }, nil),
		cacheCase("cache-cost-lying-packs",
			"After a first lint filled the cache, its pack is replaced by packs that lie about every entry: "+
				"truncated, empty, foreign, the table's checksum wrong, every record changed under its checksum, a "+
				"key table pointing outside the file or at records larger than an entry may be, a count of 2^31, a "+
				"table of 4 GiB; and, with every checksum right, each key holding another key's entry, a claim of a "+
				"million findings, or a byte changed. Each is no pack or a miss (the cache's checksums, or the "+
				"entry's key and checksum): the second lint validates again and reports the same.",
			pkgSize, false, nil, lie),
		cacheCase("cache-cost-fifo-packs",
			"After a first lint filled the cache, its pack is replaced by a FIFO with no writer, and a "+
				"directory, a link to /dev/zero and a link to a copy outside the cache are named as packs, beside a "+
				"FIFO named as a temporary file: nothing is opened that can block or is not a regular file inside "+
				"the cache; each is a miss, and the run writes its pack beside them.",
			pkgSize, false, nil, fifos),
		cacheCase("cache-cost-fifo-cache",
			"The verdict cache's directory is a FIFO: the cache cannot be opened, and the lint runs without it, "+
				"without blocking.",
			pkgSize, false,
			func(cd string) error { return mkfifo(filepath.Join(cd, "verdicts")) }, nil),
	}
}
