package parser

import (
	"bufio"
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

	"github.com/xpkgkit/xpkgkit/internal/ctxio"
	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/limit"
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
// when r's Read returns; close r to end it, when r allows a Close during a
// Read as *os.File does: *oci.File accepts one, but closes only once the
// Read returns). ParseFS closes such a file itself once its Read returns. A nil ctx or a nil r is an error.
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
// The entries it does not read are not silently lost: each symbolic link
// named *.yaml or *.yml, each one that leads to a directory (other than one
// PackageFiles would skip anyway), and each YAML file under a hidden
// directory (other than .git), which crossplane xpkg build would read, is
// listed in Package.Skipped. The package needs no crossplane.yaml: the meta
// object is found by its group and kind in whichever file holds it.
func ParseFS(ctx context.Context, fsys fs.FS, opts ...Option) (*Package, error) {
	if err := checkArgs(ctx, fsys == nil, "fs.FS"); err != nil {
		return nil, err
	}
	c := newConfig(opts)
	files, skipped, err := listPackageFiles(ctx, fsys, c.limits, c.allDirs)
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
	p.Files = files
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

// PackageFiles lists the files of a package in its on-disk format, in the
// order ParseFS reads them: MetaFile (crossplane.yaml) at the root first,
// when there is one, then every other regular file named *.yaml or *.yml,
// in lexical order of path. It skips directories whose names start with "."
// and the examples directory at the root, and does not follow symbolic
// links (nor list other files that are not regular); ParseFS records the
// links and the hidden YAML files it passes over in Package.Skipped. The
// paths are slash-separated paths in fsys. Its error is that of reading a
// directory (an *fs.PathError naming it), or a *limit.Error when fsys holds
// more than DefaultLimits' MaxFiles entries.
//
// Tools that write a package (such as an xpkg build) use it to hold exactly
// the files that were parsed.
func PackageFiles(fsys fs.FS) ([]string, error) {
	files, _, err := listPackageFiles(context.Background(), fsys, DefaultLimits(), false)
	return files, err
}

// Reasons of SkippedFile.
const (
	// reasonSymlink: a symbolic link.
	reasonSymlink = "symlink not followed"
	// reasonHidden: a YAML file under a directory whose name starts with ".".
	reasonHidden = "in a hidden directory"
)

// listPackageFiles walks fsys as PackageFiles describes and returns, beside
// the files, the entries it did not read that would have mattered, each in
// lexical order of path: symbolic links named *.yaml or *.yml, symbolic
// links leading to a directory that would have been walked, and regular
// YAML files under hidden directories (crossplane xpkg build reads those;
// .git is not walked). With allDirs (WithAllDirectories) hidden
// directories and the examples directory are walked as any other. It
// visits at most lim.MaxFiles entries, reading directories a chunk at a
// time, and checks ctx as it goes.
func listPackageFiles(ctx context.Context, fsys fs.FS, lim Limits, allDirs bool) (files []string, skipped []SkippedFile, err error) {
	w := walker{ctx: ctx, fsys: fsys, lim: lim, allDirs: allDirs}
	if err := w.dir(".", false); err != nil {
		return nil, nil, err
	}
	files, skipped = w.files, w.skipped
	sort.Strings(files)
	if w.hasMeta {
		files = append([]string{MetaFile}, files...)
	}
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return files, skipped, nil
}

// walker is one walk of listPackageFiles.
type walker struct {
	ctx     context.Context
	fsys    fs.FS
	lim     Limits
	entries int
	files   []string
	skipped []SkippedFile
	hasMeta bool
	allDirs bool // WithAllDirectories
}

// readDirChunk is how many entries of a directory are read at once.
const readDirChunk = 1024

// dir walks the directory at p; hidden says it is (under) a hidden
// directory, whose YAML files are only recorded as skipped.
func (w *walker) dir(p string, hidden bool) error {
	f, err := w.fsys.Open(p)
	if err != nil {
		return err
	}
	var subdirs []string
	rd, ok := f.(fs.ReadDirFile)
	if !ok {
		f.Close()
		entries, err := fs.ReadDir(w.fsys, p)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if subdirs, err = w.entry(p, e, hidden, subdirs); err != nil {
				return err
			}
		}
	} else {
		for {
			entries, rerr := rd.ReadDir(readDirChunk)
			for _, e := range entries {
				if subdirs, err = w.entry(p, e, hidden, subdirs); err != nil {
					f.Close()
					return err
				}
			}
			if rerr == io.EOF || (rerr == nil && len(entries) == 0) {
				break
			}
			if rerr != nil {
				f.Close()
				return &fs.PathError{Op: "readdir", Path: p, Err: rerr}
			}
		}
		f.Close()
	}
	sort.Strings(subdirs)
	for _, d := range subdirs {
		h := hidden || !w.allDirs && strings.HasPrefix(path.Base(d), ".")
		if err := w.dir(d, h); err != nil {
			return err
		}
	}
	return nil
}

// entry handles one entry of the directory at dir and returns subdirs with
// the entry added when it is a directory to walk.
func (w *walker) entry(dir string, d fs.DirEntry, hidden bool, subdirs []string) ([]string, error) {
	w.entries++
	if max := w.lim.MaxFiles; max > 0 && w.entries > max {
		return nil, limitErr(limitval.MaxFiles, int64(max), Position{File: path.Join(dir, d.Name())})
	}
	if w.entries%256 == 0 {
		if err := w.ctx.Err(); err != nil {
			return nil, err
		}
	}
	name := d.Name()
	p := path.Join(dir, name)
	if d.IsDir() {
		switch {
		case name == ".git", p == "examples" && !w.allDirs:
			// Crossplane's build leaves the examples root out of the package;
			// a .git directory holds no package YAML, only many files.
		case hidden || strings.HasPrefix(name, "."):
			subdirs = append(subdirs, p) // walked for what it would hide
		default:
			subdirs = append(subdirs, p)
		}
		return subdirs, nil
	}
	ext := path.Ext(p)
	isYAML := ext == ".yaml" || ext == ".yml"
	if hidden {
		if isYAML && d.Type().IsRegular() {
			w.skipped = append(w.skipped, SkippedFile{Path: p, Reason: reasonHidden})
		}
		return subdirs, nil
	}
	if d.Type()&fs.ModeSymlink != 0 {
		if isYAML || !skipDir(p, name) && linksToDir(w.fsys, p) {
			w.skipped = append(w.skipped, SkippedFile{Path: p, Reason: reasonSymlink})
		}
		return subdirs, nil
	}
	if !d.Type().IsRegular() { // devices, sockets, named pipes...
		return subdirs, nil
	}
	if p == MetaFile {
		w.hasMeta = true
		return subdirs, nil
	}
	if isYAML {
		w.files = append(w.files, p)
	}
	return subdirs, nil
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
	br     *bufio.Reader
	wg     sync.WaitGroup
	slots  []*result
	failed atomic.Bool
	bytes  int64
	docs   int
	// raws holds the documents' bytes (unless WithoutRaw).
	raws rawStore
	// share lets the outlines of the parse's documents share equal
	// values (fastshare.go); dropped when the parse ends.
	share *sharer
	// leftBehind, set by stream when ctx ended it during a read of its
	// reader, is closed when that read returns.
	leftBehind <-chan struct{}
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
			fullParse:    c.fullParse,
		},
		sem:    make(chan struct{}, c.concurrency),
		budget: newBudget(c.decodeMemory),
		share:  newSharer(),
		bytes:  max(c.used.Bytes, 0),
		docs:   max(c.used.Documents, 0),
	}, nil
}

