package oci

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// rootFS is the fs.FS of an OCI layout directory: it opens only regular
// files inside its root. Symbolic links are followed only while they stay
// inside the root (os.Root refuses the others), so a blob linked to a host
// file is not read; special files (FIFOs, devices, sockets) are refused
// without blocking on them: they are checked before they are opened and
// opened non-blocking, and the opened file is checked again.
type rootFS struct{ root *os.Root }

// Open implements fs.FS for the regular files under the root.
func (r rootFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	fail := func(err error) (fs.File, error) { return nil, &fs.PathError{Op: "open", Path: name, Err: err} }
	fi, err := r.root.Lstat(name)
	switch {
	case err != nil:
		return fail(r.classify(name, err))
	case fi.Mode().Type() == fs.ModeSymlink:
		// os.Root follows it only inside the root; the opened file is
		// checked below.
	case !fi.Mode().IsRegular():
		return fail(fmt.Errorf("%w: %s", ErrNotRegularFile, fi.Mode().Type()))
	}
	f, err := r.root.OpenFile(name, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return fail(r.classify(name, err))
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%w: %s", ErrNotRegularFile, fi.Mode().Type())
		}
		return fail(err)
	}
	return f, nil
}

// classify gives an error of os.Root this package's class: ErrNotFound for
// a missing file, ErrUnsafePath for a path that leaves the root through a
// symbolic link (or "..").
func (r rootFS) classify(name string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %v", ErrNotFound, err)
	case strings.Contains(err.Error(), "escapes"): // os.Root's errPathEscapes is not exported
		return fmt.Errorf("%w: %v", ErrUnsafePath, err)
	}
	if fi, lerr := r.root.Lstat(name); lerr == nil && fi.Mode().Type() == fs.ModeSymlink {
		return fmt.Errorf("%w: %v", ErrUnsafePath, err)
	}
	return err
}
