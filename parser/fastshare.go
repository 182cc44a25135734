package parser

import (
	"hash/maphash"
	"math"
	"reflect"
	"sync"
)

// Sharing outline values between documents (hash-consing). An outline is
// read-only (Object.Outline: the caller must not modify it), and the CRDs
// of a provider repeat most of theirs: the printer columns, the
// categories, the top-level schema properties, the subresources. Over the
// monolith's 2065 CRDs, 55,000 outline containers hold 12,700 distinct
// values; building each once and handing the same value to every outline
// that has it keeps a fifth of the maps alive.
//
// The fast path computes a hash of each value it builds for an outline, as
// it builds it, bottom up: a scalar's from its type and value, a
// mapping's from its entries (order-independent, as a map has no order), a
// sequence's from its items in order. A container whose children are all
// shared is looked up by its hash and compared entry by entry (children
// by identity: equal children are the same value); an equal one found is
// returned instead, else the new one is recorded. The table is bounded
// (maxShared values per parse): past it, values are built as before. Only
// the outlines of one parse share values, and only while it runs: the
// table is dropped when the parse ends.

// maxShared bounds the values one parse's sharer records.
const maxShared = 1 << 16

// sharer records the outline values of one parse, by hash. It is safe for
// concurrent use by the parse's decoding goroutines.
type sharer struct {
	seed  maphash.Seed
	mu    sync.Mutex
	table map[uint64][]any
	n     int
}

func newSharer() *sharer {
	return &sharer{seed: maphash.MakeSeed(), table: make(map[uint64][]any)}
}

// share returns the recorded value equal to v (whose hash is h), or
// records v and returns it.
func (s *sharer) share(h uint64, v any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.table[h] {
		if sameContainer(c, v) {
			return c
		}
	}
	if s.n < maxShared {
		s.table[h] = append(s.table[h], v)
		s.n++
	}
	return v
}

// Hash tags: what kind of value a hash is of.
const (
	tagHashNull uint64 = iota + 0x9E3779B97F4A7C15
	tagHashBool
	tagHashString
	tagHashInt
	tagHashFloat
	tagHashMap
	tagHashSeq
)

// mix is splitmix64's finaliser: it spreads x's bits over the result.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return x
}

// scalarHash returns the hash of a scalar the fast path builds, and false
// for a value it does not share.
func (s *sharer) scalarHash(v any) (uint64, bool) {
	switch v := v.(type) {
	case nil:
		return mix(tagHashNull), true
	case bool:
		if v {
			return mix(tagHashBool + 1), true
		}
		return mix(tagHashBool), true
	case string:
		return mix(tagHashString ^ maphash.String(s.seed, v)), true
	case int64:
		return mix(tagHashInt ^ uint64(v)), true
	case float64:
		return mix(tagHashFloat ^ math.Float64bits(v)), true
	}
	return 0, false
}

// entryHash returns the hash of a mapping's entry: key and value. A
// mapping's hash is the sum of its entries', so that it does not depend on
// their order.
func (s *sharer) entryHash(key string, vh uint64) uint64 {
	return mix(maphash.String(s.seed, key) ^ mix(vh+tagHashMap))
}

// sameContainer reports whether a and b are mappings with the same
// entries or sequences with the same items, each pair of values the same
// scalar or the same (identical) container.
func sameContainer(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !sameValue(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameValue(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// sameValue reports whether a and b are equal scalars or the same
// container.
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case string:
		b, ok := b.(string)
		return ok && a == b
	case int64:
		b, ok := b.(int64)
		return ok && a == b
	case float64:
		b, ok := b.(float64)
		return ok && math.Float64bits(a) == math.Float64bits(b)
	case map[string]any:
		b, ok := b.(map[string]any)
		return ok && len(a) == len(b) && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		return len(a) == 0 || &a[0] == &b[0]
	}
	return false
}
