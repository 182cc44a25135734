package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		args    []string
		code    int
		want    []string
		notWant []string
	}{
		{
			name: "configuration with an XRD without owner",
			args: []string{"testdata/configuration"},
			code: 1,
			want: []string{
				"apis/xnetworks.yaml:3:1: error ORG001 xrd-owner: XRD xnetworks.example.org has no docs.example.org/owner annotation: name the team that owns it",
				"testdata/configuration: 1 errors",
			},
			notWant: []string{"xbuckets"},
		},
		{
			name:    "provider: the rule does not apply, the built-in rules run",
			args:    []string{"../../xpkg/testdata/build/provider-example"},
			want:    []string{"0 errors"},
			notWant: []string{"ORG001"},
		},
		{name: "no source", code: 2, want: []string{"usage: custom-rule"}},
		{name: "unreadable source", args: []string{"testdata/missing"}, code: 2, want: []string{"custom-rule: xpkg: testdata/missing"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			out := stdout.String() + stderr.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
}
