package apiserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/xpkgkit/xpkgkit/internal/target"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Cache stores what the API server's rules find on one object, by key.
// What XP420 and XP421 find on an object is a pure function of the
// object's bytes, the target release line and the validator's identity
// (the versions of k8s.io/apiextensions-apiserver and the code it runs,
// and of these rules); a key is a digest of all of them, so an entry
// written for another target, rule set or library version is never read.
//
// The rules read and write a Cache from several goroutines at once, and
// treat every entry as untrusted: an entry that cannot be read, or that is
// corrupt, truncated, too large or written for another key, is a miss (the
// object is validated again), never a verdict. A Put that fails is
// ignored. Package linter/apiserver/verdictcache holds a directory
// and an OCI-registry implementation.
type Cache interface {
	// Get returns the value stored under key, and false when there is
	// none (or it cannot be read).
	Get(ctx context.Context, key string) ([]byte, bool)
	// Put stores value under key.
	Put(ctx context.Context, key string, value []byte) error
}

// Option configures Rules and LintOptions.
type Option func(*options)

// options are the settings Options set.
type options struct {
	cache Cache
}

// WithCache makes XP420 crd-apiserver and XP421 xrd-derived-crd-apiserver
// read the findings of an object from c, and store there those of an
// object validated (see Cache). Without it, nothing is read or written.
// XP422 kind-apiserver is not cached: it shares one CEL cost budget
// between the objects of a package, so its findings on one object depend
// on the others.
func WithCache(c Cache) Option {
	return func(o *options) { o.cache = c }
}

func newOptions(opts []Option) options {
	var o options
	for _, x := range opts {
		if x != nil {
			x(&o)
		}
	}
	return o
}

// verdictVersion is the version of what the cached rules find and of the
// form their entries are stored in. It is part of every key: it changes
// whenever a rule's findings or their mapping onto the object change, so
// that no entry of an older rule set is read.
const verdictVersion = "3"

// validatorModules are the modules whose code decides the cached
// verdicts, each with the version of go.mod: their versions (from the
// program's build information, or go.mod's where it has none, as in a test
// binary) are part of every key.
var validatorModules = []struct{ path, version string }{
	{"github.com/xpkgkit/xpkgkit", ""},
	{"k8s.io/apiextensions-apiserver", "v0.37.2"},
	{"k8s.io/apiserver", "v0.37.2"},
	{"k8s.io/apimachinery", "v0.37.2"},
	{"k8s.io/kube-openapi", "v0.0.0-20260721132016-d427ff9ee9ad"},
	{"github.com/google/cel-go", "v0.29.2"},
}

// validatorIdentity names the validator: the rule set's version and the
// versions (and sums) of validatorModules in this program.
var validatorIdentity = sync.OnceValue(func() string {
	mods := map[string]*debug.Module{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		mods[bi.Main.Path] = &bi.Main
		for _, d := range bi.Deps {
			mods[d.Path] = d
		}
	}
	var b strings.Builder
	b.WriteString("xpkgkit-apiserver-verdict " + verdictVersion)
	for _, v := range validatorModules {
		m := mods[v.path]
		if m == nil {
			fmt.Fprintf(&b, "\n%s %s (go.mod)", v.path, v.version)
			continue
		}
		if m.Replace != nil {
			m = m.Replace
		}
		fmt.Fprintf(&b, "\n%s %s %s %s", v.path, m.Path, m.Version, m.Sum)
	}
	return b.String()
})

// verdictKey is the key of what rule finds on an object whose bytes are
// raw, at the target line: the hex SHA-256 of the validator's identity,
// the rule, the line and the bytes' digest.
func verdictKey(rule, line string, raw []byte) string {
	d := sha256.Sum256(raw)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%x", validatorIdentity(), rule, line, d)
	return hex.EncodeToString(h.Sum(nil))
}

// targetLine is the release line of version, for keys: the version itself
// when it is not one.
func targetLine(version string) string {
	if t, err := target.Resolve(version); err == nil {
		return t.Line
	}
	return "?" + version
}

// Bounds of an entry: one that goes past them is not stored, and one read
// that goes past them is a miss.
const (
	// maxEntryBytes bounds an entry's size.
	maxEntryBytes = 256 << 10
	maxPathLen    = 256
	maxSegment    = 4 << 10
	maxMessage    = 32 << 10
	// maxTotal bounds the count of findings an entry may claim.
	maxTotal = 1 << 20
)

// entryMagic starts every entry, followed by the hex SHA-256 of the body
// and a newline, then the body (JSON of entryBody).
const entryMagic = "xpkgkit-apiserver-verdict/1 "

// entryBody is what an entry holds: the key it was written for, the first
// findings (at most maxFindings, in the order reported) and how many
// there were.
type entryBody struct {
	Key      string       `json:"key"`
	Total    int          `json:"total"`
	Findings []entryFound `json:"findings"`
	// Rules and RuleBytes are the gateway's pre-count of the call (its
	// callCost's rules and ruleBytes), charged to the run's budget on a
	// hit as the call itself is: a warm run refuses what a cold one does.
	Rules     int64 `json:"rules,omitempty"`
	RuleBytes int64 `json:"ruleBytes,omitempty"`
}

