package report

import (
	"cmp"
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/celskip"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/meta"
)

// SARIF identifies the SARIF version and schema the SARIF format follows.
const (
	SARIFVersion = "2.1.0"
	SARIFSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// ToolName is the name SARIF gives the tool.
	ToolName = "xpkg-lint"
)

// The SARIF objects written, a subset of the SARIF 2.1.0 object model.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool        sarifTool             `json:"tool"`
		Invocations []sarifInvocation     `json:"invocations"`
		Artifacts   []sarifArtifactObject `json:"artifacts,omitempty"`
		Results     []sarifResult         `json:"results"`
		// Properties holds, when rule evaluations were left out,
		// "skippedCEL": the counts of the report's summary.
		Properties map[string]any `json:"properties,omitempty"`
	}
	// sarifArtifactObject lists an image, and the files inside it that
	// results point at, nested under it (parentIndex).
	sarifArtifactObject struct {
		Location    sarifArtifact `json:"location"`
		ParentIndex *int          `json:"parentIndex,omitempty"`
		Roles       []string      `json:"roles,omitempty"`
	}
	sarifLogical struct {
		Name               string `json:"name"`
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
	sarifSuppression struct {
		Kind          string `json:"kind"`
		Justification string `json:"justification,omitempty"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name    string      `json:"name"`
		Version string      `json:"version,omitempty"`
		Rules   []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string               `json:"id"`
		Name                 string               `json:"name"`
		ShortDescription     sarifText            `json:"shortDescription"`
		FullDescription      sarifText            `json:"fullDescription"`
		Help                 *sarifText           `json:"help,omitempty"`
		DefaultConfiguration sarifConfiguration   `json:"defaultConfiguration"`
		Properties           *sarifRuleProperties `json:"properties,omitempty"`
	}
	sarifRuleProperties struct {
		Tags []string `json:"tags"`
	}
	sarifText struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	sarifConfiguration struct {
		Enabled *bool  `json:"enabled,omitempty"`
		Level   string `json:"level,omitempty"`
	}
	sarifInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		RuleConfigurationOverrides []sarifOverride     `json:"ruleConfigurationOverrides,omitempty"`
		ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifOverride struct {
		Descriptor    sarifDescriptorRef `json:"descriptor"`
		Configuration sarifConfiguration `json:"configuration"`
	}
	sarifDescriptorRef struct {
		ID    string `json:"id"`
		Index *int   `json:"index,omitempty"`
	}
	sarifNotification struct {
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations,omitempty"`
	}
	sarifResult struct {
		RuleID         string             `json:"ruleId"`
		RuleIndex      *int               `json:"ruleIndex,omitempty"`
		Level          string             `json:"level"`
		Message        sarifText          `json:"message"`
		AnalysisTarget *sarifArtifact     `json:"analysisTarget,omitempty"`
		Locations      []sarifLocation    `json:"locations"`
		Suppressions   []sarifSuppression `json:"suppressions,omitempty"`
		Properties     map[string]string  `json:"properties,omitempty"`
		BaselineState  string             `json:"baselineState,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical  `json:"physicalLocation"`
		LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI   string `json:"uri"`
		Index *int   `json:"index,omitempty"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
)

// sarifWriter collects the results and writes the log on Close.
type sarifWriter struct {
	w       io.Writer
	log     sarifLog
	ruleIdx map[string]int
	// baseline: a baseline is in use, and results say whether they are
	// new or in it (baselineState).
	baseline bool
	// skippedCEL adds up the sources' CEL rule evaluations left out.
	skippedCEL celskip.Counts
}

func newSARIFWriter(w io.Writer, opts Options) *sarifWriter {
	s := &sarifWriter{w: w, ruleIdx: map[string]int{}, baseline: opts.Baseline}
	rules := make([]sarifRule, 0, len(opts.Rules))
	for i, r := range opts.Rules {
		s.ruleIdx[r.ID] = i
		rules = append(rules, sarifRuleOf(r))
	}
	inv := sarifInvocation{ExecutionSuccessful: true}
	for _, id := range opts.Disabled {
		off := false
		inv.RuleConfigurationOverrides = append(inv.RuleConfigurationOverrides, sarifOverride{
			Descriptor:    s.ref(id),
			Configuration: sarifConfiguration{Enabled: &off},
		})
	}
	ids := make([]string, 0, len(opts.Severities))
	for id := range opts.Severities {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		inv.RuleConfigurationOverrides = append(inv.RuleConfigurationOverrides, sarifOverride{
			Descriptor:    s.ref(id),
			Configuration: sarifConfiguration{Level: Level(opts.Severities[id])},
		})
	}
	s.log = sarifLog{
		Schema:  SARIFSchema,
		Version: SARIFVersion,
		Runs: []sarifRun{{
			Tool:        sarifTool{Driver: sarifDriver{Name: cmp.Or(opts.ToolName, ToolName), Version: opts.ToolVersion, Rules: rules}},
			Invocations: []sarifInvocation{inv},
			Results:     []sarifResult{},
		}},
	}
	return s
}

func (s *sarifWriter) ref(id string) sarifDescriptorRef {
	ref := sarifDescriptorRef{ID: id}
	if i, ok := s.ruleIdx[id]; ok {
		ref.Index = &i
	}
	return ref
}

func (s *sarifWriter) Source(src *Source) error {
	run := &s.log.Runs[0]
	s.skippedCEL.Add(src.SkippedCEL)
	if src.Err != nil {
		inv := &run.Invocations[0]
		inv.ExecutionSuccessful = false
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
			Level:     "error",
			Message:   sarifText{Text: src.Err.Error()},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: FileURI(src.Name)}}}},
		})
		return nil
	}
	target := &sarifArtifact{URI: FileURI(src.Name)}
	// An image is the artifact; the files inside it that results point at
	// are artifacts nested in it, each listed once.
	imageIdx := -1
	nested := map[string]int{}
	if src.Image {
		imageIdx = len(run.Artifacts)
		run.Artifacts = append(run.Artifacts, sarifArtifactObject{Location: sarifArtifact{URI: FileURI(src.Name)}, Roles: []string{"analysisTarget"}})
		i := imageIdx
		target.Index = &i
	}
	add := func(d linter.Diagnostic, state string) {
		r := sarifResult{
			BaselineState:  state,
			RuleID:         d.RuleID,
			Level:          Level(d.Severity),
			Message:        sarifText{Text: d.Message},
			AnalysisTarget: target,
		}
		if i, ok := s.ruleIdx[d.RuleID]; ok {
			r.RuleIndex = &i
		}
		if d.Suppression != nil {
			r.Suppressions = []sarifSuppression{{Kind: "inSource", Justification: d.Suppression.Reason}}
		}
		loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: FileURI(d.Pos.File)}}}
		switch {
		case d.Pos.Line > 0 && src.Image:
			// A file inside the image: a nested artifact, and a logical
			// location that names the image and the file together.
			idx, ok := nested[d.Pos.File]
			if !ok {
				idx = len(run.Artifacts)
				nested[d.Pos.File] = idx
				parent := imageIdx
				run.Artifacts = append(run.Artifacts, sarifArtifactObject{Location: sarifArtifact{URI: FileURI(d.Pos.File)}, ParentIndex: &parent})
			}
			loc.PhysicalLocation.ArtifactLocation.Index = &idx
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: d.Pos.Line, StartColumn: max(d.Pos.Column, 0)}
			loc.LogicalLocations = []sarifLogical{{Name: d.Pos.File, FullyQualifiedName: src.Name + "/" + d.Pos.File, Kind: "resource"}}
		case d.Pos.Line > 0:
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: d.Pos.Line, StartColumn: max(d.Pos.Column, 0)}
		case !src.Image && isFileOf(src, d):
			// A file of a directory that was not read (XP006): the file,
			// without a region.
		default:
			// An image-level diagnostic: it points at the image, and
			// says which file (a layer digest) it was about.
			loc.PhysicalLocation.ArtifactLocation = *target
			if d.Pos.File != "" && d.Pos.File != src.Name {
				r.Properties = map[string]string{"file": d.Pos.File}
			}
		}
		r.Locations = []sarifLocation{loc}
		run.Results = append(run.Results, r)
	}
	state := func(st string) string {
		if !s.baseline {
			return ""
		}
		return st
	}
	for _, d := range src.Diagnostics {
		add(d, state("new"))
	}
	for _, d := range src.Suppressed {
		add(d, "")
	}
	for _, d := range src.Baselined {
		add(d, state("unchanged"))
	}
	return nil
}

