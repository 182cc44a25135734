package testbudget_test

import (
	"fmt"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testbudget"
)

func TestOn(t *testing.T) {
	tests := []struct {
		val  string
		want bool
	}{
		{"", false},
		{"0", false},
		{"1", true},
		{"yes", true},
	}
	for _, tc := range tests {
		t.Run(tc.val, func(t *testing.T) {
			t.Setenv(testbudget.Env, tc.val)
			if got := testbudget.On(); got != tc.want {
				t.Errorf("%s=%q: On() = %v, want %v", testbudget.Env, tc.val, got, tc.want)
			}
		})
	}
}

// recorder is a testing.TB that records whether Error was called.
type recorder struct {
	testing.TB
	failed bool
	logged string
}

func (r *recorder) Helper()                    {}
func (r *recorder) Error(args ...any)          { r.failed = true }
func (r *recorder) Logf(f string, args ...any) { r.logged = f }

func TestErrorf(t *testing.T) {
	for _, on := range []bool{false, true} {
		val := ""
		if on {
			val = "1"
		}
		t.Setenv(testbudget.Env, val)
		r := &recorder{TB: t}
		testbudget.Errorf(r, "CPU %d s, want at most %d s", 11, 10)
		if r.failed != on {
			t.Errorf("budgets on: %v: failed = %v, want %v", on, r.failed, on)
		}
		if !on && r.logged == "" {
			t.Error("budgets off: the measurement was not logged")
		}
	}
}

func ExampleOn() {
	// A hostile test measures, then asserts only when the budgets are on.
	fmt.Println("asserted when", testbudget.Env, "is set")
	// Output: asserted when XPKGKIT_HOSTILE_BUDGETS is set
}
