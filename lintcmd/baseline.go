package lintcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/lintcmd/internal/report"
	"github.com/xpkgkit/xpkgkit/linter"
)

// baselineVersion is the version of the baseline file's format.
const baselineVersion = 1

// Bounds of a baseline file: its bytes, and its entries, counted as they
// are decoded (5.6 million empty entries fit in 16 MiB and would take a
// gigabyte decoded at once).
const (
	maxBaselineSize    = 16 << 20
	maxBaselineEntries = 100_000
)

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
	write bool   // --write-baseline: this run writes it
	root  string // a write must stay in it ("": anywhere the user named)
	left  map[baselineKey]int
	// written are the entries to write, in the order first met.
	written []baselineEntry
	index   map[baselineKey]int
}

// errNoBaseline is the error of --baseline naming no file without
// --write-baseline: a mistyped name must not pass as an empty baseline.
var errNoBaseline = errors.New("no such baseline (give --write-baseline to write it)")

// openBaseline reads the baseline at path (a missing file is
// errNoBaseline), or, with write, prepares to write it there, within root
// when root is not empty. Both go through safefile: a link, a FIFO or a
// device is refused.
func openBaseline(ctx context.Context, path string, write bool, root string) (*baseline, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	b := &baseline{path: path, dir: filepath.Dir(abs), write: write, root: root, left: map[baselineKey]int{}, index: map[baselineKey]int{}}
	if write {
		// Refused now, before the lint, rather than after it.
		if err := safefile.CheckWrite(path, safefile.WriteOptions{Root: root}); err != nil {
			return nil, err
		}
		return b, nil
	}
	data, err := safefile.Read(ctx, path, maxBaselineSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, errNoBaseline)
	}
	if err != nil {
		return nil, err
	}
	if err := b.decode(ctx, data); err != nil {
		return nil, fmt.Errorf("%s: not a baseline: %w", path, err)
	}
	return b, nil
}

// decode reads the baseline's JSON into b.left, one entry at a time, at
// most maxBaselineEntries of them.
func (b *baseline) decode(ctx context.Context, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("want a JSON object")
	}
	version := -1
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case "version":
			if err := dec.Decode(&version); err != nil {
				return fmt.Errorf("version: %w", err)
			}
		case "tool":
			var tool string
			if err := dec.Decode(&tool); err != nil {
				return fmt.Errorf("tool: %w", err)
			}
		case "entries":
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				if t == nil && err == nil {
					continue // null: no entries
				}
				return errors.New("entries: want a list")
			}
			n := 0
			for dec.More() {
				if n++; n > maxBaselineEntries {
					return fmt.Errorf("more than %d entries", maxBaselineEntries)
				}
				if n%1024 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				var e baselineEntry
				if err := dec.Decode(&e); err != nil {
					return fmt.Errorf("entry %d: %w", n, err)
				}
				if e.Count <= 0 {
					e.Count = 1
				}
				k := baselineKey{e.Rule, e.File, e.Object, e.Field}
				b.left[k] = min(b.left[k]+e.Count, maxBaselineEntries*1000)
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown field %q", t)
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the baseline's object")
	}
	if version != baselineVersion {
		return fmt.Errorf("baseline version %d, want %d", version, baselineVersion)
	}
	return nil
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
func (b *baseline) save(ctx context.Context, tool string) error {
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
	return safefile.Write(ctx, b.path, append(data, '\n'), safefile.WriteOptions{Root: b.root})
}
