// Package safefile is the one file layer of the programs for everything
// they read or write beside a package: configuration files, ImageConfig
// files, baselines, fixed package files and the like.
//
// Reads take regular files only: the last element of the name is never
// followed when it is a symbolic link, the file is opened non-blocking (a
// FIFO or a device never hangs the open) and its type is checked on the
// open descriptor, the bytes are capped, and the read stops when the
// context ends.
//
// Writes never go through a link: the data goes to a temporary file created
// exclusively (O_EXCL) in the target's directory, is synced, and is renamed
// over the target. A target that is a link, is not a regular file, or lies
// outside the root the caller names is refused with a typed error.
package safefile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Error classes; every error this package returns wraps one of them, or an
// error of the operating system (fs.ErrNotExist, fs.ErrPermission, ...), in
// an *Error.
var (
	// ErrLink: the name is a symbolic link, which a read does not follow
	// and a write does not replace.
	ErrLink = errors.New("is a symbolic link")
	// ErrNotRegular: the name is a directory, a FIFO, a socket or a device.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrTooLarge: the file holds more bytes than the read's cap.
	ErrTooLarge = errors.New("is larger than its limit")
	// ErrOutsideRoot: a write's target lies outside the root it must stay
	// in (after its directory's links are resolved).
	ErrOutsideRoot = errors.New("lies outside the directory it must stay in")
)

// Error is an error of one file operation.
type Error struct {
	// Op is "read" or "write".
	Op string
	// Path is the file's name as the caller gave it.
	Path string
	// Limit is the cap of an ErrTooLarge read, in bytes; 0 otherwise.
	Limit int64
	// Err is the class (ErrLink, ErrNotRegular, ErrTooLarge,
	// ErrOutsideRoot) or the operating system's error.
	Err error
}

func (e *Error) Error() string {
	switch {
	case errors.Is(e.Err, ErrTooLarge):
		return fmt.Sprintf("%s %s (%d bytes)", e.Path, e.Err, e.Limit)
	case errors.Is(e.Err, ErrLink), errors.Is(e.Err, ErrNotRegular), errors.Is(e.Err, ErrOutsideRoot):
		return fmt.Sprintf("%s %s", e.Path, e.Err)
	}
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		return fmt.Sprintf("%s: %v", e.Path, pe.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

// Unwrap returns the class or the operating system's error.
func (e *Error) Unwrap() error { return e.Err }

// Open opens name for reading if it is a regular file, without following a
// link at its last element and without blocking on a FIFO or a device. The
// caller closes the file; Read is Open with the cap and the context.
func Open(name string) (*os.File, error) {
	f, err := openRegular(name)
	if err != nil {
		return nil, &Error{Op: "read", Path: name, Err: err}
	}
	return f, nil
}

// chunk is how many bytes Read reads between looks at the context.
const chunk = 64 << 10

// Read returns the content of the regular file name, at most max bytes
// (a larger file is an ErrTooLarge error), reading under ctx.
func Read(ctx context.Context, name string, max int64) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		return nil, &Error{Op: "read", Path: name, Limit: max, Err: ErrTooLarge}
	} else if err == nil {
		buf.Grow(int(fi.Size()) + 1) // one allocation for a file that does not grow
	}
	r := io.LimitReader(f, max+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, &Error{Op: "read", Path: name, Err: err}
		}
		_, err := io.CopyN(&buf, r, chunk)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &Error{Op: "read", Path: name, Err: err}
		}
	}
	if int64(buf.Len()) > max {
		return nil, &Error{Op: "read", Path: name, Limit: max, Err: ErrTooLarge}
	}
	return buf.Bytes(), nil
}

// WriteOptions says how Write may write.
type WriteOptions struct {
	// Root, when not empty, is the directory the target must lie in (its
	// directory's links resolved): a target outside is ErrOutsideRoot.
	Root string
	// Perm is the new file's permission bits; an existing target keeps its
	// own. Zero means 0o644.
	Perm fs.FileMode
	// MustExist refuses to create the target: it replaces an existing
	// regular file only.
	MustExist bool
}

// Write replaces the content of the file name with data, or creates it: it
// writes a temporary file created exclusively in name's directory, syncs
// it, and renames it over name, so that a reader sees the old content or
// the new, and a link planted at name or at the temporary name is never
// written through. It refuses a name that is a link (ErrLink), is not a
// regular file (ErrNotRegular) or lies outside opts.Root (ErrOutsideRoot).
func Write(ctx context.Context, name string, data []byte, opts WriteOptions) error {
	if err := write(ctx, name, data, opts); err != nil {
		return &Error{Op: "write", Path: name, Err: err}
	}
	return nil
}

// CheckWrite reports the error Write would refuse name with, without
// writing: a program checks its output files before it does the work whose
// result they hold. Write checks again.
func CheckWrite(name string, opts WriteOptions) error {
	if _, _, err := check(name, opts); err != nil {
		return &Error{Op: "write", Path: name, Err: err}
	}
	return nil
}

// check returns name's directory and the permission bits of the file to
// write, or why name cannot be written.
func check(name string, opts WriteOptions) (string, fs.FileMode, error) {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	if base == "" || base == "." || base == ".." {
		return "", 0, ErrNotRegular
	}
	if opts.Root != "" {
		if err := within(opts.Root, dir); err != nil {
			return "", 0, err
		}
	}
	perm := opts.Perm
	if perm == 0 {
		perm = 0o644
	}
	switch fi, err := os.Lstat(name); {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return "", 0, ErrLink
	case err == nil && !fi.Mode().IsRegular():
		return "", 0, ErrNotRegular
	case err == nil:
		perm = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return "", 0, err
	case opts.MustExist:
		return "", 0, err
	}
	return dir, perm, nil
}

func write(ctx context.Context, name string, data []byte, opts WriteOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dir, perm, err := check(name, opts)
	if err != nil {
		return err
	}
	// CreateTemp opens with O_CREATE|O_EXCL: a link planted at the
	// temporary name makes it fail, never writes through.
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".xpkgkit-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Checked again just before the rename, which replaces the name
	// itself, never what a link there points to.
	if fi, err := os.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return ErrLink
	} else if err == nil && !fi.Mode().IsRegular() {
		return ErrNotRegular
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return err
	}
	done = true
	syncDir(dir)
	return nil
}

// within checks that dir, its links resolved, lies in root, its links
// resolved.
func within(root, dir string) error {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	if r, err = filepath.Abs(r); err != nil {
		return err
	}
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if d, err = filepath.Abs(d); err != nil {
		return err
	}
	rel, err := filepath.Rel(r, d)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return ErrOutsideRoot
	}
	return nil
}

// syncDir syncs a directory so that a rename in it is durable; where
// directories cannot be synced it does nothing.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
