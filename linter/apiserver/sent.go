package apiserver

import (
	"context"
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/internal/sent"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

// sendObject returns what the package manager of release line sends for
// obj, an object of one of Crossplane's kinds: obj after its round trip
// through the release's Go type (internal/sent), and what the round trip
// changed. obj itself is left as it is. Where the line's Go types do not
// include the kind, obj is sent as written (a copy, since validation
// prunes and defaults in place).
func sendObject(ctx context.Context, line string, gvk schema.GroupVersionKind, obj map[string]any) (map[string]any, *sent.Report, error) {
	out, rep, ok, err := sent.Send(ctx, line, gvk.Group, gvk.Version, gvk.Kind, obj)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return obj, nil, nil
	}
	return out, rep, nil
}

// notSent handles err, from sendObject or from work after it: the
// context's error is returned, an object too large as sent is reported as
// not validated (an info), and any other error (the API server's code
// failing, reported by the validation itself) is dropped as before.
func notSent(p *linter.Pass, o *parser.Object, err error) error {
	if ctxErr := p.Context().Err(); ctxErr != nil {
		return ctxErr
	}
	if errors.Is(err, sent.ErrTooLarge) {
		p.ReportSeverityf(linter.SeverityInfo, o, nil, "%s %s: not validated: %s", o.Kind, safetext.Quote(o.ObjectMeta.Name), safetext.Reason(err))
	}
	return nil
}

// sentNote explains a finding at a field the YAML leaves out, which the
// package manager sends as its Go type's zero value.
func sentNote(line string, rep *sent.Report, path []string) string {
	z, ok := rep.Zeroed(path)
	if !ok {
		return ""
	}
	return " (the YAML leaves " + parser.FieldPath(path...) + " out, and Crossplane " + line +
		"'s Go type of the kind has no omitempty on it, so the package manager sends " + z + ")"
}

// warnCannotWork warns about an object the API server accepts but that
// cannot do its job as sent.
func warnCannotWork(p *linter.Pass, o *parser.Object, line string, obj map[string]any, rep *sent.Report) {
	gvk := o.GroupVersionKind()
	if gvk.Group == "ops.crossplane.io" && gvk.Kind == "WatchOperation" {
		warnWatch(p, o, line, obj, rep)
		return
	}
	if gvk.Group != "ops.crossplane.io" || gvk.Kind != "CronOperation" {
		return
	}
	// crossplane v2.4.0 internal/controller/ops/cronoperation/
	// reconciler.go:148: the schedule is parsed (robfig/cron
	// ParseStandard) on every reconcile; an empty one never parses, so
	// the CronOperation is marked ScheduleInvalid and never creates an
	// Operation.
	spec, _ := obj["spec"].(map[string]any)
	s, isString := spec["schedule"].(string)
	if spec == nil || !isString || strings.TrimSpace(s) != "" {
		return
	}
	how := "is empty"
	if _, zeroed := rep.Zeroed([]string{"spec", "schedule"}); zeroed {
		how = "is left out (Crossplane " + line + " sends \"\")"
	}
	p.ReportSeverityf(linter.SeverityWarning, o, []string{"spec", "schedule"},
		"CronOperation %s never runs: its schedule %s, which the API server accepts but the CronOperation controller cannot parse as a cron schedule",
		safetext.Quote(o.ObjectMeta.Name), how)
}

// warnWatch warns about a WatchOperation whose watch has an empty kind or
// apiVersion (sent as "" when left out): crossplane v2.4.0
// internal/controller/ops/watchoperation/reconciler.go:213 starts a watch
// for that group, version and kind, which no API serves, so the
// WatchOperation is marked WatchFailed and never creates an Operation.
func warnWatch(p *linter.Pass, o *parser.Object, line string, obj map[string]any, rep *sent.Report) {
	spec, _ := obj["spec"].(map[string]any)
	watch, _ := spec["watch"].(map[string]any)
	if watch == nil {
		return
	}
	for _, k := range []string{"kind", "apiVersion"} {
		s, isString := watch[k].(string)
		if !isString || strings.TrimSpace(s) != "" {
			continue
		}
		how := "is empty"
		if _, zeroed := rep.Zeroed([]string{"spec", "watch", k}); zeroed {
			how = "is left out (Crossplane " + line + " sends \"\")"
		}
		p.ReportSeverityf(linter.SeverityWarning, o, []string{"spec", "watch", k},
			"WatchOperation %s never runs: its watch %s %s, which the API server accepts but the WatchOperation controller cannot start a watch for",
			safetext.Quote(o.ObjectMeta.Name), k, how)
		return
	}
}
