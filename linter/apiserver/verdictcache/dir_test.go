package verdictcache

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

func openDir(t *testing.T, dir string, opts ...DirOption) *Dir {
	t.Helper()
	d, err := OpenDir(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func key(i int) string { return fmt.Sprintf("%064x", i) }

func TestDirPutGet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openDir(t, t.TempDir())
	if _, ok := d.Get(ctx, key(1)); ok {
		t.Fatal("hit in an empty cache")
	}
	for i, v := range [][]byte{[]byte("one"), nil, bytes.Repeat([]byte{'x'}, MaxEntrySize)} {
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
	if err := d.Put(ctx, key(9), make([]byte, MaxEntrySize+1)); err != nil {
		t.Errorf("a large entry: %v", err)
	}
	if _, ok := d.Get(ctx, key(9)); ok {
		t.Error("a large entry was stored")
	}
	for _, k := range []string{"", "a", "../" + key(1), "ABCD", "ab/cd", "-abc", string(make([]byte, 129))} {
		if err := d.Put(ctx, k, []byte("v")); err == nil {
			t.Errorf("Put(%q): no error", k)
		}
		if _, ok := d.Get(ctx, k); ok {
			t.Errorf("Get(%q): a hit", k)
		}
	}
	// No temporary file is left.
	m, _ := filepath.Glob(filepath.Join(d.Dir(), "*", tempPrefix+"*"))
	if len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// TestDirShardRemoved removes a subdirectory of entries, which the Dir
// holds open, behind its back: the next Put makes it again, and the entry
// is there to Get.
func TestDirShardRemoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openDir(t, t.TempDir())
	tests := []struct {
		name   string
		remove func(shard string) error
	}{
		{"removed", os.RemoveAll},
		{"replaced by a file", func(shard string) error {
			if err := os.RemoveAll(shard); err != nil {
				return err
			}
			return os.WriteFile(shard, nil, 0o644)
		}},
	}
	for i, tt := range tests {
		k := key(i)
		if err := d.Put(ctx, k, []byte("one")); err != nil {
			t.Fatal(err)
		}
		shard := filepath.Join(d.Dir(), k[:2])
		if err := tt.remove(shard); err != nil {
			t.Fatal(err)
		}
		if _, ok := d.Get(ctx, k); ok {
			t.Errorf("%s: a hit for an entry removed", tt.name)
		}
		err := d.Put(ctx, k, []byte("two"))
		if fi, serr := os.Lstat(shard); serr == nil && !fi.IsDir() {
			// Not a directory: the Put fails, and nothing is written.
			if err == nil {
				t.Errorf("%s: Put into a shard that is a file: no error", tt.name)
			}
			os.Remove(shard)
			continue
		}
		if err != nil {
			t.Fatalf("%s: Put after the shard was removed: %v", tt.name, err)
		}
		if got, ok := d.Get(ctx, k); !ok || string(got) != "two" {
			t.Errorf("%s: Get after the shard was made again: %q, %v", tt.name, got, ok)
		}
	}
}

// TestDirHostile requires whatever the directory holds in an entry's
// place (a FIFO, a directory, a link out of it, a file too large, a
// socket) to be a miss, at once, and a Put over it to fail or replace
// it, never to write outside the directory.
func TestDirHostile(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs and links")
	}
	ctx := context.Background()
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := openDir(t, dir)
	name := func(i int) string { k := key(i); return filepath.Join(dir, k[:2], k) }
	os.MkdirAll(filepath.Dir(name(1)), 0o755)
	if err := syscall.Mkfifo(name(1), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(name(2), 0o755)
	os.Symlink(secret, name(3))
	os.WriteFile(name(4), make([]byte, MaxEntrySize+1), 0o644)
	// A shard that is a link out of the directory.
	k5 := fmt.Sprintf("ff%062x", 5)
	os.Symlink(outside, filepath.Join(dir, "ff"))
	os.WriteFile(filepath.Join(outside, k5), []byte("outside"), 0o644)

	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, k := range []string{key(1), key(2), key(3), key(4), k5} {
			if b, ok := d.Get(ctx, k); ok {
				t.Errorf("Get(%s): a hit of %q", k, b)
			}
		}
		// Puts: each fails or replaces the entry; nothing outside
		// changes.
		for _, k := range []string{key(1), key(3), k5} {
			_ = d.Put(ctx, k, []byte("new"))
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
	if _, err := os.Stat(filepath.Join(outside, k5)); err != nil {
		t.Error(err)
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 2 {
		t.Errorf("the directory outside holds %d files; want 2", len(ents))
	}
	// The size scan skips what is not a regular file.
	if err := d.Put(ctx, key(7), []byte("ok")); err != nil {
		t.Errorf("Put beside hostile entries: %v", err)
	}
}

// TestDirEvicts fills a small cache past its bound: it stays under it,
// and the entries used last are kept.
func TestDirEvicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const max = 64 << 10
	d := openDir(t, t.TempDir(), WithMaxSize(max))
	v := make([]byte, 1000)
	for i := range 200 {
		if err := d.Put(ctx, key(i), v); err != nil {
			t.Fatal(err)
		}
		// Entry 0 is used all along.
		if _, ok := d.Get(ctx, key(0)); !ok && i > 0 {
			t.Fatalf("entry 0 evicted after %d puts although used last", i)
		}
		if got := dirSize(t, d.Dir()); got > max {
			t.Fatalf("after %d puts: %d bytes, over the bound %d", i+1, got, max)
		}
	}
	if _, ok := d.Get(ctx, key(199)); !ok {
		t.Error("the newest entry was evicted")
	}
	if _, ok := d.Get(ctx, key(1)); ok {
		t.Error("an old entry was kept")
	}
}

// dirSize is what a Dir counts of dir: its entries' bytes, each with
// entryOverhead more.
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			fi, _ := e.Info()
			n += fi.Size() + entryOverhead
		}
		return nil
	})
	return n
}

