package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

// document is an open text document.
type document struct {
	uri     string
	path    string // absolute, "" for a URI that is no file
	version int
	text    string
}

// settings are the workspace configuration: under "xpkg" (or at the top
// level) of initializationOptions and workspace/didChangeConfiguration.
type settings struct {
	// CrossplaneVersion is the target Crossplane version ("" for the
	// newest stable release, or the configuration file's).
	CrossplaneVersion string `json:"crossplaneVersion"`
	// Disable lists rules to disable, by ID or name.
	Disable []string `json:"disable"`
	// CacheDir is a Crossplane package cache directory: the dependency
	// graph is resolved from it, offline, and linted.
	CacheDir string `json:"cacheDir"`
}

// maxSettings bounds the settings' lists.
const maxSettings = 1000

// applySettings reads settings from a JSON object.
func (s *Server) applySettings(raw json.RawMessage) error {
	var wrap struct {
		Xpkg *settings `json:"xpkg"`
	}
	var st settings
	if err := json.Unmarshal(raw, &wrap); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if wrap.Xpkg != nil {
		st = *wrap.Xpkg
	} else if err := json.Unmarshal(raw, &st); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if len(st.Disable) > maxSettings {
		return fmt.Errorf("settings: disable: more than %d rules", maxSettings)
	}
	if _, _, err := linter.CrossplaneLine(st.CrossplaneVersion); err != nil {
		return fmt.Errorf("settings: crossplaneVersion: %w", err)
	}
	s.mu.Lock()
	s.settings = st
	s.mu.Unlock()
	return nil
}

// flags returns xpkg-lint's flags for the settings.
func (st settings) flags() []string {
	var f []string
	if st.CrossplaneVersion != "" {
		f = append(f, "--crossplane-version", st.CrossplaneVersion)
	}
	if len(st.Disable) > 0 {
		f = append(f, "--disable", strings.Join(st.Disable, ","))
	}
	if st.CacheDir != "" {
		f = append(f, "--deps", "--offline", "--deps-cache", st.CacheDir)
	}
	return f
}

// uriToPath returns the local path of a file: URI, "" for another.
func uriToPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/")
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return ""
	}
	return filepath.Clean(p)
}

// pathToURI returns the file: URI of an absolute path.
func pathToURI(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// open records an opened document and lints its package.
func (s *Server) open(item textDocumentItem) error {
	s.mu.Lock()
	if _, ok := s.docs[item.URI]; !ok && len(s.docs) >= maxDocuments {
		s.mu.Unlock()
		return fmt.Errorf("more than %d open documents: %s not tracked", maxDocuments, shorten(item.URI))
	}
	d := &document{uri: item.URI, path: uriToPath(item.URI), version: item.Version, text: item.Text}
	s.docs[item.URI] = d
	s.mu.Unlock()
	s.schedule(d.path)
	return nil
}

// change applies the changes of a didChange (full text, or ranges) and
// lints the package again after the debounce.
func (s *Server) change(p didChangeParams) error {
	s.mu.Lock()
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("change of a document not open: %s", shorten(p.TextDocument.URI))
	}
	text := d.text
	for _, c := range p.ContentChanges {
		if c.Range == nil {
			text = c.Text
			continue
		}
		from, to := offsetOf(text, c.Range.Start), offsetOf(text, c.Range.End)
		if from > to {
			s.mu.Unlock()
			return errors.New("change: a range that ends before it starts")
		}
		if int64(len(text))-int64(to-from)+int64(len(c.Text)) > s.maxMessage {
			s.mu.Unlock()
			return fmt.Errorf("change: the document would exceed %d bytes", s.maxMessage)
		}
		text = text[:from] + c.Text + text[to:]
	}
	nd := &document{uri: d.uri, path: d.path, text: text, version: d.version}
	if p.TextDocument.Version != nil {
		nd.version = *p.TextDocument.Version
	}
	s.docs[d.uri] = nd // documents are immutable: a lint's snapshot keeps its own
	s.mu.Unlock()
	s.schedule(d.path)
	return nil
}

// saved lints the package again (the configuration or another file may
// have changed on disk).
func (s *Server) saved(uri string) {
	s.schedule(uriToPath(uri))
}

