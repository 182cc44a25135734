// Package limitval reads the fields of the module's Limits structs under
// their one convention (see package limit): zero means the default, a
// negative value (limit.Unlimited) means no limit.
package limitval

import "math"

// None is what a field that has no limit resolves to: a value no input
// reaches, with room left for the +1 and the sums of two that checks
// compute (math.MaxInt/2, so that it also fits an int of 32 bits).
const None = math.MaxInt >> 1

// Or resolves one field: zero takes def, a negative value (limit.Unlimited)
// takes None, so that a check "n > max" never fails, and any other value
// stays.
func Or[T ~int | ~int64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return T(None)
	}
	return v
}