// TestDirConcurrent has goroutines of this process and two other
// processes write and read the same keys at once: every read is a whole
// entry.
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
	wg.Wait()
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child: %v", err)
		}
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

// hammer writes and reads 40 shared keys, each value a whole one of its
// writer's: the key's number repeated, id's count of times.
func hammer(t *testing.T, dir string, id int) {
	ctx := context.Background()
	d, err := OpenDir(dir, WithMaxSize(32<<10))
	if err != nil {
		t.Error(err)
		return
	}
	defer d.Close()
	for round := range 200 {
		i := (round*7 + id) % 40
		v := bytes.Repeat([]byte(fmt.Sprintf("%d;", i)), 10+id)
		if err := d.Put(ctx, key(i), v); err != nil {
			t.Errorf("put: %v", err)
			return
		}
		j := (round*13 + id) % 40
		if b, ok := d.Get(ctx, key(j)); ok {
			unit := []byte(fmt.Sprintf("%d;", j))
			if len(b)%len(unit) != 0 || !bytes.Equal(b, bytes.Repeat(unit, len(b)/len(unit))) {
				t.Errorf("entry %d: a partial or mixed value %q", j, b)
				return
			}
		}
	}
}

// TestDirManyEntries scans a cache of 10,000 entries once for 100 puts,
// and evicts in one pass (internal/hostile's cache-cost-100k-entries
// measures 100,000 through xpkg-lint).
func TestDirManyEntries(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 10,000 files")
	}
	ctx := context.Background()
	dir := t.TempDir()
	const n = 10_000
	for s := range 256 {
		os.Mkdir(filepath.Join(dir, fmt.Sprintf("%02x", s)), 0o755)
	}
	old := time.Unix(1e9, 0)
	for i := range n {
		k := fmt.Sprintf("%064x", i*2654435761%(1<<40))
		p := filepath.Join(dir, k[:2], k)
		if err := os.WriteFile(p, []byte("v"), 0o644); err != nil {
			t.Fatal(err)
		}
		if i%100 == 0 {
			os.Chtimes(p, old, old)
		}
	}
	// The bound is under the entries' size: the first Put scans once and
	// evicts to seven eighths of it.
	max := int64(n) * (1 + entryOverhead) / 2
	d := openDir(t, dir, WithMaxSize(max))
	for i := range 100 {
		if err := d.Put(ctx, fmt.Sprintf("new%061x", i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if d.scans > 2 {
		t.Errorf("%d scans for 100 puts", d.scans)
	}
	if got := dirSize(t, dir); got > max {
		t.Errorf("%d bytes after eviction; bound %d", got, max)
	}
}

// BenchmarkDirColdRun is a cold rule run's use of the cache: a miss, then
// a Put, for each of 2,000 entries of 200 bytes (the upjet monolith's
// 2,065 CRDs write entries of about that size), in a new directory.
func BenchmarkDirColdRun(b *testing.B) {
	ctx := context.Background()
	value := bytes.Repeat([]byte{'v'}, 200)
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
		cpu += processCPU() - start
		d.Close()
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

// TestDirShardFIFO finds a FIFO in the place of a subdirectory of
// entries: a miss and a failed Put, at once.
func TestDirShardFIFO(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	k := key(1)
	if err := syscall.Mkfifo(filepath.Join(dir, k[:2]), 0o644); err != nil {
		t.Fatal(err)
	}
	d := openDir(t, dir)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, ok := d.Get(ctx, k); ok {
			t.Error("a hit in a FIFO")
		}
		if err := d.Put(ctx, k, []byte("v")); err == nil {
			t.Error("Put into a FIFO: no error")
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("blocked on a FIFO in a subdirectory's place")
	}
}