// close forgets a document: its package is linted again from disk.
func (s *Server) close(uri string) {
	s.mu.Lock()
	d, ok := s.docs[uri]
	delete(s.docs, uri)
	s.mu.Unlock()
	if ok {
		s.schedule(d.path)
	}
}

// maxRootDepth bounds the directories searched upward for a package root.
const maxRootDepth = 64

// packageRoot returns the root of the package file belongs to: the nearest
// directory, from the file's upward, that holds parser.MetaFile (on disk or
// open in the editor); the search stops after a directory that holds .git.
// "" when there is none.
func (s *Server) packageRoot(file string) string {
	if file == "" {
		return ""
	}
	dir := filepath.Dir(file)
	for range maxRootDepth {
		meta := filepath.Join(dir, parser.MetaFile)
		if fi, err := os.Lstat(meta); err == nil && fi.Mode().IsRegular() {
			return dir
		}
		s.mu.Lock()
		_, open := s.docs[pathToURI(meta)]
		s.mu.Unlock()
		if open {
			return dir
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

// snapshot is the open documents of one package as a lint reads them.
type snapshot struct {
	root string
	docs map[string]*document // by path relative to root, slash-separated
}

// snapshotOf returns the open documents under root.
func (s *Server) snapshotOf(root string) *snapshot {
	sn := &snapshot{root: root, docs: map[string]*document{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.docs {
		if d.path == "" {
			continue
		}
		rel, err := filepath.Rel(root, d.path)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		sn.docs[filepath.ToSlash(rel)] = d
	}
	return sn
}

// fs returns the package's files: the open documents over the disk.
func (sn *snapshot) fs() fs.FS {
	o := &overlayFS{base: os.DirFS(sn.root), files: map[string]string{}, added: map[string][]string{}}
	for rel, d := range sn.docs {
		o.files[rel] = d.text
		if _, err := os.Lstat(filepath.Join(sn.root, filepath.FromSlash(rel))); err != nil {
			dir := path.Dir(rel)
			o.added[dir] = append(o.added[dir], path.Base(rel))
		}
	}
	return o
}

// text returns the content of the file at abs as the lint read it: the
// open document's, else the file on disk (at most the message cap).
func (sn *snapshot) text(abs string, max int64) (string, *document, bool) {
	if rel, err := filepath.Rel(sn.root, abs); err == nil {
		if d, ok := sn.docs[filepath.ToSlash(rel)]; ok {
			return d.text, d, true
		}
	}
	b, err := safefile.Read(context.Background(), abs, max)
	if err != nil {
		return "", nil, false
	}
	return string(b), nil, true
}

// overlayFS is base with the files of open documents in place of (or
// beside) those on disk.
type overlayFS struct {
	base  fs.FS
	files map[string]string   // path -> text
	added map[string][]string // directory -> names of files not on disk
}

func (o *overlayFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if text, ok := o.files[name]; ok {
		return &memFile{info: memInfo{name: path.Base(name), size: int64(len(text))}, r: strings.NewReader(text)}, nil
	}
	f, err := o.base.Open(name)
	if err != nil {
		return nil, err
	}
	if names := o.added[name]; len(names) > 0 {
		if rd, ok := f.(fs.ReadDirFile); ok {
			return &mergedDir{ReadDirFile: rd, o: o, dir: name, names: names}, nil
		}
	}
	return f, nil
}

// memFile is an open document read as a file.
type memFile struct {
	info memInfo
	r    *strings.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *memFile) Close() error               { return nil }

// memInfo is a memFile's FileInfo.
type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// mergedDir is a directory on disk that holds open documents not yet
// saved: its entries are the disk's and theirs, in name order.
type mergedDir struct {
	fs.ReadDirFile
	o       *overlayFS
	dir     string
	names   []string
	entries []fs.DirEntry
	read    bool
}

func (d *mergedDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		d.read = true
		es, err := d.ReadDirFile.ReadDir(-1)
		if err != nil {
			return nil, err
		}
		for _, name := range d.names {
			text := d.o.files[path.Join(d.dir, name)]
			es = append(es, fs.FileInfoToDirEntry(memInfo{name: name, size: int64(len(text))}))
		}
		slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		d.entries = es
	}
	if n <= 0 {
		es := d.entries
		d.entries = nil
		return es, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	k := min(n, len(d.entries))
	es := d.entries[:k]
	d.entries = d.entries[k:]
	return es, nil
}