type entryFound struct {
	Path []string `json:"path"`
	Msg  string   `json:"msg"`
}

// encodeEntry encodes the first findings of fs (total in all) for key,
// and reports false when they are past an entry's bounds.
func encodeEntry(key string, fs []finding, total int) ([]byte, bool) {
	return encodeEntryCost(key, fs, total, callCost{})
}

// encodeEntryCost is encodeEntry with the call's cost kept beside the
// findings.
func encodeEntryCost(key string, fs []finding, total int, cost callCost) ([]byte, bool) {
	if cost.rules < 0 || cost.ruleBytes < 0 {
		return nil, false
	}
	body := entryBody{Key: key, Total: total, Findings: make([]entryFound, 0, min(len(fs), maxFindings)), Rules: cost.rules, RuleBytes: cost.ruleBytes}
	for _, f := range fs[:min(len(fs), maxFindings)] {
		if !findingInBounds(f.path, f.msg) {
			return nil, false
		}
		body.Findings = append(body.Findings, entryFound{Path: f.path, Msg: f.msg})
	}
	if total > maxTotal {
		return nil, false
	}
	js, err := json.Marshal(body)
	if err != nil {
		return nil, false
	}
	sum := sha256.Sum256(js)
	out := make([]byte, 0, len(entryMagic)+64+1+len(js))
	out = append(out, entryMagic...)
	out = hex.AppendEncode(out, sum[:])
	out = append(out, '\n')
	out = append(out, js...)
	if len(out) > maxEntryBytes {
		return nil, false
	}
	return out, true
}

func findingInBounds(path []string, msg string) bool {
	if len(path) > maxPathLen || len(msg) > maxMessage {
		return false
	}
	for _, s := range path {
		if len(s) > maxSegment {
			return false
		}
	}
	return true
}

// decodeEntry decodes an entry read for key, and reports false when it is
// not one written for key within the bounds.
func decodeEntry(key string, b []byte) ([]finding, int, bool) {
	fs, total, _, ok := decodeEntryCost(key, b)
	return fs, total, ok
}

// decodeEntryCost is decodeEntry with the call's cost kept beside the
// findings (only its rules and ruleBytes, what the run's budget charges).
func decodeEntryCost(key string, b []byte) ([]finding, int, callCost, bool) {
	if len(b) > maxEntryBytes || !bytes.HasPrefix(b, []byte(entryMagic)) {
		return nil, 0, callCost{}, false
	}
	rest := b[len(entryMagic):]
	if len(rest) < 65 || rest[64] != '\n' {
		return nil, 0, callCost{}, false
	}
	var want [sha256.Size]byte
	if n, err := hex.Decode(want[:], rest[:64]); err != nil || n != len(want) {
		return nil, 0, callCost{}, false
	}
	js := rest[65:]
	if sha256.Sum256(js) != want {
		return nil, 0, callCost{}, false
	}
	var body entryBody
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || dec.More() {
		return nil, 0, callCost{}, false
	}
	if body.Key != key || len(body.Findings) > maxFindings || body.Total < len(body.Findings) || body.Total > maxTotal || body.Rules < 0 || body.RuleBytes < 0 {
		return nil, 0, callCost{}, false
	}
	if body.Total > len(body.Findings) && len(body.Findings) < maxFindings {
		return nil, 0, callCost{}, false // the findings left out must be past the first maxFindings
	}
	fs := make([]finding, 0, len(body.Findings))
	for _, f := range body.Findings {
		if !findingInBounds(f.Path, f.Msg) {
			return nil, 0, callCost{}, false
		}
		fs = append(fs, finding{path: f.Path, msg: f.Msg})
	}
	return fs, body.Total, callCost{rules: body.Rules, ruleBytes: body.RuleBytes}, true
}

// verdicts reads and writes one rule's entries in a Cache (nil: none).
type verdicts struct {
	cache Cache
	rule  string
	line  string
}

// get returns o's findings (the first ones, and how many in all) from the
// cache, and the key to store them under when they are not there (""
// when o cannot be cached: no cache, or no bytes kept).
func (v verdicts) get(ctx context.Context, o *parser.Object) (key string, fs []finding, total int, cost callCost, hit bool) {
	if v.cache == nil {
		return "", nil, 0, callCost{}, false
	}
	raw := o.Raw()
	if raw == nil {
		return "", nil, 0, callCost{}, false
	}
	key = verdictKey(v.rule, v.line, raw)
	b, ok := v.cache.Get(ctx, key)
	if !ok {
		return key, nil, 0, callCost{}, false
	}
	fs, total, cost, ok = decodeEntryCost(key, b)
	if !ok {
		return key, nil, 0, callCost{}, false
	}
	return key, fs, total, cost, true
}

// put stores the findings fs under key; a failure is ignored (the cache
// only saves work).
func (v verdicts) put(ctx context.Context, key string, fs []finding, cost callCost) {
	if v.cache == nil || key == "" || ctx.Err() != nil {
		return
	}
	b, ok := encodeEntryCost(key, fs, len(fs), cost)
	if !ok {
		return
	}
	_ = v.cache.Put(ctx, key, b)
}
