package verdictcache

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func openDir(t *testing.T, dir string, opts ...Option) *Dir {
	t.Helper()
	d, err := OpenDir(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func key(i int) string { return fmt.Sprintf("%064x", i) }

// packs lists the packs of dir.
func packs(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, packPrefix+"*"+packSuffix))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(m)
	return m
}

// fill writes the entries vals (key(i) -> vals[i]) in dir as a Dir does
// in one run, and returns the packs written.
func fill(t *testing.T, dir string, vals [][]byte, opts ...Option) []string {
	t.Helper()
	before := packs(t, dir)
	d, err := OpenDir(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if err := d.Put(context.Background(), key(i), v); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range packs(t, dir) {
		if !slices.Contains(before, p) {
			out = append(out, p)
		}
	}
	return out
}

func TestDirPutGet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openDir(t, t.TempDir())
	if _, ok := d.Get(ctx, key(1)); ok {
		t.Fatal("hit in an empty cache")
	}
	vals := [][]byte{[]byte("one"), nil, bytes.Repeat([]byte{'x'}, maxEntrySize)}
	for i, v := range vals {
		if err := d.Put(ctx, key(i), v); err != nil {
			t.Fatal(err)
		}
		got, ok := d.Get(ctx, key(i))
		if !ok || !bytes.Equal(got, v) {
			t.Errorf("entry %d: got %d bytes (hit %v), want %d", i, len(got), ok, len(v))
		}
	}
	// Overwriting replaces.
	if err := d.Put(ctx, key(0), []byte("two")); err != nil {
		t.Fatal(err)
	}
	if got, _ := d.Get(ctx, key(0)); string(got) != "two" {
		t.Errorf("overwritten entry: %q", got)
	}
	// Too large: not stored, no error.
	if err := d.Put(ctx, key(9), make([]byte, maxEntrySize+1)); err != nil {
		t.Errorf("a large entry: %v", err)
	}
	if _, ok := d.Get(ctx, key(9)); ok {
		t.Error("a large entry was stored")
	}
	for _, k := range []string{"", "../" + key(1), "ABCD", "ab/cd", "-abc", string(make([]byte, 129))} {
		if err := d.Put(ctx, k, []byte("v")); err == nil {
			t.Errorf("Put(%q): no error", k)
		}
		if _, ok := d.Get(ctx, k); ok {
			t.Errorf("Get(%q): a hit", k)
		}
	}
	// Nothing is written before Close; Close writes one pack, which
	// another Dir reads.
	if got := packs(t, d.Dir()); len(got) != 0 {
		t.Errorf("packs before Close: %v", got)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if got := packs(t, d.Dir()); len(got) != 1 {
		t.Errorf("packs after Close: %v; want one", got)
	}
	if err := d.Put(ctx, key(5), nil); err == nil {
		t.Error("Put after Close: no error")
	}
	e := openDir(t, d.Dir())
	for i, want := range [][]byte{[]byte("two"), nil, vals[2]} {
		if got, ok := e.Get(ctx, key(i)); !ok || !bytes.Equal(got, want) {
			t.Errorf("entry %d read back: %d bytes (hit %v), want %d", i, len(got), ok, len(want))
		}
	}
	// No temporary file is left.
	m, _ := filepath.Glob(filepath.Join(d.Dir(), tempPrefix+"*"))
	if len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// TestDirRoundTrip writes sets of entries in one run and reads them in
// another: every entry as written, in as few packs as the bound allows.
func TestDirRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name  string
		vals  [][]byte
		opts  []Option
		packs int // how many packs the run writes
	}{
		{"one entry", [][]byte{[]byte("v")}, nil, 1},
		{"an empty value", [][]byte{{}}, nil, 1},
		{"the largest value", [][]byte{bytes.Repeat([]byte{'l'}, maxEntrySize)}, nil, 1},
		{"2,000 entries of 600 bytes", repeatVals(2000, 600), nil, 1},
		{"past the flush size: packs of 4 MiB", repeatVals(100, 100<<10), nil, 3},
		{"past an eighth of the bound", repeatVals(40, 1000), []Option{WithMaxSize(80 << 10)}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if got := fill(t, dir, tt.vals, tt.opts...); len(got) != tt.packs {
				t.Errorf("%d packs; want %d", len(got), tt.packs)
			}
			d := openDir(t, dir, tt.opts...)
			for i, v := range tt.vals {
				if got, ok := d.Get(ctx, key(i)); !ok || !bytes.Equal(got, v) {
					t.Fatalf("entry %d: %d bytes (hit %v), want %d", i, len(got), ok, len(v))
				}
			}
			if _, ok := d.Get(ctx, key(len(tt.vals))); ok {
				t.Error("a hit for a key never stored")
			}
		})
	}
}

