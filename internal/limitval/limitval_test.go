package limitval

import (
	"math"
	"testing"
)

func TestOr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v, def, want int64
	}{
		{0, 10, 10},
		{5, 10, 5},
		{-1, 10, None},
		{-7, 10, None},
		{math.MaxInt64, 10, math.MaxInt64},
	} {
		if got := Or(tc.v, tc.def); got != tc.want {
			t.Errorf("Or(%d, %d) = %d, want %d", tc.v, tc.def, got, tc.want)
		}
	}
	if got := Or[int](-1, 3); got != None || got+got < got {
		t.Errorf("Or[int](-1, 3) = %d, want None without overflow on a sum of two", got)
	}
}
