package ocitest_test

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/ocitest"
)

// fakeStore serves blobs from a MemoryStore and a top-level index through
// index, which each case of TestStoreChecksCatch breaks its own way.
type fakeStore struct {
	*oci.MemoryStore
	index func() (ocispec.Index, error)
}

func (f fakeStore) Index(context.Context) (ocispec.Index, error) { return f.index() }

func newFake(t *testing.T, index func(want ocispec.Index) func() (ocispec.Index, error)) oci.Store {
	t.Helper()
	blobs, _ := ocitest.Image()
	s := oci.NewMemoryStore()
	for _, b := range blobs {
		if err := s.Push(t.Context(), b.Descriptor, bytes.NewReader(b.Data)); err != nil {
			t.Fatal(err)
		}
	}
	return fakeStore{MemoryStore: s, index: index(ocitest.StoreIndex())}
}

// cloneIndex returns a copy of idx that shares no memory with it.
func cloneIndex(idx ocispec.Index) ocispec.Index {
	out := idx
	out.Manifests = slices.Clone(idx.Manifests)
	for i := range out.Manifests {
		d := &out.Manifests[i]
		d.Annotations = maps.Clone(d.Annotations)
		if d.Platform != nil {
			p := *d.Platform
			d.Platform = &p
		}
	}
	return out
}

// TestStoreChecksCatch checks that TestStore's checks pass a correct store
// and fail each broken one, by the check that names the fault.
func TestStoreChecksCatch(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		index   func(want ocispec.Index) func() (ocispec.Index, error)
		failing []string // the checks that must fail; every other must pass
	}{
		"correct": {
			index: func(want ocispec.Index) func() (ocispec.Index, error) {
				return func() (ocispec.Index, error) { return cloneIndex(want), nil }
			},
		},
		"entries reordered": {
			index: func(want ocispec.Index) func() (ocispec.Index, error) {
				return func() (ocispec.Index, error) {
					idx := cloneIndex(want)
					slices.Reverse(idx.Manifests)
					return idx, nil
				}
			},
			failing: []string{"Index", "IndexFresh", "IndexConcurrent"},
		},
		"an annotation dropped": {
			index: func(want ocispec.Index) func() (ocispec.Index, error) {
				return func() (ocispec.Index, error) {
					idx := cloneIndex(want)
					delete(idx.Manifests[1].Annotations, "org.example.ocitest")
					return idx, nil
				}
			},
			failing: []string{"Index", "IndexFresh", "IndexConcurrent"},
		},
		"the platform dropped": {
			index: func(want ocispec.Index) func() (ocispec.Index, error) {
				return func() (ocispec.Index, error) {
					idx := cloneIndex(want)
					idx.Manifests[1].Platform = nil
					return idx, nil
				}
			},
			failing: []string{"Index", "IndexFresh", "IndexConcurrent", "Resolve"},
		},
		"an entry missing": {
			index: func(want ocispec.Index) func() (ocispec.Index, error) {
				return func() (ocispec.Index, error) {
					idx := cloneIndex(want)
					idx.Manifests = idx.Manifests[1:]
					return idx, nil
				}
			},
			failing: []string{"Index", "IndexFresh", "IndexConcurrent", "Resolve"},
		},
		"schemaVersion unset": {
			index: func(want ocispec.Index) func() (ocispec.Index, error) {
				return func() (ocispec.Index, error) {
					idx := cloneIndex(want)
					idx.SchemaVersion = 0
					return idx, nil
				}
			},
			failing: []string{"Index"},
		},
		"result shares the store's annotations": {
			index: func(want ocispec.Index) func() (ocispec.Index, error) {
				return func() (ocispec.Index, error) {
					idx := want
					idx.Manifests = slices.Clone(want.Manifests) // the slice is fresh, the maps are not
					return idx, nil
				}
			},
			// IndexFresh's changes stay in the store: the checks after it
			// see them.
			failing: []string{"IndexFresh", "IndexConcurrent", "Resolve"},
		},
		"Index fails": {
			index: func(ocispec.Index) func() (ocispec.Index, error) {
				return func() (ocispec.Index, error) { return ocispec.Index{}, errors.New("broken") }
			},
			failing: []string{"Index", "IndexFresh", "IndexConcurrent", "Resolve"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := ocitest.CheckStore(t.Context(), newFake(t, tc.index))
			for check, err := range got {
				want := slices.Contains(tc.failing, check)
				if want && err == nil {
					t.Errorf("%s passed a broken store", check)
				}
				if !want && err != nil {
					t.Errorf("%s failed: %v", check, err)
				}
			}
			for _, check := range tc.failing {
				if _, ok := got[check]; !ok {
					t.Errorf("no check %s", check)
				}
			}
		})
	}
}
