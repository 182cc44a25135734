package hostile

// lintCostCases returns the cases that try to buy memory or CPU from
// the lint rules beyond what the limits allow.
func lintCostCases() []Case {
	return nil
}
