package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/lintcmd"
)

// run runs the program's checker.
func run(args []string, stdout, stderr io.Writer) int {
	c := lintcmd.New(lintcmd.WithRules(OwnerRule()), lintcmd.WithName("custom-rule"))
	return c.Run(context.Background(), args, nil, stdout, stderr)
}

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
				"1 source: 1 error",
			},
			notWant: []string{"xbuckets"},
		},
		{
			name:    "provider: the rule does not apply, the built-in rules run",
			args:    []string{"../../xpkg/testdata/build/provider-example"},
			want:    []string{"no problems"},
			notWant: []string{"ORG001"},
		},
		{name: "no source", code: 2, want: []string{"custom-rule: no SOURCE given (see custom-rule --help)"}},
		{name: "unreadable source", args: []string{"testdata/missing"}, code: 2, want: []string{"custom-rule: testdata/missing: no such file or directory"}},
		{name: "the rule is listed", args: []string{"--list-rules"}, want: []string{"ORG001  xrd-owner"}},
		{name: "the rule is explained", args: []string{"--explain", "xrd-owner"}, want: []string{"ORG001 xrd-owner: Every XRD names its owner"}},
		{name: "the rule is regraded", args: []string{"--severity", "ORG001=warning", "testdata/configuration"}, want: []string{"warning ORG001"}},
		{name: "the rule is disabled", args: []string{"--disable", "ORG001", "testdata/configuration"}, notWant: []string{"ORG001"}},
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
