package lintcmd

import (
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
)

var (
	sarifOnce      sync.Once
	sarifValidator *schemaValidator
	sarifErr       error
)

// loadSARIFSchema returns the validator of the official SARIF 2.1.0 schema
// (OASIS, errata 01), kept in testdata.
func loadSARIFSchema(t *testing.T) *schemaValidator {
	t.Helper()
	sarifOnce.Do(func() {
		data, err := os.ReadFile("testdata/sarif-schema-2.1.0.json")
		if err != nil {
			sarifErr = err
			return
		}
		sarifValidator, sarifErr = newSchemaValidator(data)
	})
	if sarifErr != nil {
		t.Fatal(sarifErr)
	}
	return sarifValidator
}

func TestSARIFSchema(t *testing.T) {
	t.Parallel()
	sv := loadSARIFSchema(t)
	tests := []struct {
		name  string
		args  []string
		stdin []byte
	}{
		{"problems", []string{badPackage, warnPackage}, nil},
		{"clean", []string{cleanPackage}, nil},
		{"image-level diagnostic", []string{"-"}, twoBaseLayersXpkg(t)},
		{"unreadable source", []string{cleanPackage, "testdata/no-such-package"}, nil},
		{"overrides", []string{"--disable", "XP206,XP205", "--severity", "XP103=error", "--severity", "XP201=info", badPackage, warnPackage}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, tt.stdin, append([]string{"-o", "sarif"}, tt.args...)...)
			if r.stdout == "" {
				t.Fatalf("no output; stderr %s", r.stderr)
			}
			errs, err := sv.validate([]byte(r.stdout))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range errs {
				t.Errorf("SARIF output violates the schema: %s", e)
			}
		})
	}
	// The golden file too.
	golden, err := os.ReadFile("testdata/sarif.golden")
	if err != nil {
		t.Fatal(err)
	}
	if errs, err := sv.validate(golden); err != nil || len(errs) > 0 {
		t.Errorf("sarif.golden violates the schema: %v %v", err, errs)
	}
}

// TestSchemaValidator checks that the validator rejects what it must, so
// that a broken validator cannot pass the SARIF output silently.
func TestSchemaValidator(t *testing.T) {
	t.Parallel()
	sv := loadSARIFSchema(t)
	valid := `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","rules":[{"id":"R1","defaultConfiguration":{"level":"error"}}]}},` +
		`"results":[{"ruleId":"R1","level":"error","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a/b.yaml"},"region":{"startLine":1,"startColumn":2}}}]}]}]}`
	tests := []struct {
		name string
		// edit turns the valid log into the document to validate.
		edit func(log map[string]any)
		// want is a fragment of the violation expected; empty for valid.
		want string
	}{
		{"valid", func(map[string]any) {}, ""},
		{"runs may be null", func(l map[string]any) { l["runs"] = nil }, ""},
		{"missing version", func(l map[string]any) { delete(l, "version") }, `required property "version"`},
		{"wrong version", func(l map[string]any) { l["version"] = "2.0.0" }, "enum"},
		{"unknown top-level property", func(l map[string]any) { l["extra"] = true }, `property "extra" is not allowed`},
		{"runs not an array", func(l map[string]any) { l["runs"] = "x" }, "type string, want array or null"},
		{"tool missing", func(l map[string]any) { delete(logRun(l), "tool") }, `required property "tool"`},
		{"driver without name", func(l map[string]any) { delete(logDriver(l), "name") }, `required property "name"`},
		{"bad level", func(l map[string]any) { logResult(l)["level"] = "fatal" }, "enum"},
		{"message without text or id", func(l map[string]any) { logResult(l)["message"] = map[string]any{"markdown": "m"} }, "anyOf"},
		{"line 0", func(l map[string]any) { logRegion(l)["startLine"] = 0 }, "below the minimum 1"},
		{"column not an integer", func(l map[string]any) { logRegion(l)["startColumn"] = 1.5 }, "want integer"},
		{"ruleIndex below -1", func(l map[string]any) { logResult(l)["ruleIndex"] = -2 }, "below the minimum -1"},
		{"uri with a space", func(l map[string]any) { logArtifact(l)["uri"] = "a b.yaml" }, "uri-reference"},
		{"helpUri not absolute", func(l map[string]any) { logRule(l)["helpUri"] = "rules/R1" }, "not a valid uri"},
		{"rules not unique", func(l map[string]any) {
			rs := logDriver(l)["rules"].([]any)
			logDriver(l)["rules"] = append(rs, rs[0])
		}, "want unique items"},
		{"guid pattern", func(l map[string]any) { logResult(l)["guid"] = "not-a-guid" }, "does not match the pattern"},
		{"date-time", func(l map[string]any) {
			logRun(l)["invocations"] = []any{map[string]any{"executionSuccessful": true, "startTimeUtc": "yesterday"}}
		}, "date-time"},
		{"invocation without executionSuccessful", func(l map[string]any) {
			logRun(l)["invocations"] = []any{map[string]any{}}
		}, `required property "executionSuccessful"`},
		{"graphTraversal oneOf", func(l map[string]any) {
			logResult(l)["graphTraversals"] = []any{map[string]any{"runGraphIndex": 0, "resultGraphIndex": 0}}
		}, "oneOf: 2 schemas match"},
		{"propertyBag allows anything", func(l map[string]any) { logResult(l)["properties"] = map[string]any{"x": 1} }, ""},
		{"propertyBag tags must be strings", func(l map[string]any) { logResult(l)["properties"] = map[string]any{"tags": []any{1}} }, "want string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var log map[string]any
			if err := json.Unmarshal([]byte(valid), &log); err != nil {
				t.Fatal(err)
			}
			tt.edit(log)
			doc, err := json.Marshal(log)
			if err != nil {
				t.Fatal(err)
			}
			errs, err := sv.validate(doc)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if len(errs) > 0 {
					t.Errorf("valid document rejected: %v", errs)
				}
				return
			}
			if !strings.Contains(strings.Join(errs, "\n"), tt.want) {
				t.Errorf("violations %q, want one containing %q", errs, tt.want)
			}
		})
	}
}

func TestSchemaValidatorRefusesUnknownKeywords(t *testing.T) {
	t.Parallel()
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"contains":{"type":"string"}}}}`,
		`{"$ref":"#/definitions/missing"}`,
		`{"pattern":"("}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#"}`,
		`{"type":"object"} trailing`,
	} {
		if _, err := newSchemaValidator([]byte(schema)); err == nil {
			t.Errorf("newSchemaValidator(%s): no error", schema)
		}
	}
}

func logRun(l map[string]any) map[string]any { return l["runs"].([]any)[0].(map[string]any) }

func logDriver(l map[string]any) map[string]any {
	return logRun(l)["tool"].(map[string]any)["driver"].(map[string]any)
}

func logRule(l map[string]any) map[string]any {
	return logDriver(l)["rules"].([]any)[0].(map[string]any)
}

func logResult(l map[string]any) map[string]any {
	return logRun(l)["results"].([]any)[0].(map[string]any)
}

func logPhysical(l map[string]any) map[string]any {
	return logResult(l)["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
}

func logRegion(l map[string]any) map[string]any { return logPhysical(l)["region"].(map[string]any) }

func logArtifact(l map[string]any) map[string]any {
	return logPhysical(l)["artifactLocation"].(map[string]any)
}
