package lsp

import (
	"slices"
	"testing"
)

// TestSettings reads the workspace configuration into xpkg-lint's flags.
func TestSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		raw     string
		flags   []string
		wantErr bool
	}{
		{name: "under xpkg", raw: `{"xpkg":{"crossplaneVersion":"v2.0.1","disable":["XP103","meta-license"]}}`,
			flags: []string{"--crossplane-version", "v2.0.1", "--disable", "XP103,meta-license"}},
		{name: "top level", raw: `{"cacheDir":"/var/cache/crossplane"}`,
			flags: []string{"--deps", "--offline", "--deps-cache", "/var/cache/crossplane"}},
		{name: "empty", raw: `{}`},
		{name: "bad version", raw: `{"xpkg":{"crossplaneVersion":"latest"}}`, wantErr: true},
		{name: "not an object", raw: `[1]`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := New()
			err := s.applySettings([]byte(tt.raw))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if got := s.settings.flags(); !tt.wantErr && !slices.Equal(got, tt.flags) {
				t.Errorf("flags %q, want %q", got, tt.flags)
			}
		})
	}
}
