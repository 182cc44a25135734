package apiserver

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// marshalJSON is json.Marshal for decoded content (maps, lists, strings,
// int64, float64, bools and nil, as the parser decodes YAML) without
// reflection: a CRD's schema is a large tree of small maps, for which
// encoding/json allocates per value (BenchmarkMarshalJSON, 50 CRDs of
// provider-aws: 45,000 allocations and 2.5 MB for json.Marshal, 50 and
// 1.1 MB here, in less time). The output is what json.Marshal writes, byte for byte; any
// other value (and NaN or an infinity, which json.Marshal refuses) falls
// back to json.Marshal, so errors are json.Marshal's too.
func marshalJSON(v any) ([]byte, error) {
	e := encoders.Get().(*jsonEncoder)
	defer func() {
		if cap(e.buf) <= maxPooledBuffer {
			e.buf, e.keys = e.buf[:0], e.keys[:0]
			encoders.Put(e)
		}
	}()
	if !e.value(v, 0) {
		return json.Marshal(v)
	}
	// A copy of the exact size, as json.Marshal returns: the buffer grew
	// by doubling.
	return bytes.Clone(e.buf), nil
}

// encoders holds jsonEncoders for reuse, with buffers up to
// maxPooledBuffer.
var encoders = sync.Pool{New: func() any { return &jsonEncoder{buf: make([]byte, 0, 4096)} }}

const maxPooledBuffer = 4 << 20

type jsonEncoder struct {
	buf  []byte
	keys []string // scratch for sorting a map's keys
}

// maxEncodeDepth leaves deeper values to json.Marshal (content from the
// parser is depth-limited well below it).
const maxEncodeDepth = 10000

// value appends v, and reports false when it cannot (the caller falls
// back to json.Marshal).
func (e *jsonEncoder) value(v any, depth int) bool {
	if depth > maxEncodeDepth {
		return false
	}
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case string:
		e.str(x)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case float64:
		return e.float(x)
	case map[string]any:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return true
		}
		start := len(e.keys)
		for k := range x {
			e.keys = append(e.keys, k)
		}
		keys := e.keys[start:]
		slices.Sort(keys)
		e.buf = append(e.buf, '{')
		for i := range keys {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			// keys may move as nested maps grow e.keys: index the
			// current slice.
			k := e.keys[start+i]
			e.str(k)
			e.buf = append(e.buf, ':')
			if !e.value(x[k], depth+1) {
				return false
			}
		}
		e.buf = append(e.buf, '}')
		e.keys = e.keys[:start]
	case []any:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return true
		}
		e.buf = append(e.buf, '[')
		for i, el := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if !e.value(el, depth+1) {
				return false
			}
		}
		e.buf = append(e.buf, ']')
	default:
		return false
	}
	return true
}

// float appends f as encoding/json's floatEncoder (64 bits) does.
func (e *jsonEncoder) float(f float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	e.buf = strconv.AppendFloat(e.buf, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(e.buf)
		if n >= 4 && e.buf[n-4] == 'e' && e.buf[n-3] == '-' && e.buf[n-2] == '0' {
			e.buf[n-2] = e.buf[n-1]
			e.buf = e.buf[:n-1]
		}
	}
	return true
}

const hexDigits = "0123456789abcdef"

// str appends s quoted as encoding/json does with HTML escaping (its
// default): <, > and & escaped, U+2028 and U+2029 escaped, invalid UTF-8
// replaced by U+FFFD.
func (e *jsonEncoder) str(s string) {
	e.buf = append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			e.buf = append(e.buf, s[start:i]...)
			switch b {
			case '\\', '"':
				e.buf = append(e.buf, '\\', b)
			case '\b':
				e.buf = append(e.buf, '\\', 'b')
			case '\f':
				e.buf = append(e.buf, '\\', 'f')
			case '\n':
				e.buf = append(e.buf, '\\', 'n')
			case '\r':
				e.buf = append(e.buf, '\\', 'r')
			case '\t':
				e.buf = append(e.buf, '\\', 't')
			default:
				e.buf = append(e.buf, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			e.buf = append(e.buf, s[start:i]...)
			e.buf = append(e.buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			e.buf = append(e.buf, s[start:i]...)
			e.buf = append(e.buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	e.buf = append(e.buf, s[start:]...)
	e.buf = append(e.buf, '"')
}
