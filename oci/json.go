package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
)

// errAmbiguousKey is the cause of a refused JSON document whose object
// repeats a key.
var errAmbiguousKey = errors.New("ambiguous key")

// unmarshalStrict is json.Unmarshal for OCI metadata, after checkKeys.
func unmarshalStrict(ctx context.Context, b []byte, v any) error {
	if err := checkKeys(ctx, b); err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// jsonErr classifies an error of unmarshalStrict about what ("config",
// "index", or "" for the document itself): ErrMalformed, except for the
// context's errors.
func jsonErr(what string, err error) error {
	switch {
	case isCtxErr(err):
		return err
	case what == "":
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return fmt.Errorf("%w: %s: %v", ErrMalformed, what, err)
}

// checkKeys refuses a JSON document that encoding/json would read
// ambiguously: an object with a key twice (json.Unmarshal keeps the last),
// or, in an object that is not a map of names (annotations, labels), two
// keys that encoding/json's case-insensitive field matching takes for the
// same field ("layers" and "LAYERS": the last wins). It walks the tokens
// once; its cost is linear in len(b), which the callers bound. Syntax errors
// are left to json.Unmarshal. The context is checked every few thousand
// tokens.
func checkKeys(ctx context.Context, b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber() // numbers are not converted
	type frame struct {
		object bool
		free   bool              // a map of names: keys compared exactly
		keys   map[string]string // folded (or exact) key → key as written
		next   bool              // the next string token is a key
	}
	var stack []frame
	var lastKey string
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil // json.Unmarshal reports it
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if top != nil && top.object && top.next {
			key, ok := tok.(string)
			if !ok { // the closing brace
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].next = true
				}
				continue
			}
			k := key
			if !top.free {
				k = foldName(key)
			}
			if first, dup := top.keys[k]; dup {
				if first == key {
					return fmt.Errorf("%w: %s appears twice in one object", errAmbiguousKey, safetext.Quote(key))
				}
				return fmt.Errorf("%w: %s repeats %s in one object (encoding/json matches them ignoring case)", errAmbiguousKey, safetext.Quote(key), safetext.Quote(first))
			}
			top.keys[k] = key
			top.next = false
			lastKey = key
			continue
		}
		switch tok {
		case json.Delim('{'):
			free := top != nil && top.object && mapOfNames(lastKey)
			stack = append(stack, frame{object: true, free: free, keys: map[string]string{}, next: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].next = true
			}
		default: // a value
			if top != nil && top.object {
				top.next = true
			}
		}
	}
}

// mapOfNames reports whether the object under key is a map whose keys are
// names (compared exactly by encoding/json), not the fields of a struct.
func mapOfNames(key string) bool {
	switch foldName(key) {
	case "ANNOTATIONS", "LABELS", "EXPOSEDPORTS", "VOLUMES":
		return true
	}
	return false
}

// foldName folds s as encoding/json folds field names for its
// case-insensitive match: two names fold equal when json.Unmarshal would
// take either for the same field.
func foldName(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		out = utf8.AppendRune(out, unicode.ToUpper(unicode.ToLower(r)))
		i += n
	}
	return string(out)
}
