package verify

import (
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/limit"
)

// TestLimitsConvention: zero takes the default and limit.Unlimited means
// no limit, as in every Limits of the module.
func TestLimitsConvention(t *testing.T) {
	t.Parallel()
	d := DefaultLimits()
	if got := (Limits{}).withDefaults(); got != d {
		t.Errorf("zero Limits = %+v, want the defaults %+v", got, d)
	}
	got := Limits{MaxSignatures: limit.Unlimited, MaxManifestBytes: limit.Unlimited, MaxBlobBytes: limit.Unlimited, MaxTotalBytes: limit.Unlimited, MaxFailures: limit.Unlimited}.withDefaults()
	want := Limits{MaxSignatures: limitval.None, MaxManifestBytes: limitval.None, MaxBlobBytes: limitval.None, MaxTotalBytes: limitval.None, MaxFailures: limitval.None}
	if got != want {
		t.Errorf("Unlimited = %+v, want %+v", got, want)
	}
	if got := (Limits{MaxSignatures: 3}).withDefaults(); got.MaxSignatures != 3 || got.MaxBlobBytes != d.MaxBlobBytes {
		t.Errorf("one field set = %+v", got)
	}
}
