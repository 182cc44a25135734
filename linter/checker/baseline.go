package checker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/internal/report"
)

// baselineVersion is the version of the baseline file's format.
const baselineVersion = 1

// maxBaselineSize bounds a baseline file (about 100 000 entries; decoded,
// well within the CLI's memory budget).
const maxBaselineSize = 16 << 20

// baselineFile is the baseline's JSON: the findings a project accepted,
// each keyed by what survives unrelated edits (rule, file, object and
// field; never a line), with how many findings share the key.
type baselineFile struct {
	Version int             `json:"version"`
	Tool    string          `json:"tool,omitempty"`
	Entries []baselineEntry `json:"entries"`
}

// baselineEntry is one key of the baseline.
type baselineEntry struct {
	Rule string `json:"rule"`
	// File is the finding's file: relative to the baseline's directory for
	// a file on disk; "IMAGE!FILE" for a file inside an image.
	File string `json:"file"`
	// Object is "group/Kind/name" of the object the finding is about;
	// empty for a package-level finding.
	Object string `json:"object,omitempty"`
	Field  string `json:"field,omitempty"`
	// Count is how many findings have this key.
	Count int `json:"count"`
	// Message is the first finding's message, for the reader; it is not
	// part of the key.
	Message string `json:"message,omitempty"`
}

// baselineKey is an entry's key.
type baselineKey struct{ rule, file, object, field string }

// baseline is a baseline being matched or written.
type baseline struct {
	path  string
	dir   string // absolute directory of path
	write bool   // the file did not exist: this run writes it
	left  map[baselineKey]int
	// written are the entries to write, in the order first met.
	written []baselineEntry
	index   map[baselineKey]int
}

// openBaseline reads the baseline at path, or prepares to write it when
// there is no such file.
func openBaseline(path string) (*baseline, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	b := &baseline{path: path, dir: filepath.Dir(abs), left: map[baselineKey]int{}, index: map[baselineKey]int{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		b.write = true
		return b, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxBaselineSize+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxBaselineSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxBaselineSize)
	}
	var bf baselineFile
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&bf); err != nil {
		return nil, fmt.Errorf("%s: not a baseline: %w", path, err)
	}
	if bf.Version != baselineVersion {
		return nil, fmt.Errorf("%s: baseline version %d, want %d", path, bf.Version, baselineVersion)
	}
	for _, e := range bf.Entries {
		if e.Count <= 0 {
			e.Count = 1
		}
		b.left[baselineKey{e.Rule, e.File, e.Object, e.Field}] += e.Count
	}
	return b, nil
}

// key returns the key of d, found in source s.
func (b *baseline) key(s *report.Source, d linter.Diagnostic) baselineKey {
	file := d.Pos.File
	switch {
	case s.Image:
		file = s.Name + "!" + file
	case file != "" && !filepath.IsAbs(file) && file != report.StdinName:
		if abs, err := filepath.Abs(file); err == nil {
			if rel, err := filepath.Rel(b.dir, abs); err == nil {
				file = rel
			}
		}
	}
	k := baselineKey{rule: d.RuleID, file: filepath.ToSlash(file), field: d.Field}
	if o := d.Object; o != nil {
		gv, _ := schema.ParseGroupVersion(o.APIVersion)
		k.object = gv.Group + "/" + o.Kind + "/" + o.Name
	}
	return k
}

// apply moves the findings of s that the baseline holds (or, when writing,
// every finding) to s.Baselined.
func (b *baseline) apply(s *report.Source) {
	if s.Err != nil {
		return
	}
	kept := s.Diagnostics[:0:0]
	for _, d := range s.Diagnostics {
		k := b.key(s, d)
		if b.write {
			if i, ok := b.index[k]; ok {
				b.written[i].Count++
			} else {
				b.index[k] = len(b.written)
				b.written = append(b.written, baselineEntry{Rule: k.rule, File: k.file, Object: k.object, Field: k.field, Count: 1, Message: d.Message})
			}
			s.Baselined = append(s.Baselined, d)
			continue
		}
		if b.left[k] > 0 {
			b.left[k]--
			s.Baselined = append(s.Baselined, d)
			continue
		}
		kept = append(kept, d)
	}
	s.Diagnostics = kept
}

// stale returns how many entries of a baseline read matched no finding.
func (b *baseline) stale() int {
	n := 0
	for _, c := range b.left {
		n += c
	}
	return n
}

// save writes the baseline when this run is to write it.
func (b *baseline) save(tool string) error {
	if !b.write {
		return nil
	}
	entries := slices.Clone(b.written)
	slices.SortStableFunc(entries, func(x, y baselineEntry) int {
		return strings.Compare(x.File+"\x00"+x.Rule+"\x00"+x.Object+"\x00"+x.Field, y.File+"\x00"+y.Rule+"\x00"+y.Object+"\x00"+y.Field)
	})
	if entries == nil {
		entries = []baselineEntry{}
	}
	data, err := json.MarshalIndent(baselineFile{Version: baselineVersion, Tool: tool, Entries: entries}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(b.path, append(data, '\n'), 0o644)
}
