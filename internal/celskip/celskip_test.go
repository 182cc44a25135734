package celskip

import "testing"

func TestTalliesRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []Counts{{}, {Transition: 1}, {Transition: 2, Cost: 3, Partial: 4, Blocked: 5, Unevaluated: 6}} {
		m := c.Tallies()
		if got := FromTallies(m); got != c {
			t.Errorf("FromTallies(%v) = %+v, want %+v", m, got, c)
		}
		for k, n := range m {
			if n == 0 {
				t.Errorf("Tallies of %+v holds %s = 0", c, k)
			}
		}
		var sum Counts
		sum.Add(c)
		sum.Add(c)
		if sum.Total() != 2*c.Total() {
			t.Errorf("Add twice: total %d, want %d", sum.Total(), 2*c.Total())
		}
	}
	if got := FromTallies(map[string]int{"other": 7}); got != (Counts{}) {
		t.Errorf("FromTallies of an unknown key = %+v, want zero", got)
	}
}
