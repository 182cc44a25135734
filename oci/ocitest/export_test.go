package ocitest

import (
	"context"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
)

// CheckStore runs TestStore's checks of s (without TestFetcher's) and
// returns each check's error by name, so that the kit's own tests can show
// that a broken store fails them.
func CheckStore(ctx context.Context, s oci.Store) map[string]error {
	out := map[string]error{}
	for _, c := range storeChecks {
		out[c.name] = c.check(ctx, s)
	}
	return out
}

// StoreIndex is the top-level index TestStore gives newStore.
func StoreIndex() ocispec.Index { return storeIndex() }

// RandomFile is the name of the file in layer i of a random image.
func RandomFile(i int) string { return randomFile(i) }
