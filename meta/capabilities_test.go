package meta_test

import (
	"testing"

	"github.com/xpkgkit/xpkgkit/meta"
)

func TestKnownCapabilitiesContain(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		kind       meta.Kind
		capability string
		want       bool
	}{
		"ProviderSafeStartCanonical": {meta.KindProvider, "safe-start", true},
		"ProviderSafeStartCamel":     {meta.KindProvider, "SafeStart", true},
		"ProviderSafeStartLower":     {meta.KindProvider, "safestart", true},
		"ProviderSafeStartSnake":     {meta.KindProvider, "SAFE_START", true},
		"ProviderSafeStartSpaced":    {meta.KindProvider, " safe start ", true},
		"ProviderSafeStartDotted":    {meta.KindProvider, "safe.start!", true},
		"ProviderSafeStartPrefix":    {meta.KindProvider, "safe", false},
		"ProviderSafeStartLonger":    {meta.KindProvider, "safe-start-2", false},
		"ProviderUnknown":            {meta.KindProvider, "CustomCapability", false},
		"ProviderComposition":        {meta.KindProvider, "composition", false},
		"FunctionComposition":        {meta.KindFunction, "composition", true},
		"FunctionCompositionTitle":   {meta.KindFunction, "Composition", true},
		"FunctionOperation":          {meta.KindFunction, "Operation", true},
		"FunctionSafeStart":          {meta.KindFunction, "safe-start", false},
		"ConfigurationNone":          {meta.KindConfiguration, "composition", false},
		"UnknownKind":                {meta.Kind("Widget"), "safe-start", false},
		"Empty":                      {meta.KindProvider, "", false},
		"OnlyPunctuation":            {meta.KindProvider, "--", false},
		"NonASCIIIgnored":            {meta.KindFunction, "compositión", false},
		"NonASCIIStripped":           {meta.KindFunction, "composition✓", true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := meta.CapabilitiesContain(meta.KnownCapabilities(tc.kind), tc.capability); got != tc.want {
				t.Errorf("CapabilitiesContain(KnownCapabilities(%q), %q) = %v, want %v", tc.kind, tc.capability, got, tc.want)
			}
		})
	}
}

func TestCapabilityMatches(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		a, b string
		want bool
	}{
		"Same":               {"composition", "composition", true},
		"CaseAndPunctuation": {"Safe_Start", "safe-start", true},
		"Digits":             {"v2-api", "V2API", true},
		"DifferentDigits":    {"v2-api", "v3-api", false},
		"BothEmpty":          {"", "", false},
		"BothPunctuation":    {"-", "_", false},
		"OneEmpty":           {"", "a", false},
		"Prefix":             {"abc", "ab", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := meta.CapabilityMatches(tc.a, tc.b); got != tc.want {
				t.Errorf("CapabilityMatches(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
			if got := meta.CapabilityMatches(tc.b, tc.a); got != tc.want {
				t.Errorf("CapabilityMatches(%q, %q) = %v, want %v (not symmetric)", tc.b, tc.a, got, tc.want)
			}
		})
	}
}

func TestCapabilitiesContain(t *testing.T) {
	t.Parallel()
	caps := []string{"CustomCapability", "SafeStart"}
	if !meta.CapabilitiesContain(caps, meta.ProviderCapabilitySafeStart) {
		t.Errorf("CapabilitiesContain(%q, %q) = false, want true", caps, meta.ProviderCapabilitySafeStart)
	}
	if meta.CapabilitiesContain(caps, meta.FunctionCapabilityOperation) {
		t.Errorf("CapabilitiesContain(%q, %q) = true, want false", caps, meta.FunctionCapabilityOperation)
	}
	if meta.CapabilitiesContain(nil, meta.FunctionCapabilityOperation) {
		t.Error("CapabilitiesContain(nil, ...) = true, want false")
	}
}

func TestKnownCapabilities(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		kind meta.Kind
		want []string
	}{
		"Provider":      {meta.KindProvider, []string{"safe-start"}},
		"Function":      {meta.KindFunction, []string{"composition", "operation"}},
		"Configuration": {meta.KindConfiguration, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := meta.KnownCapabilities(tc.kind)
			if len(got) != len(tc.want) {
				t.Fatalf("KnownCapabilities(%q) = %q, want %q", tc.kind, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("KnownCapabilities(%q)[%d] = %q, want %q", tc.kind, i, got[i], tc.want[i])
				}
				got[i] = "mutated"
			}
			if again := meta.KnownCapabilities(tc.kind); len(again) > 0 && again[0] == "mutated" {
				t.Error("KnownCapabilities returns shared memory")
			}
		})
	}
}
