package spdx

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// MaxExpressionLength bounds the expressions Check accepts; real license
// annotations are a few dozen bytes.
const MaxExpressionLength = 1024

// Sentinel errors classifying why Check rejects an expression.
var (
	// ErrSyntax says the expression is malformed.
	ErrSyntax = errors.New("malformed SPDX license expression")
	// ErrUnknownLicense says an identifier is not on the SPDX license list.
	ErrUnknownLicense = errors.New("unknown SPDX license identifier")
)

var index = sync.OnceValues(func() (map[string]string, map[string]bool) {
	ids := make(map[string]string, len(licenseIDs)+len(deprecatedIDs))
	dep := make(map[string]bool, len(deprecatedIDs))
	for _, id := range licenseIDs {
		ids[strings.ToLower(id)] = id
	}
	for _, id := range deprecatedIDs {
		ids[strings.ToLower(id)] = id
		dep[id] = true
	}
	return ids, dep
})

// Lookup returns the canonical spelling of the license identifier id (SPDX
// matches identifiers without regard to case), whether it is deprecated,
// and whether it is on the list at all.
func Lookup(id string) (canonical string, deprecated, ok bool) {
	ids, dep := index()
	c, ok := ids[strings.ToLower(id)]
	return c, dep[c], ok
}

// Check checks an SPDX license expression, such as "Apache-2.0",
// "MIT OR Apache-2.0", "GPL-2.0-or-later WITH Classpath-exception-2.0",
// "(MIT AND BSD-3-Clause)", "GPL-2.0+" or "LicenseRef-Proprietary". Operators
// are all upper-case or all lower-case; identifiers match in any case.
// Exception identifiers after WITH are checked for form only: the embedded
// list holds licenses, not exceptions. It returns the deprecated identifiers
// the expression uses (valid, but replaced on the current list), and an
// error wrapping ErrSyntax or ErrUnknownLicense.
func Check(expr string) (deprecated []string, err error) {
	if len(expr) > MaxExpressionLength {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrSyntax, MaxExpressionLength)
	}
	p := &exprParser{toks: tokenize(expr)}
	if len(p.toks) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrSyntax)
	}
	if err := p.or(0); err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("%w: unexpected %q", ErrSyntax, p.toks[p.i])
	}
	return p.deprecated, nil
}

func tokenize(s string) []string {
	var toks []string
	start := -1
	flush := func(i int) {
		if start >= 0 {
			toks = append(toks, s[start:i])
			start = -1
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r':
			flush(i)
		case '(', ')':
			flush(i)
			toks = append(toks, s[i:i+1])
		default:
			if start < 0 {
				start = i
			}
		}
	}
	flush(len(s))
	return toks
}

// maxDepth bounds parenthesis nesting.
const maxDepth = 32

type exprParser struct {
	toks       []string
	i          int
	deprecated []string
}

func (p *exprParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func isOp(tok, op string) bool { return tok == op || tok == strings.ToLower(op) }

func (p *exprParser) or(depth int) error {
	if err := p.and(depth); err != nil {
		return err
	}
	for isOp(p.peek(), "OR") {
		p.i++
		if err := p.and(depth); err != nil {
			return err
		}
	}
	return nil
}

func (p *exprParser) and(depth int) error {
	if err := p.with(depth); err != nil {
		return err
	}
	for isOp(p.peek(), "AND") {
		p.i++
		if err := p.with(depth); err != nil {
			return err
		}
	}
	return nil
}

func (p *exprParser) with(depth int) error {
	if err := p.primary(depth); err != nil {
		return err
	}
	if isOp(p.peek(), "WITH") {
		p.i++
		exc := p.peek()
		if exc == "" || exc == "(" || exc == ")" || !isIDString(exc) || isOperator(exc) {
			return fmt.Errorf("%w: WITH needs an exception identifier", ErrSyntax)
		}
		p.i++
	}
	return nil
}

func (p *exprParser) primary(depth int) error {
	tok := p.peek()
	switch {
	case tok == "":
		return fmt.Errorf("%w: expression ends where a license is expected", ErrSyntax)
	case tok == "(":
		if depth >= maxDepth {
			return fmt.Errorf("%w: parentheses nested deeper than %d", ErrSyntax, maxDepth)
		}
		p.i++
		if err := p.or(depth + 1); err != nil {
			return err
		}
		if p.peek() != ")" {
			return fmt.Errorf("%w: missing ')'", ErrSyntax)
		}
		p.i++
		return nil
	case tok == ")" || isOperator(tok):
		return fmt.Errorf("%w: unexpected %q where a license is expected", ErrSyntax, tok)
	}
	p.i++
	return p.license(tok)
}

func isOperator(tok string) bool {
	return isOp(tok, "AND") || isOp(tok, "OR") || isOp(tok, "WITH")
}

func (p *exprParser) license(tok string) error {
	if rest, ok := strings.CutPrefix(tok, "DocumentRef-"); ok {
		doc, lic, found := strings.Cut(rest, ":")
		if !found || !isIDString(doc) {
			return fmt.Errorf("%w: %q: want DocumentRef-<id>:LicenseRef-<id>", ErrSyntax, tok)
		}
		tok = lic
		if !strings.HasPrefix(tok, "LicenseRef-") {
			return fmt.Errorf("%w: %q: want DocumentRef-<id>:LicenseRef-<id>", ErrSyntax, tok)
		}
	}
	if rest, ok := strings.CutPrefix(tok, "LicenseRef-"); ok {
		if !isIDString(rest) {
			return fmt.Errorf("%w: %q: a LicenseRef- id holds letters, digits, '.' and '-'", ErrSyntax, tok)
		}
		return nil
	}
	id := strings.TrimSuffix(tok, "+")
	if !isIDString(id) {
		return fmt.Errorf("%w: %q is not a license identifier", ErrSyntax, tok)
	}
	canonical, dep, ok := Lookup(id)
	if !ok {
		return fmt.Errorf("%w: %q (see https://spdx.org/licenses/)", ErrUnknownLicense, id)
	}
	if dep {
		p.deprecated = append(p.deprecated, canonical)
	}
	return nil
}

func isIDString(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}
