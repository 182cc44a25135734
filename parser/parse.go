package parser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Parse reads a YAML stream (a package.yaml) and returns its objects. Each
// document is decoded on its own goroutine (WithConcurrency), and the
// results are in stream order.
//
// A document that cannot be parsed becomes a *DocumentError in
// Package.Errors, and parsing goes on; WithFailFast returns the first one
// instead. Parse returns an error, and no Package, when reading fails, when
// ctx is cancelled, or when the stream exceeds MaxTotalBytes or
// MaxDocuments.
//
// A read blocked in r does not block cancellation: Parse returns ctx's
// error as soon as ctx is done, leaving the blocked Read behind (it ends
// when r's Read returns; close r to end it). A nil ctx or a nil r is an
// error.
func Parse(ctx context.Context, r io.Reader, opts ...Option) (*Package, error) {
	if err := checkArgs(ctx, r == nil, "reader"); err != nil {
		return nil, err
	}
	c := newConfig(opts)
	run, err := newRun(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := run.stream(c.file, r); err != nil {
		run.wait()
		return nil, err
	}
	return run.finish()
}

// ParseFS reads a package in its on-disk format from fsys: the files
// PackageFiles lists, in its order (crossplane.yaml at the root first, then
// every other file named *.yaml or *.yml in lexical order of path, skipping
// directories whose names start with "." and the examples directory at the
// root, and not following symbolic links). Positions name each file by its
// path in fsys. Errors are as for Parse.
//
// The symbolic links it does not follow are not silently lost: each one
// named *.yaml or *.yml, and each one that leads to a directory (other than
// one PackageFiles would skip anyway), is listed in Package.Skipped.
func ParseFS(ctx context.Context, fsys fs.FS, opts ...Option) (*Package, error) {
	if err := checkArgs(ctx, fsys == nil, "fs.FS"); err != nil {
		return nil, err
	}
	c := newConfig(opts)
	files, skipped, err := listPackageFiles(fsys)
	if err != nil {
		return nil, fmt.Errorf("parser: listing package files: %w", err)
	}
	run, err := newRun(ctx, c)
	if err != nil {
		return nil, err
	}
	for _, name := range files {
		if err := run.file(fsys, name); err != nil {
			run.wait()
			return nil, err
		}
		if run.stopped() {
			break
		}
	}
	p, err := run.finish()
	if err != nil {
		return nil, err
	}
	p.Skipped = skipped
	return p, nil
}

// checkArgs refuses a nil context and a nil source.
func checkArgs(ctx context.Context, nilSource bool, what string) error {
	if ctx == nil {
		return errors.New("parser: nil context")
	}
	if nilSource {
		return fmt.Errorf("parser: nil %s", what)
	}
	return nil
}

// MetaFile is the name of the file that holds a package's meta object in
// the on-disk format.
const MetaFile = "crossplane.yaml"

// reasonSymlink is the Reason of a SkippedFile that is a symbolic link.
const reasonSymlink = "symlink not followed"

// PackageFiles lists the files of a package in its on-disk format, in the
// order ParseFS reads them: MetaFile (crossplane.yaml) at the root first,
// when there is one, then every other regular file named *.yaml or *.yml,
// in lexical order of path. It skips directories whose names start with "."
// and the examples directory at the root, and does not follow symbolic
// links (nor list other files that are not regular); ParseFS records the
// links it passes over in Package.Skipped. The paths are slash-separated
// paths in fsys. Its error is the one fs.WalkDir returns (an *fs.PathError
// naming the path that could not be read).
//
// Tools that write a package (such as an xpkg build) use it to hold exactly
// the files that were parsed.
func PackageFiles(fsys fs.FS) ([]string, error) {
	files, _, err := listPackageFiles(fsys)
	return files, err
}

// listPackageFiles walks fsys as PackageFiles describes and returns, beside
// the files, the symbolic links it did not follow that would have mattered:
// those named *.yaml or *.yml, and those leading to a directory that would
// have been walked, each in lexical order of path.
func listPackageFiles(fsys fs.FS) (files []string, skipped []SkippedFile, err error) {
	hasMeta := false
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && skipDir(p, d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		ext := path.Ext(p)
		isYAML := ext == ".yaml" || ext == ".yml"
		if d.Type()&fs.ModeSymlink != 0 {
			if isYAML || !skipDir(p, d.Name()) && linksToDir(fsys, p) {
				skipped = append(skipped, SkippedFile{Path: p, Reason: reasonSymlink})
			}
			return nil
		}
		if !d.Type().IsRegular() { // devices, sockets, named pipes...
			return nil
		}
		if p == MetaFile {
			hasMeta = true
			return nil
		}
		if isYAML {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(files)
	if hasMeta {
		files = append([]string{MetaFile}, files...)
	}
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return files, skipped, nil
}

// skipDir reports whether the directory at path p, named name, is left out
// of a package: a hidden directory, or the examples directory at the root.
func skipDir(p, name string) bool {
	return strings.HasPrefix(name, ".") || p == "examples"
}

// linksToDir reports whether the symbolic link at p leads to a directory.
// It only asks for the target's metadata (a link that cannot be resolved
// leads nowhere); nothing is read through the link.
func linksToDir(fsys fs.FS, p string) bool {
	fi, err := fs.Stat(fsys, p)
	return err == nil && fi.IsDir()
}

// run is one parse: the documents of one or more streams, decoded by a
// bounded set of goroutines into slots kept in stream order.
type run struct {
	ctx    context.Context
	c      *config
	dec    *decoder
	sem    chan struct{}
	budget *budget
	wg     sync.WaitGroup
	slots  []*result
	failed atomic.Bool
	bytes  int64
	docs   int
}

func newRun(ctx context.Context, c *config) (*run, error) {
	ms, err := newMetaScheme(c.metaGroup)
	if err != nil {
		return nil, fmt.Errorf("parser: building the meta scheme: %w", err)
	}
	return &run{
		ctx: ctx,
		c:   c,
		dec: &decoder{
			limits:       c.limits,
			metaGroup:    c.metaGroup,
			metaScheme:   ms,
			objectScheme: c.objectScheme,
			strictKinds:  c.strictKinds,
			outlineDepth: c.outlineDepth,
			discardRaw:   c.discardRaw,
		},
		sem:    make(chan struct{}, c.concurrency),
		budget: newBudget(c.decodeMemory),
	}, nil
}

func (r *run) stopped() bool { return r.c.failFast && r.failed.Load() }

func (r *run) file(fsys fs.FS, name string) error {
	f, err := fsys.Open(name)
	if err != nil {
		return fmt.Errorf("parser: %w", err)
	}
	defer f.Close()
	return r.stream(name, f)
}

// stream splits one stream and hands its documents to decoding goroutines.
func (r *run) stream(file string, in io.Reader) error {
	sp := newSplitter(newCtxReader(r.ctx, in), file, r.c.limits, r.bytes, r.docs)
	sp.ctx = r.ctx
	defer func() {
		r.bytes += sp.Offset()
		r.docs += sp.index
	}()
	for {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		if r.stopped() {
			return nil
		}
		doc, err := sp.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var le *LimitError
		var de *DocumentError
		switch {
		case errors.As(err, &le) && le.Limit == "MaxDocumentBytes":
			r.slots = append(r.slots, &result{err: &DocumentError{Pos: doc.Pos, Err: le}})
			r.failed.Store(true)
			continue
		case errors.As(err, &de):
			r.slots = append(r.slots, &result{err: de})
			r.failed.Store(true)
			continue
		}
		if err != nil {
			return err
		}
		if doc.Empty {
			continue
		}
		slot := &result{}
		r.slots = append(r.slots, slot)
		select {
		case r.sem <- struct{}{}:
		case <-r.ctx.Done():
			return r.ctx.Err()
		}
		r.wg.Add(1)
		go func() {
			defer func() { <-r.sem; r.wg.Done() }()
			*slot = r.dec.decode(r.ctx, r.budget, doc)
			if slot.err != nil {
				r.failed.Store(true)
			}
		}()
	}
}

func (r *run) wait() { r.wg.Wait() }

func (r *run) finish() (*Package, error) {
	r.wait()
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	p := &Package{MetaGroup: r.c.metaGroup}
	for _, s := range r.slots {
		switch {
		case s.err != nil:
			if r.c.failFast {
				return nil, s.err
			}
			p.Errors = append(p.Errors, s.err)
		case s.obj == nil: // a document with nothing but comments
		case s.isMeta:
			p.Meta = append(p.Meta, s.obj)
		default:
			p.Objects = append(p.Objects, s.obj)
		}
	}
	return p, nil
}
