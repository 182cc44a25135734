package limit_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/xpkgkit/xpkgkit/limit"
)

func TestError(t *testing.T) {
	t.Parallel()
	at := limit.Position{File: "f.yaml", Line: 3, Column: 1}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"positioned", &limit.Error{Limit: "MaxDocumentBytes", Value: 9, Max: 8, Pos: at}, "f.yaml:3:1: MaxDocumentBytes 8 exceeded"},
		{"no file", &limit.Error{Limit: "MaxDocuments", Max: 4, Pos: limit.Position{Line: 9, Column: 1}}, "9:1: MaxDocuments 4 exceeded"},
		{"no position", &limit.Error{Limit: "MaxLayerBytes", Max: 10}, "MaxLayerBytes 10 exceeded"},
		{"wrapped", fmt.Errorf("oci: open layer: %w", &limit.Error{Limit: "MaxLayerBytes", Max: 10}), "oci: open layer: MaxLayerBytes 10 exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
			if !errors.Is(tc.err, limit.ErrExceeded) {
				t.Error("does not match limit.ErrExceeded")
			}
			var le *limit.Error
			if !errors.As(tc.err, &le) || le.Limit == "" {
				t.Error("errors.As finds no *limit.Error")
			}
		})
	}
	if errors.Is(errors.New("limit exceeded"), limit.ErrExceeded) {
		t.Error("an unrelated error matches limit.ErrExceeded")
	}
}

func TestPositionString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    limit.Position
		want string
	}{
		{limit.Position{File: "a.yaml", Line: 2, Column: 5}, "a.yaml:2:5"},
		{limit.Position{Line: 2, Column: 5}, "2:5"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}
