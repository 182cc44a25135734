package ociwrite

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Fixed values of every tar entry this package writes.
const (
	// FileMode is the permission bits of every regular file entry.
	FileMode = 0o644
	// DirMode is the permission bits of every directory entry.
	DirMode = 0o755
)

// epoch is the modification time of every tar entry: the Unix epoch, as the
// Crossplane CLI's `.xpkg` files have.
var epoch = time.Unix(0, 0).UTC()

// ErrInvalidFile is returned when a File cannot be written to a tar stream.
var ErrInvalidFile = errors.New("ociwrite: invalid file")

// File is one entry of a tar stream written by WriteTar or TarFiles.
type File struct {
	// Name is the entry's path, written as given (a leading "./" or a path
	// in a subdirectory is kept, so fixtures can place files anywhere).
	Name string
	// Data is the content of a regular file. It must be empty for a
	// directory.
	Data []byte
	// Dir makes the entry a directory.
	Dir bool
}

// TarFiles returns an uncompressed tar stream holding files, sorted by name
// (files with equal names keep their order), each entry with the fixed
// header fields described in the package documentation.
func TarFiles(files ...File) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteTar(context.Background(), &buf, files...); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteTar writes files to w as an uncompressed tar stream, sorted by name
// (files with equal names keep their order; no parent directories are
// added), with fixed header fields.
func WriteTar(ctx context.Context, w io.Writer, files ...File) error {
	sorted := slices.Clone(files)
	slices.SortStableFunc(sorted, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	tw := tar.NewWriter(w)
	for _, f := range sorted {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := writeTarFile(tw, f); err != nil {
			return err
		}
	}
	return tw.Close()
}

func writeTarFile(tw *tar.Writer, f File) error {
	if f.Name == "" {
		return fmt.Errorf("%w: empty name", ErrInvalidFile)
	}
	if f.Dir {
		if len(f.Data) != 0 {
			return fmt.Errorf("%w: directory %q has content", ErrInvalidFile, f.Name)
		}
		name := f.Name
		if !strings.HasSuffix(name, "/") {
			name += "/"
		}
		return tw.WriteHeader(dirHeader(name))
	}
	if err := tw.WriteHeader(fileHeader(f.Name, int64(len(f.Data)))); err != nil {
		return fmt.Errorf("ociwrite: writing tar header of %q: %w", f.Name, err)
	}
	if _, err := tw.Write(f.Data); err != nil {
		return fmt.Errorf("ociwrite: writing tar entry %q: %w", f.Name, err)
	}
	return nil
}

// fileHeader returns the fixed header of a regular file entry.
func fileHeader(name string, size int64) *tar.Header {
	return &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     name,
		Size:     size,
		Mode:     FileMode,
		ModTime:  epoch,
	}
}

// dirHeader returns the fixed header of a directory entry.
func dirHeader(name string) *tar.Header {
	return &tar.Header{
		Typeflag: tar.TypeDir,
		Name:     name,
		Mode:     DirMode,
		ModTime:  epoch,
	}
}

// ctxWriter fails writes once its context is done, so that long copies into
// a caller's writer stop on cancellation.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