func (s *sarifWriter) Close(int) error {
	if s.skippedCEL.Total() > 0 && len(s.log.Runs) > 0 {
		s.log.Runs[0].Properties = map[string]any{"skippedCEL": s.skippedCEL}
	}
	enc := json.NewEncoder(s.w)
	enc.SetIndent("", "  ")
	return enc.Encode(s.log)
}

// Level maps a severity to a SARIF level: "error", "warning" or "note".
func Level(s linter.Severity) string {
	switch s {
	case linter.SeverityError:
		return "error"
	case linter.SeverityWarning:
		return "warning"
	}
	return "note"
}

// FileURI turns a file path into a SARIF artifact URI: a relative
// reference for a relative path (with forward slashes, escaped), a file URI
// for an absolute one.
func FileURI(path string) string {
	if path == "" {
		return ""
	}
	p := filepath.ToSlash(path)
	if filepath.IsAbs(path) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // a Windows drive path
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

// sarifRuleOf returns the SARIF reporting descriptor of r: its ID and name,
// its title as the short description, the rest of its Doc as the full
// description, its examples in the help, and its default level.
func sarifRuleOf(r *linter.Rule) sarifRule {
	body := RuleBody(r)
	full := unwrap(body)
	if full == "" {
		full = r.Title()
	}
	sr := sarifRule{
		ID:                   r.ID,
		Name:                 r.Name,
		ShortDescription:     sarifText{Text: r.Title()},
		FullDescription:      sarifText{Text: full},
		DefaultConfiguration: sarifConfiguration{Level: Level(r.Severity)},
	}
	help := sarifText{Text: full, Markdown: full}
	if r.Bad != "" {
		help.Text += "\n\nReported:\n\n" + strings.TrimSpace(r.Bad)
		help.Markdown += "\n\nReported:\n\n```yaml\n" + strings.TrimSpace(r.Bad) + "\n```"
	}
	if r.Good != "" {
		help.Text += "\n\nNot reported:\n\n" + strings.TrimSpace(r.Good)
		help.Markdown += "\n\nNot reported:\n\n```yaml\n" + strings.TrimSpace(r.Good) + "\n```"
	}
	sr.Help = &help
	tags := make([]string, 0, len(r.Kinds))
	for _, k := range r.Kinds {
		tags = append(tags, strings.ToLower(string(k)))
	}
	if len(tags) > 0 {
		sr.Properties = &sarifRuleProperties{Tags: tags}
	}
	return sr
}

// RuleBody returns a rule's Doc without its title line: the long
// description, as written (wrapped).
func RuleBody(r *linter.Rule) string {
	_, body, _ := strings.Cut(strings.TrimSpace(r.Doc), "\n")
	return strings.TrimSpace(body)
}

// KindsString returns the package kinds a rule applies to, "all" when it
// applies to every kind.
func KindsString(kinds []meta.Kind) string {
	if len(kinds) == 0 {
		return "all"
	}
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// unwrap joins the lines of each paragraph of text into one line; lines
// that start with whitespace or a list marker keep their line break.
func unwrap(text string) string {
	paras := strings.Split(text, "\n\n")
	for i, p := range paras {
		lines := strings.Split(p, "\n")
		var b strings.Builder
		for j, l := range lines {
			if j > 0 {
				if l != "" && (l[0] == ' ' || l[0] == '\t' || strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ")) {
					b.WriteByte('\n')
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString(l)
		}
		paras[i] = b.String()
	}
	return strings.Join(paras, "\n\n")
}
