package xpkg

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/parser"
)

// ErrExampleStream is wrapped, with parser.ErrSyntax, by the document
// errors of examples that read as YAML but that Crossplane's examples
// parser refuses because of how its build reads files (see
// crossplaneExampleErrors).
var ErrExampleStream = errors.New("crossplane xpkg build cannot parse this example")

// crossplaneExampleErrors finds, in the example files of a package
// directory, what crossplane xpkg build refuses although the files are
// valid YAML, because of how it reads them. Its examples backend
// (crossplane v2.1.0 internal/xpkg/parser, FsReadCloser.Read, from v2.3
// crossplane-runtime pkg/xpkg/parser/fsreader.go, the same at v2.4.0)
// streams every non-empty *.yaml and *.yml file followed by "\n...\n" and
// "\n---\n"; its examples parser (crossplane v2.1.0
// internal/xpkg/parser/examples, Parser.Parse; crossplane-runtime v2.4.0
// pkg/xpkg/parser/examples, the same) splits that stream with
// apimachinery's YAMLReader and decodes each document with
// sigs.k8s.io/yaml into an Unstructured, and Builder.Build fails ("failed
// to parse examples") on the first error. So:
//
//   - a line that starts with "---" followed by anything but spaces or a
//     comment ("--- {a: 1}", "----") is an invalid document separator for
//     YAMLReader;
//   - the last document of each file (what follows its last "---" line)
//     is read with the "..." end marker appended: when it holds no node
//     before its first "..." line (nothing, blank lines, comments: a file
//     ending in "---"), the YAML parser finds no node content;
//   - a document of a file other than its last one that holds no node
//     but a "..." end marker or a directive fails the same way.
//
// Files are read a line at a time, keeping at most the first bytes of a
// line; ctx is checked on every file and every 4096 lines.
func crossplaneExampleErrors(ctx context.Context, fsys fs.FS, files []string) ([]*parser.DocumentError, error) {
	var out []*parser.DocumentError
	br := bufio.NewReaderSize(nil, 64<<10)
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := fsys.Open(name)
		if err != nil {
			return nil, err
		}
		br.Reset(f)
		errs, err := scanExampleFile(ctx, br, name)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, errs...)
	}
	return out, nil
}

// scanExampleFile scans one example file as crossplaneExampleErrors says.
func scanExampleFile(ctx context.Context, br *bufio.Reader, name string) ([]*parser.DocumentError, error) {
	var out []*parser.DocumentError
	fail := func(doc, line int, why string) {
		out = append(out, &parser.DocumentError{
			Pos: parser.Position{File: name, Document: doc, Line: line, Column: 1},
			Err: fmt.Errorf("%w: %w: %s", parser.ErrSyntax, ErrExampleStream, why),
		})
	}
	var (
		doc, line     int
		content       bool // the current document holds a node before any end marker
		ended         bool // a "..." line ended the current document
		marker        bool // the current document holds a "..." line or a directive
		started, read bool // the current document has lines; the file has bytes
		docLine       = 1
		sepLine       int // the line of the last separator; 0 for none
	)
	for {
		head, err := readLineHead(br)
		if len(head) == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		read = true
		line++
		if line%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if rest, ok := strings.CutPrefix(head, "---"); ok {
			if t := strings.TrimSpace(rest); t != "" && t[0] != '#' {
				fail(doc, line, fmt.Sprintf("invalid document separator %s at line %d: crossplane xpkg build's reader (apimachinery YAMLReader) allows only spaces or a comment after \"---\"", quoteShort(head), line))
				return out, nil // YAMLReader stops the build there
			}
			if started && !content && marker {
				fail(doc, docLine, fmt.Sprintf("document at line %d holds no object before its end marker: crossplane xpkg build's examples parser cannot decode it", docLine))
			}
			doc++
			docLine, sepLine = line+1, line
			content, ended, marker, started = false, false, false, false
			continue
		}
		started = true
		t := strings.TrimLeft(head, " \t\r")
		switch {
		case strings.HasPrefix(head, "..."):
			ended, marker = true, true
		case strings.HasPrefix(head, "%"):
			marker = true
		case t == "" || t[0] == '#':
		case !ended:
			content = true
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if read && !content {
		at, what := max(sepLine, 1), "the file holds no object"
		if sepLine > 0 {
			what = fmt.Sprintf("no object follows the last \"---\" (line %d)", sepLine)
		}
		fail(doc, at, what+": crossplane xpkg build appends an end marker (\"...\") to every example file, and a document with no node before it does not parse")
	}
	return out, nil
}

// lineHead is how many bytes of a line scanExampleFile keeps.
const lineHead = 64

// readLineHead returns the first lineHead bytes of the next line, without
// its line break, reading and dropping the rest of the line.
func readLineHead(br *bufio.Reader) (string, error) {
	var head []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(head) < lineHead {
			head = append(head, frag[:min(len(frag), lineHead-len(head))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && len(head) == 0 {
			return "", io.EOF
		}
		return strings.TrimSuffix(string(head), "\n"), err
	}
}

// quoteShort quotes a line's head for a message.
func quoteShort(s string) string { return safetext.Quote(strings.TrimRight(s, "\r")) }