// repeatVals returns n values of size bytes, each its own.
func repeatVals(n, size int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = bytes.Repeat([]byte(strconv.Itoa(i%10)), size)
	}
	return out
}

// TestDirSeesOwnFlush has a Dir read an entry it flushed (past the flush
// size) after its first Get read the directory's packs.
func TestDirSeesOwnFlush(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openDir(t, t.TempDir(), WithMaxSize(64<<10))
	if _, ok := d.Get(ctx, key(0)); ok {
		t.Fatal("a hit in an empty cache")
	}
	// The fourth value takes the entries held to the flush size, an
	// eighth of the bound.
	v := bytes.Repeat([]byte{'v'}, (8<<10-len(packMagic))/4)
	for i := range 4 {
		if err := d.Put(ctx, key(i), v); err != nil {
			t.Fatal(err)
		}
	}
	if len(d.pending) != 0 || len(packs(t, d.Dir())) != 1 {
		t.Fatalf("%d entries held, %d packs: want the four flushed in one", len(d.pending), len(packs(t, d.Dir())))
	}
	for i := range 4 {
		if got, ok := d.Get(ctx, key(i)); !ok || !bytes.Equal(got, v) {
			t.Errorf("entry %d: %d bytes (hit %v)", i, len(got), ok)
		}
	}
}

// packFile is a pack being taken apart by TestDirCorruptPacks.
type packFile struct {
	b                         []byte
	tableOff, tableLen, count int
}

func parsePackFile(b []byte) packFile {
	f := b[len(b)-footerSize:]
	return packFile{b: b, tableOff: int(binary.LittleEndian.Uint64(f)), tableLen: int(binary.LittleEndian.Uint32(f[8:])), count: int(binary.LittleEndian.Uint32(f[12:]))}
}

func (p packFile) table() []byte { return p.b[p.tableOff : p.tableOff+p.tableLen] }

// resum writes the table's checksum again, after a change to it.
func (p packFile) resum() []byte {
	binary.LittleEndian.PutUint32(p.b[len(p.b)-footerSize+16:], crc32.Checksum(p.table(), castagnoli))
	return p.b
}

// eachEntry calls fn with the offset in the file of each table entry's
// record offset field.
func (p packFile) eachEntry(fn func(at int)) {
	at := p.tableOff
	for range p.count {
		kl := int(p.b[at])
		fn(at + 1 + kl)
		at += kl + entryFixed
	}
}

