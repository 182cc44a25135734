package parser

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/limit"
)

// TestLimitsZeroMeansDefault checks the one meaning of a zero limit: a
// partly filled Limits keeps the defaults of the fields it leaves at zero,
// and limit.Unlimited lifts only the field it is given to.
func TestLimitsZeroMeansDefault(t *testing.T) {
	t.Parallel()
	d := DefaultLimits()
	for _, tc := range []struct {
		name string
		in   Limits
		want Limits
	}{
		{"zero value", Limits{}, d},
		{"one field", Limits{MaxDocuments: 10}, func() Limits { l := d; l.MaxDocuments = 10; return l }()},
		{"unlimited depth", Limits{MaxDepth: limit.Unlimited}, func() Limits { l := d; l.MaxDepth = limitval.None; return l }()},
		{"any negative", Limits{MaxNodes: -7, MaxTotalBytes: 5}, func() Limits { l := d; l.MaxNodes, l.MaxTotalBytes = limitval.None, 5; return l }()},
	} {
		if got := newConfig([]Option{WithLimits(tc.in)}).limits; got != tc.want {
			t.Errorf("%s: WithLimits(%+v) gives %+v, want %+v", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestPartialLimitsKeepDepth checks the same through Parse: setting
// MaxDocuments alone keeps the default MaxDepth, and limit.Unlimited lifts it.
func TestPartialLimitsKeepDepth(t *testing.T) {
	t.Parallel()
	deep := "apiVersion: v1\nkind: X\nspec: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n"
	p, err := Parse(context.Background(), strings.NewReader(deep), WithLimits(Limits{MaxDocuments: 10}))
	if err != nil || len(p.Errors) != 1 || !errors.Is(p.Errors[0], limit.ErrExceeded) {
		t.Fatalf("MaxDocuments alone: %v, %v; want the default MaxDepth to refuse the document", err, p)
	}
	p, err = Parse(context.Background(), strings.NewReader(deep), WithLimits(Limits{MaxDepth: limit.Unlimited}))
	if err != nil || len(p.Errors) != 0 || len(p.Objects) != 1 {
		t.Fatalf("MaxDepth limit.Unlimited: %v, %v", err, p)
	}
}

// TestWithUsage checks that a parse given another's usage counts on from
// it: the documents and bytes of both count against one limit, and the
// error names the limit as set.
func TestWithUsage(t *testing.T) {
	t.Parallel()
	doc := "---\napiVersion: v1\nkind: ConfigMap\n"
	lim := Limits{MaxDocuments: 10}
	first, err := Parse(context.Background(), strings.NewReader(strings.Repeat(doc, 6)), WithLimits(lim))
	if err != nil {
		t.Fatal(err)
	}
	if first.Usage.Documents != 6 || first.Usage.Bytes != int64(6*len(doc)) {
		t.Fatalf("usage %+v, want 6 documents of %d bytes", first.Usage, 6*len(doc))
	}
	_, err = Parse(context.Background(), strings.NewReader(strings.Repeat(doc, 6)), WithLimits(lim), WithUsage(first.Usage))
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != "MaxDocuments" || le.Max != 10 {
		t.Fatalf("got %v, want MaxDocuments 10", err)
	}
	lim = Limits{MaxTotalBytes: int64(10 * len(doc))}
	_, err = Parse(context.Background(), strings.NewReader(strings.Repeat(doc, 6)), WithLimits(lim), WithUsage(first.Usage))
	if !errors.As(err, &le) || le.Limit != "MaxTotalBytes" {
		t.Fatalf("got %v, want MaxTotalBytes", err)
	}
}
