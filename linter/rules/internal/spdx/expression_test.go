package spdx

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		expr       string
		err        error
		deprecated []string
	}{
		{name: "identifier", expr: "Apache-2.0"},
		{name: "any case", expr: "apache-2.0"},
		{name: "or", expr: "MIT OR Apache-2.0"},
		{name: "lower-case operators", expr: "MIT or Apache-2.0"},
		{name: "and with parentheses", expr: "(MIT AND BSD-3-Clause) OR Apache-2.0"},
		{name: "with exception", expr: "GPL-2.0-or-later WITH Classpath-exception-2.0"},
		{name: "plus", expr: "Apache-1.0+"},
		{name: "license ref", expr: "LicenseRef-Proprietary"},
		{name: "document ref", expr: "DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2"},
		{name: "deprecated", expr: "GPL-2.0 OR MIT", deprecated: []string{"GPL-2.0"}},
		{name: "nested", expr: "((MIT))"},
		{name: "empty", expr: "", err: ErrSyntax},
		{name: "blank", expr: "  ", err: ErrSyntax},
		{name: "unknown", expr: "Apache 2.0", err: ErrUnknownLicense},
		{name: "prose", expr: "Apache License, Version 2.0", err: ErrUnknownLicense},
		{name: "mixed-case operator", expr: "MIT Or Apache-2.0", err: ErrSyntax},
		{name: "dangling operator", expr: "MIT AND", err: ErrSyntax},
		{name: "leading operator", expr: "OR MIT", err: ErrSyntax},
		{name: "unbalanced", expr: "(MIT OR Apache-2.0", err: ErrSyntax},
		{name: "extra close", expr: "MIT)", err: ErrSyntax},
		{name: "with nothing", expr: "MIT WITH", err: ErrSyntax},
		{name: "bad license ref", expr: "LicenseRef-a_b", err: ErrSyntax},
		{name: "too deep", expr: strings.Repeat("(", 40) + "MIT" + strings.Repeat(")", 40), err: ErrSyntax},
		{name: "too long", expr: strings.Repeat("MIT OR ", 200) + "MIT", err: ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dep, err := Check(tt.expr)
			if tt.err == nil && err != nil {
				t.Fatalf("Check(%q): %v", tt.expr, err)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Fatalf("Check(%q) = %v, want %v", tt.expr, err, tt.err)
			}
			if !slices.Equal(dep, tt.deprecated) {
				t.Errorf("Check(%q) deprecated = %q, want %q", tt.expr, dep, tt.deprecated)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	if c, dep, ok := Lookup("mit"); !ok || dep || c != "MIT" {
		t.Errorf("Lookup(mit) = %q, %v, %v", c, dep, ok)
	}
	if _, dep, ok := Lookup("AGPL-3.0"); !ok || !dep {
		t.Errorf("Lookup(AGPL-3.0) deprecated=%v ok=%v, want deprecated", dep, ok)
	}
	if ListVersion == "" || len(licenseIDs) < 400 {
		t.Errorf("embedded list looks empty: version %q, %d ids", ListVersion, len(licenseIDs))
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{"MIT", "(A AND B) OR C WITH D", "LicenseRef-x", "GPL-2.0+"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Check(s) // must not panic
	})
}