// TestDirCorruptPacks writes a pack, breaks it one way, and requires
// every entry to be a miss, at once, and a Put beside it to work.
func TestDirCorruptPacks(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs")
	}
	tests := []struct {
		name  string
		spoil func(t *testing.T, pack string, b []byte) // rewrites the pack at pack, whose bytes were b
	}{
		{"empty", write(func(b []byte) []byte { return nil })},
		{"only the magic", write(func(b []byte) []byte { return []byte(packMagic) })},
		{"truncated by a byte", write(func(b []byte) []byte { return b[:len(b)-1] })},
		{"truncated in the table", write(func(b []byte) []byte { return b[:parsePackFile(b).tableOff+3] })},
		{"truncated in the records", write(func(b []byte) []byte { return b[:40] })},
		{"a foreign file", write(func(b []byte) []byte { return bytes.Repeat([]byte("PK\x03\x04"), len(b)/4) })},
		{"another magic", write(func(b []byte) []byte { b[0] ^= 1; return b })},
		{"another footer magic", write(func(b []byte) []byte { b[len(b)-1] ^= 1; return b })},
		{"a byte of the table changed", write(func(b []byte) []byte { b[parsePackFile(b).tableOff+5] ^= 1; return b })},
		{"every record changed", write(func(b []byte) []byte {
			p := parsePackFile(b)
			for i := len(packMagic); i < p.tableOff; i++ {
				b[i] ^= 0x20
			}
			return b
		})},
		{"records swapped, checksums not", write(func(b []byte) []byte {
			p := parsePackFile(b)
			var offs []int
			p.eachEntry(func(at int) { offs = append(offs, at) })
			first := slices.Clone(b[offs[0] : offs[0]+12])
			for i := range offs {
				next := first
				if i+1 < len(offs) {
					next = b[offs[i+1] : offs[i+1]+12]
				}
				copy(b[offs[i]:], next)
			}
			return p.resum()
		})},
		{"records outside the file", write(func(b []byte) []byte {
			p := parsePackFile(b)
			p.eachEntry(func(at int) { binary.LittleEndian.PutUint64(b[at:], uint64(len(b))) })
			return p.resum()
		})},
		{"records over the table", write(func(b []byte) []byte {
			p := parsePackFile(b)
			p.eachEntry(func(at int) { binary.LittleEndian.PutUint32(b[at+8:], uint32(p.tableOff)) })
			return p.resum()
		})},
		{"records past an entry's size", write(func(b []byte) []byte {
			p := parsePackFile(b)
			p.eachEntry(func(at int) { binary.LittleEndian.PutUint32(b[at+8:], maxEntrySize+1) })
			return p.resum()
		})},
		{"a key that is not one", write(func(b []byte) []byte {
			p := parsePackFile(b)
			b[p.tableOff+1] = '/'
			return p.resum()
		})},
		{"a huge count", write(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(b)-footerSize+12:], 1<<31)
			return b
		})},
		{"a count of zero", write(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(b)-footerSize+12:], 0)
			return b
		})},
		{"one entry fewer than the table holds", write(func(b []byte) []byte {
			p := parsePackFile(b)
			binary.LittleEndian.PutUint32(b[len(b)-footerSize+12:], uint32(p.count-1))
			return b
		})},
		{"a table outside the file", write(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[len(b)-footerSize:], 1<<40)
			return b
		})},
		{"a table of 4 GiB", write(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(b)-footerSize+8:], 1<<32-1)
			return b
		})},
		{"a FIFO", func(t *testing.T, pack string, b []byte) {
			must(t, os.Remove(pack))
			must(t, syscall.Mkfifo(pack, 0o644))
		}},
		{"a directory", func(t *testing.T, pack string, b []byte) {
			must(t, os.Remove(pack))
			must(t, os.Mkdir(pack, 0o755))
		}},
		{"a link out of the directory", func(t *testing.T, pack string, b []byte) {
			out := filepath.Join(t.TempDir(), filepath.Base(pack))
			must(t, os.WriteFile(out, b, 0o644))
			must(t, os.Remove(pack))
			must(t, os.Symlink(out, pack))
		}},
		{"a link to /dev/zero", func(t *testing.T, pack string, b []byte) {
			must(t, os.Remove(pack))
			must(t, os.Symlink("/dev/zero", pack))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			vals := repeatVals(5, 100)
			ps := fill(t, dir, vals)
			if len(ps) != 1 {
				t.Fatalf("%d packs", len(ps))
			}
			b, err := os.ReadFile(ps[0])
			if err != nil {
				t.Fatal(err)
			}
			tt.spoil(t, ps[0], b)
			done := make(chan struct{})
			go func() {
				defer close(done)
				d, err := OpenDir(dir)
				if err != nil {
					t.Error(err)
					return
				}
				defer d.Close()
				for i := range vals {
					if got, ok := d.Get(ctx, key(i)); ok {
						t.Errorf("entry %d: a hit of %q", i, got)
					}
				}
				if err := d.Put(ctx, key(9), []byte("new")); err != nil {
					t.Errorf("Put beside a broken pack: %v", err)
				}
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("blocked on a broken pack")
			}
			e := openDir(t, dir)
			if got, ok := e.Get(ctx, key(9)); !ok || string(got) != "new" {
				t.Errorf("the entry put beside a broken pack: %q (hit %v)", got, ok)
			}
		})
	}
}

