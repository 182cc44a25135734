package meta

// Capabilities Crossplane acts on. A package may declare others: they mean
// nothing to Crossplane but may to another consumer.
const (
	// ProviderCapabilitySafeStart says a Provider starts its controllers
	// only for the managed resources a user activates, so Crossplane installs
	// its resources as inactive ManagedResourceDefinitions. Crossplane 2.0+.
	ProviderCapabilitySafeStart = "safe-start"

	// FunctionCapabilityComposition says a Function can run in a
	// Composition's pipeline.
	FunctionCapabilityComposition = "composition"

	// FunctionCapabilityOperation says a Function can run in an Operation's
	// pipeline.
	FunctionCapabilityOperation = "operation"
)

// KnownCapabilities returns the capabilities Crossplane knows for packages
// of kind k, in their canonical spelling; nil for a kind with none.
func KnownCapabilities(k Kind) []string {
	switch k {
	case KindProvider:
		return []string{ProviderCapabilitySafeStart}
	case KindFunction:
		return []string{FunctionCapabilityComposition, FunctionCapabilityOperation}
	default:
		return nil
	}
}

// CapabilitiesContain reports whether one of capabilities matches
// capability the way Crossplane compares them: only ASCII letters and
// digits count, and case does not. So
// CapabilitiesContain(KnownCapabilities(KindProvider), c) holds for
// "SafeStart", "safestart" and "safe_start", all the Provider capability
// "safe-start".
func CapabilitiesContain(capabilities []string, capability string) bool {
	for _, c := range capabilities {
		if capabilityMatches(c, capability) {
			return true
		}
	}
	return false
}

// capabilityMatches reports whether a and b name the same capability, the
// way Crossplane compares them: only ASCII letters and digits count, and
// case does not. Two capabilities with no letters or digits match nothing.
func capabilityMatches(a, b string) bool {
	i, j := 0, 0
	matched := false
	for {
		for i < len(a) && !isAlnum(a[i]) {
			i++
		}
		for j < len(b) && !isAlnum(b[j]) {
			j++
		}
		if i == len(a) || j == len(b) {
			return matched && i == len(a) && j == len(b)
		}
		if lower(a[i]) != lower(b[j]) {
			return false
		}
		matched = true
		i++
		j++
	}
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
