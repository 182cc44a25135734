package hostile

// ociCostCases returns the cases that try to buy memory or CPU from
// the OCI readers: docker archives, gzip'd archives, layout directories, metadata beyond what the limits allow.
func ociCostCases() []Case {
	return nil
}