// write returns a spoil of TestDirCorruptPacks that writes what change
// makes of the pack's bytes.
func write(change func([]byte) []byte) func(*testing.T, string, []byte) {
	return func(t *testing.T, pack string, b []byte) {
		t.Helper()
		must(t, os.WriteFile(pack, change(slices.Clone(b)), 0o644))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestDirHostile requires a Put into a directory whose packs are
// replaced by what is no pack (a FIFO, a directory, links out of it) to
// write its pack beside them, never outside the directory, and without
// blocking.
func TestDirHostile(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs and links")
	}
	ctx := context.Background()
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	must(t, os.WriteFile(secret, []byte("outside"), 0o644))
	name := func(i int) string { return filepath.Join(dir, packName(int64(i), 1)) }
	must(t, syscall.Mkfifo(name(1), 0o644))
	must(t, os.Mkdir(name(2), 0o755))
	must(t, os.Symlink(secret, name(3)))
	must(t, os.Symlink(outside, name(4)))
	must(t, syscall.Mkfifo(filepath.Join(dir, tempPrefix+"fifo"), 0o644))
	done := make(chan struct{})
	go func() {
		defer close(done)
		d, err := OpenDir(dir, WithMaxSize(64<<10))
		if err != nil {
			t.Error(err)
			return
		}
		defer d.Close()
		if _, ok := d.Get(ctx, key(1)); ok {
			t.Error("a hit")
		}
		// Past the bound: the Dir evicts, and leaves alone what is not
		// a regular file.
		for i := range 40 {
			if err := d.Put(ctx, key(i), make([]byte, 2000)); err != nil {
				t.Errorf("Put beside hostile packs: %v", err)
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("blocked on the hostile directory")
	}
	if b, _ := os.ReadFile(secret); string(b) != "outside" {
		t.Errorf("a file outside the directory was changed: %q", b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("the directory outside holds %d files; want 1", len(ents))
	}
	for i := 1; i <= 4; i++ {
		if _, err := os.Lstat(name(i)); err != nil {
			t.Errorf("what stood in a pack's place was removed: %v", err)
		}
	}
}

// TestDirEvicts fills a small cache past its bound, run after run: it
// stays under it, the packs used last are kept, and the oldest are
// removed.
func TestDirEvicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const max = 64 << 10
	dir := t.TempDir()
	v := make([]byte, 1000)
	for run := range 30 {
		d, err := OpenDir(dir, WithMaxSize(max))
		if err != nil {
			t.Fatal(err)
		}
		// Entry 0 is used by every run.
		if _, ok := d.Get(ctx, key(0)); !ok && run > 0 {
			t.Fatalf("run %d: entry 0 evicted although used by every run", run)
		}
		for i := range 5 {
			if err := d.Put(ctx, key(1+run*5+i), v); err != nil {
				t.Fatal(err)
			}
		}
		if run == 0 {
			must(t, d.Put(ctx, key(0), v))
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if got := dirSize(t, dir); got > max {
			t.Fatalf("after run %d: %d bytes, over the bound %d", run, got, max)
		}
	}
	d := openDir(t, dir, WithMaxSize(max))
	if _, ok := d.Get(ctx, key(1+29*5)); !ok {
		t.Error("the newest entry was evicted")
	}
	if _, ok := d.Get(ctx, key(1+5)); ok {
		t.Error("an old entry was kept")
	}
}

// dirSize is what a Dir counts of dir: its regular files' bytes, each
// with packOverhead more.
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Type().IsRegular() {
			fi, _ := e.Info()
			n += fi.Size() + packOverhead
		}
	}
	return n
}

// TestDirCompacts writes a pack in each of 40 small runs: the packs are
// merged as they pile up, so that fewer than compactAt are left, and a
// later run reads every entry.
func TestDirCompacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	const runs, per = 40, 10
	for run := range runs {
		d, err := OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for i := range per {
			must(t, d.Put(ctx, key(run*per+i), []byte(key(run*per+i))))
		}
		// A key every run writes: the newest is kept.
		must(t, d.Put(ctx, "shared", []byte(strconv.Itoa(run))))
		must(t, d.Close())
		if n := len(packs(t, dir)); n >= compactAt {
			t.Fatalf("after run %d: %d packs", run, n)
		}
	}
	d := openDir(t, dir)
	for i := range runs * per {
		if got, ok := d.Get(ctx, key(i)); !ok || string(got) != key(i) {
			t.Fatalf("entry %d: %q (hit %v)", i, got, ok)
		}
	}
	if got, _ := d.Get(ctx, "shared"); string(got) != strconv.Itoa(runs-1) {
		t.Errorf("the shared key holds %q; want the last run's %d", got, runs-1)
	}
	if d.scans != 1 {
		t.Errorf("%d listings for the first Get", d.scans)
	}
}

// TestDirCompactDropsBroken merges packs among which one does not hold
// and one holds a record whose checksum does not: the merged pack keeps
// every other entry, and the broken pack is removed with the others;
// what is not a regular file is left alone.
func TestDirCompactDropsBroken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	for i := range compactAt {
		b := packOf(t, []string{key(i)})
		switch i {
		case 3:
			b[len(packMagic)] ^= 1 // the record under its checksum
		case 5:
			b = b[:len(b)-1] // no footer
		}
		must(t, os.WriteFile(filepath.Join(dir, packName(int64(i), 0)), b, 0o644))
	}
	if runtime.GOOS != "windows" {
		must(t, syscall.Mkfifo(filepath.Join(dir, packName(99, 0)), 0o644))
	}
	d := openDir(t, dir)
	must(t, d.Put(ctx, key(100), []byte(key(100))))
	must(t, d.Close())
	// compactTo packs after the merge, the run's, and the FIFO.
	want := compactTo + 1
	if runtime.GOOS != "windows" {
		want++
	}
	if got := packs(t, dir); len(got) != want {
		t.Errorf("%d names of packs after the merge; want %d", len(got), want)
	}
	e := openDir(t, dir)
	for i := range compactAt {
		b, ok := e.Get(ctx, key(i))
		if want := i != 3 && i != 5; ok != want || ok && string(b) != key(i) {
			t.Errorf("entry %d: %q (hit %v), want a hit %v", i, b, ok, want)
		}
	}
	if b, ok := e.Get(ctx, key(100)); !ok || string(b) != key(100) {
		t.Errorf("the run's entry: %q (hit %v)", b, ok)
	}
}

