package safefile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// plant makes the entry a test needs in dir and returns its path.
type plant func(t *testing.T, dir string) string

func regular(content string) plant {
	return func(t *testing.T, dir string) string {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func link(to string) plant {
	return func(t *testing.T, dir string) string {
		p := filepath.Join(dir, "f")
		target := to
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, to)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Skipf("no symbolic links: %v", err)
		}
		return p
	}
}

func fifo(t *testing.T, dir string) string {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	p := filepath.Join(dir, "f")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

func TestRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		plant   plant
		max     int64
		want    string
		wantErr error
	}{
		{"regular", regular("abc"), 10, "abc", nil},
		{"empty", regular(""), 10, "", nil},
		{"at the cap", regular("abcd"), 4, "abcd", nil},
		{"over the cap", regular("abcde"), 4, "", ErrTooLarge},
		{"link to a regular file", func(t *testing.T, dir string) string {
			regular("x")(t, dir)
			if err := os.Rename(filepath.Join(dir, "f"), filepath.Join(dir, "g")); err != nil {
				t.Fatal(err)
			}
			return link("g")(t, dir)
		}, 10, "", ErrLink},
		{"dangling link", link("nowhere"), 10, "", ErrLink},
		{"FIFO", fifo, 10, "", ErrNotRegular},
		{"directory", func(t *testing.T, dir string) string { return dir }, 10, "", ErrNotRegular},
		{"missing", func(t *testing.T, dir string) string { return filepath.Join(dir, "none") }, 10, "", fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tc.plant(t, t.TempDir())
			got, err := Read(context.Background(), p, tc.max)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Read: %v, want %v", err, tc.wantErr)
				}
				var fe *Error
				if !errors.As(err, &fe) || fe.Op != "read" || fe.Path != p {
					t.Errorf("Read: %#v, want an *Error of the read of %s", err, p)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("Read = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestReadCancelled(t *testing.T) {
	t.Parallel()
	p := regular("abc")(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, p, 10); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read: %v, want context.Canceled", err)
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		plant     plant // nil: nothing at the target
		opts      WriteOptions
		wantErr   error
		wantPerm  fs.FileMode
		checkTemp bool
	}{
		{"new file", nil, WriteOptions{}, nil, 0o644, false},
		{"new file, its mode", nil, WriteOptions{Perm: 0o600}, nil, 0o600, false},
		{"replaces, keeping the mode", regular("old"), WriteOptions{}, nil, 0o600, false},
		{"must exist", nil, WriteOptions{MustExist: true}, fs.ErrNotExist, 0, false},
		{"link to a file outside", link(victim), WriteOptions{}, ErrLink, 0, false},
		{"dangling link", link(filepath.Join(outside, "created")), WriteOptions{}, ErrLink, 0, false},
		{"FIFO", fifo, WriteOptions{}, ErrNotRegular, 0, false},
		{"outside the root", nil, WriteOptions{Root: outside}, ErrOutsideRoot, 0, false},
		{"inside the root", nil, WriteOptions{Root: "ROOT"}, nil, 0o644, false},
		// The old fix wrote FILE.xpkg-lint-fix with os.WriteFile: a link
		// planted there was followed. Write's temporary name is random and
		// created exclusively.
		{"link planted at the old temporary name", func(t *testing.T, dir string) string {
			p := regular("old")(t, dir)
			if err := os.Symlink(victim, p+".xpkg-lint-fix"); err != nil {
				t.Skipf("no symbolic links: %v", err)
			}
			return p
		}, WriteOptions{}, nil, 0o600, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := filepath.Join(dir, "f")
			if tc.plant != nil {
				p = tc.plant(t, dir)
			}
			opts := tc.opts
			if opts.Root == "ROOT" {
				opts.Root = dir
			}
			err := Write(context.Background(), p, []byte("new"), opts)
			if b, _ := os.ReadFile(victim); string(b) != "keep" {
				t.Fatalf("the file outside was written: %q", b)
			}
			if _, serr := os.Lstat(filepath.Join(outside, "created")); serr == nil {
				t.Fatal("a file was created outside through a dangling link")
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Write: %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(p)
			if err != nil || string(b) != "new" {
				t.Fatalf("after Write: %q, %v", b, err)
			}
			if runtime.GOOS != "windows" {
				if fi, _ := os.Stat(p); fi.Mode().Perm() != tc.wantPerm {
					t.Errorf("mode %v, want %v", fi.Mode().Perm(), tc.wantPerm)
				}
			}
			ents, _ := os.ReadDir(dir)
			want := 1
			if tc.checkTemp {
				want = 2 // the planted link stays
			}
			if len(ents) != want {
				t.Errorf("%d entries left in the directory, want %d (no temporary file)", len(ents), want)
			}
		})
	}
}