func (r *run) stopped() bool { return r.c.failFast && r.failed.Load() }

func (r *run) file(fsys fs.FS, name string) error {
	f, err := fsys.Open(name)
	if err != nil {
		return fmt.Errorf("parser: %w", err)
	}
	err = r.stream(name, f)
	if ch := r.leftBehind; ch != nil {
		// A cancelled read is still in flight on f: close f once it
		// returns, not under it (an fs.File need not allow a Close
		// during a Read).
		r.leftBehind = nil
		go func() {
			<-ch
			f.Close()
		}()
		return err
	}
	f.Close()
	return err
}

// stream splits one stream and hands its documents to decoding goroutines.
func (r *run) stream(file string, in io.Reader) error {
	cr := ctxio.NewReader(r.ctx, in)
	defer func() {
		cr.Close()
		select {
		case <-cr.Stopped():
		default: // ctx ended a read of in that is still in flight
			r.leftBehind = cr.Stopped()
		}
	}()
	in = cr
	if r.br == nil {
		r.br = bufio.NewReaderSize(in, splitBufSize)
	} else {
		// One read buffer for all the files of a package directory, not one
		// per file.
		r.br.Reset(in)
	}
	sp := newSplitter(r.br, file, r.c.limits, r.bytes, r.docs)
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
		var le *limit.Error
		var de *DocumentError
		switch {
		case errors.As(err, &le) && le.Limit == limitval.MaxDocumentBytes:
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
		var raw rawBytes
		if !r.c.discardRaw {
			raw = r.raws.add(doc.Data)
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
			*slot = r.dec.decode(r.ctx, r.budget, doc, raw, r.share)
			if slot.err != nil {
				r.failed.Store(true)
			}
		}()
	}
}

func (r *run) wait() { r.wg.Wait() }

func (r *run) finish() (*Package, error) {
	r.wait()
	r.share = nil // what the outlines share stays with them
	r.raws.close()
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	p := &Package{MetaGroup: r.c.metaGroup, Usage: Usage{Documents: r.docs, Bytes: r.bytes}}
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