// TestDirReadBounds writes more packs than a Dir reads, and a pack of
// more keys than it reads: the most recently used packs are read, the
// rest are misses.
func TestDirReadBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	const n = maxPacksRead + 10
	for i := range n {
		p := filepath.Join(dir, packName(int64(i), 0))
		must(t, os.WriteFile(p, packOf(t, []string{key(i)}), 0o644))
		mt := time.Unix(1e9+int64(i), 0)
		must(t, os.Chtimes(p, mt, mt))
	}
	d := openDir(t, dir)
	for i := range n {
		_, ok := d.Get(ctx, key(i))
		if want := i >= n-maxPacksRead; ok != want {
			t.Errorf("pack %d: hit %v, want %v", i, ok, want)
		}
	}
	if d.scans != 1 || len(d.packs) != maxPacksRead {
		t.Errorf("%d listings, %d packs read", d.scans, len(d.packs))
	}

	// A pack of more keys than a Dir reads is not read.
	big := t.TempDir()
	keys := make([]string, maxKeysRead+1)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	must(t, os.WriteFile(filepath.Join(big, packName(1, 1)), packOf(t, keys), 0o644))
	e := openDir(t, big)
	if _, ok := e.Get(ctx, keys[0]); ok {
		t.Error("a pack past the keys read was read")
	}
}

// packOf is a pack of keys, each holding its key.
func packOf(t *testing.T, keys []string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := newPackWriter(&b)
	for _, k := range keys {
		w.add([]byte(k), []byte(k))
	}
	must(t, w.finish())
	return b.Bytes()
}

// TestDirConcurrent has goroutines of this process and two other
// processes write and read the same keys at once, each through its own
// Dirs, run after run: every read is a whole entry.
func TestDirConcurrent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var wg sync.WaitGroup
	var cmds []*exec.Cmd
	for p := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDirConcurrentChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "VERDICTCACHE_CHILD_DIR="+dir, "VERDICTCACHE_CHILD_ID="+strconv.Itoa(p+1))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() {
				t.Log(out.String())
			}
		})
	}
	for g := range 4 {
		wg.Go(func() { hammer(t, dir, 10+g) })
	}
	// Two Dirs of this process share one's Dir between goroutines.
	shared, err := OpenDir(dir, WithMaxSize(32<<10))
	if err != nil {
		t.Fatal(err)
	}
	for g := range 2 {
		wg.Go(func() { hammerDir(t, shared, 20+g) })
	}
	wg.Wait()
	must(t, shared.Close())
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child: %v", err)
		}
	}
	// Whatever is left reads whole.
	d := openDir(t, dir)
	hits := 0
	for i := range 40 {
		if b, ok := d.Get(context.Background(), key(i)); ok {
			hits++
			checkWhole(t, i, b)
		}
	}
	if hits == 0 {
		t.Error("no entry left after the runs")
	}
}

