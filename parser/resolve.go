package parser

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Scalars resolve as sigs.k8s.io/yaml resolves them (YAML 1.1 through
// go-yaml v2, then JSON): y/yes/on/true and n/no/off/false (in three
// casings) are booleans, ~/null/empty are null, integers may be
// hexadecimal, octal or binary and hold underscores, timestamps stay
// strings, and a float that JSON would print as an integer becomes an
// int64, as apimachinery's unstructured decoding makes it.

const (
	tagStr       = "!!str"
	tagBool      = "!!bool"
	tagInt       = "!!int"
	tagFloat     = "!!float"
	tagNull      = "!!null"
	tagTimestamp = "!!timestamp"
	tagMerge     = "!!merge"
)

var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// scalarValue returns the JSON-compatible value of a scalar node: string,
// bool, int64, float64 or nil.
func scalarValue(n *yaml.Node) (any, error) {
	tag := ""
	if n.Style&yaml.TaggedStyle != 0 {
		tag = n.Tag
	} else if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Value, nil
	}
	return resolveScalar(tag, n.Value)
}

func resolveScalar(tag, in string) (any, error) {
	switch tag {
	case "", tagBool, tagInt, tagFloat, tagNull, tagTimestamp:
	default: // !!str, !!binary, and tags of the application: the text
		return in, nil
	}
	rtag, v := resolvePlain(in, tag)
	if tag != "" && tag != rtag && !(tag == tagFloat && rtag == tagInt) && tag != tagTimestamp {
		return nil, fmt.Errorf("%w: cannot decode %s %q as a %s", ErrSyntax, rtag, in, tag)
	}
	return jsonNumber(v)
}

func resolvePlain(in, tag string) (string, any) {
	if in == "" {
		return tagNull, nil
	}
	if rtag, v, ok := plainWord(in); ok {
		return rtag, v
	}
	c := in[0]
	switch {
	case c == '.':
		if f, err := strconv.ParseFloat(in, 64); err == nil {
			return tagFloat, f
		}
	case c == '+' || c == '-' || (c >= '0' && c <= '9'):
		if (tag == "" || tag == tagTimestamp) && looksLikeTimestamp(in) {
			return tagTimestamp, in
		}
		plain := strings.ReplaceAll(in, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return tagInt, i
		}
		if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return tagInt, float64(u) // JSON reads it back as a float64
		}
		if yamlStyleFloat.MatchString(plain) {
			if f, err := strconv.ParseFloat(plain, 64); err == nil {
				return tagFloat, f
			}
		}
		if rest, ok := strings.CutPrefix(plain, "-0b"); ok {
			if i, err := strconv.ParseInt("-"+rest, 2, 64); err == nil {
				return tagInt, i
			}
		}
	}
	return tagStr, in
}

// plainWord resolves the plain scalars that are words: booleans, nulls,
// NaN and the infinities; ok is false for any other text. Apart from them,
// a plain scalar that starts with neither a digit nor one of "+-." is a
// string, and one that resolves to NaN or an infinity is one of them: the
// fast path relies on it to know, without converting the keys and scalars
// of the containers it does not build, whether the conversion would refuse
// one (fastParser.unsure).
func plainWord(in string) (tag string, v any, ok bool) {
	switch in {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return tagBool, true, true
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return tagBool, false, true
	case "~", "null", "Null", "NULL":
		return tagNull, nil, true
	case ".nan", ".NaN", ".NAN":
		return tagFloat, math.NaN(), true
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return tagFloat, math.Inf(1), true
	case "-.inf", "-.Inf", "-.INF":
		return tagFloat, math.Inf(-1), true
	}
	return "", nil, false
}

// maxPlainWord is the length of plainWord's longest words (false, +.inf).
const maxPlainWord = 5

// plainWordBytes is plainWord's tag and ok for b, without allocating: the
// fast path asks it of every key and scalar it does not build, and most
// are longer than a word (a string of more than 32 bytes converted for a
// call is allocated).
func plainWordBytes(b []byte) (tag string, ok bool) {
	if len(b) > maxPlainWord {
		return "", false
	}
	tag, _, ok = plainWord(string(b))
	return tag, ok
}

// jsonNumber turns a float that JSON would print without a fraction or an
// exponent into an int64, as a JSON round trip into unstructured does, and
// refuses NaN and infinities, which JSON cannot hold.
func jsonNumber(v any) (any, error) {
	f, ok := v.(float64)
	if !ok {
		return v, nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%w: %v cannot be represented in JSON", ErrSyntax, f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 && f >= math.MinInt64 && f < math.MaxInt64 {
		return int64(f), nil
	}
	return f, nil
}

// looksLikeTimestamp reports whether s parses as one of the YAML timestamp
// forms go-yaml v2 recognises; such values stay strings.
func looksLikeTimestamp(s string) bool {
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, layout := range []string{ // the forms go-yaml v2 recognises
		"2006-1-2T15:4:5.999999999Z07:00",
		"2006-1-2t15:4:5.999999999Z07:00",
		"2006-1-2 15:4:5.999999999",
		"2006-1-2",
	} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// keyString returns the string a mapping key becomes in JSON.
func keyString(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("%w: a mapping key must be a scalar", ErrSyntax)
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 && n.Style&yaml.TaggedStyle == 0 {
		return n.Value, nil
	}
	tag := ""
	if n.Style&yaml.TaggedStyle != 0 {
		tag = n.Tag
	}
	switch tag {
	case "", tagBool, tagInt, tagFloat, tagNull, tagTimestamp:
	default:
		return n.Value, nil
	}
	rtag, v := resolvePlain(n.Value, tag)
	switch v := v.(type) {
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		if rtag == tagInt { // an unsigned integer beyond int64
			return strings.ReplaceAll(n.Value, "_", ""), nil
		}
		s := strconv.FormatFloat(v, 'g', -1, 32)
		switch s {
		case "+Inf":
			s = ".inf"
		case "-Inf":
			s = "-.inf"
		case "NaN":
			s = ".nan"
		}
		return s, nil
	}
	return "", fmt.Errorf("%w: a mapping key must not be null", ErrSyntax)
}