// TestDirConcurrentChild is TestDirConcurrent's other process.
func TestDirConcurrentChild(t *testing.T) {
	dir := os.Getenv("VERDICTCACHE_CHILD_DIR")
	if dir == "" {
		t.Skip("run by TestDirConcurrent")
	}
	id, _ := strconv.Atoi(os.Getenv("VERDICTCACHE_CHILD_ID"))
	hammer(t, dir, id)
}

// hammer runs 10 runs of hammerDir, each with a Dir of its own.
func hammer(t *testing.T, dir string, id int) {
	for range 10 {
		d, err := OpenDir(dir, WithMaxSize(32<<10))
		if err != nil {
			t.Error(err)
			return
		}
		hammerDir(t, d, id)
		if err := d.Close(); err != nil {
			t.Errorf("close: %v", err)
			return
		}
	}
}

// hammerDir writes and reads 40 shared keys in d, each value a whole one
// of its writer's: the key's number repeated, id's count of times.
func hammerDir(t *testing.T, d *Dir, id int) {
	ctx := context.Background()
	for round := range 40 {
		i := (round*7 + id) % 40
		v := bytes.Repeat([]byte(fmt.Sprintf("%d;", i)), 10+id)
		if err := d.Put(ctx, key(i), v); err != nil {
			t.Errorf("put: %v", err)
			return
		}
		j := (round*13 + id) % 40
		if b, ok := d.Get(ctx, key(j)); ok {
			checkWhole(t, j, b)
		}
	}
}

// checkWhole requires b to be a whole value of entry j.
func checkWhole(t *testing.T, j int, b []byte) {
	t.Helper()
	unit := []byte(fmt.Sprintf("%d;", j))
	if len(b)%len(unit) != 0 || len(b) == 0 || !bytes.Equal(b, bytes.Repeat(unit, len(b)/len(unit))) {
		t.Errorf("entry %d: a partial or mixed value %q", j, b)
	}
}

// TestDirListsOnce requires a run to list the directory once for its
// Gets and once for each pack it writes, whatever the directory holds
// besides packs.
func TestDirListsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	for i := range 3000 {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("other-%d", i)), nil, 0o644))
	}
	must(t, os.WriteFile(filepath.Join(dir, strings.Repeat("v1-", 3)), nil, 0o644))
	d := openDir(t, dir)
	for i := range 100 {
		d.Get(ctx, key(i))
		must(t, d.Put(ctx, key(i), []byte("v")))
	}
	must(t, d.Close())
	if d.scans != 2 {
		t.Errorf("%d listings; want 2 (the first Get, the pack at Close)", d.scans)
	}
}

// BenchmarkDirColdRun is a cold rule run's use of the cache: a miss, then
// a Put, for each of 2,000 entries of 600 bytes (the upjet monolith's
// 2,065 CRDs write entries of about that size), in a new directory, and
// the Close that ends the run. It reports the process's CPU time (user
// and system) per run as cpu-ns/op: the system time of creating files is
// most of the cost.
func BenchmarkDirColdRun(b *testing.B) {
	ctx := context.Background()
	value := bytes.Repeat([]byte{'v'}, 600)
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		d, err := OpenDir(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := processCPU()
		for i := range 2000 {
			k := key(i * 7919)
			if _, ok := d.Get(ctx, k); ok {
				b.Fatal("a hit in a new directory")
			}
			if err := d.Put(ctx, k, value); err != nil {
				b.Fatal(err)
			}
		}
		if err := d.Close(); err != nil {
			b.Fatal(err)
		}
		cpu += processCPU() - start
	}
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// processCPU is the process's CPU time so far, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
