package hostile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// ForgedFile is the file that the text cases' forged diagnostic lines name
// ("forged.yaml:1:1: error XP100 forged: …") and that no real finding
// names: a line of output that starts with it was forged.
const ForgedFile = "forged.yaml"

// forgedText, in a YAML double-quoted scalar, is a value that would drive
// a terminal and forge output lines if printed raw: it retitles the window
// (OSC 0), clears the screen, returns the carriage, reverses the text's
// direction, and starts a line of its own with a diagnostic in the text
// format and one in GitHub's workflow commands, each naming ForgedFile.
const forgedText = `\e]0;pwned\a\e[2J\r\u202e\x85\nforged.yaml:1:1: error XP100 forged: the package is fine\n::error file=forged.yaml,line=1::forged\n`

// forgedMessage is forgedText for a CEL rule's message, which the API
// server refuses when it holds a line feed or a carriage return (its
// newlineMatcher): the escapes erase the line and move the cursor back to
// its start instead, so that a terminal shows the forged diagnostic as a
// line of its own, and a NEL (U+0085) and a line separator (U+2028) end a
// line where a viewer takes them as line ends.
const forgedMessage = `\e]0;pwned\a\e[2K\e[1G\u202e\x85forged.yaml:1:1: error XP100 forged: the package is fine\u2028::error file=forged.yaml,line=1::forged`

// textCases attack the one escaping point of every text a user sees
// (internal/safetext, used by the text and GitHub formats and the
// checker's standard error): each puts terminal escapes and a forged
// diagnostic line in a value that a message quotes. Through the CLI, every
// line of the text output must be a source's header, a diagnostic, a blank
// line or the summary, and no output may hold a control character but a
// newline (TestHostileCLI checks every case so). Each package draws XP401
// (its CRD's name is not plural.group), an error with or without the API
// server's validation, so the outcome is a lint error.
func textCases() []Case {
	lintErr := rule(ClassLintError, "XP401")
	return []Case{
		{
			Name: "text-cel-message-escapes",
			Description: "A CRD's CEL rules whose message, and whose messageExpression, hold terminal escapes and a forged diagnostic line, " +
				"and an example that breaks both rules: XP408 quotes the messages (issue 30, class 9).",
			Kind:   KindPackageDir,
			Expect: lintErr,
			Size:   2 << 10,
			Write: celDir("text-cel-message-escapes", func() string {
				props := "              num: {type: integer}\n"
				rules := "            - rule: self.num != 1\n              message: \"n" + forgedMessage + "\"\n" +
					"            - rule: self.num != 1\n              messageExpression: \"'m\\\\x1b[2J\\\\x1b[1G\\\\u2028forged.yaml:1:1: error XP100 forged: x'\"\n"
				return celCRD(props, rules)
			}, func() string { return things(1, func(int) string { return "  num: 1\n" }) }),
		},
		{
			Name: "text-example-value-escapes",
			Description: "Example values that hold terminal escapes and a forged diagnostic line, where the schema refuses them " +
				"(an enum, a pattern, a maximum length): XP408 quotes the values in the API server's messages (issue 30, class 9).",
			Kind:   KindPackageDir,
			Expect: lintErr,
			Size:   2 << 10,
			Write: celDir("text-example-value-escapes", func() string {
				props := "              e: {type: string, enum: [a, b]}\n" +
					"              p: {type: string, pattern: '^[a-z]+$'}\n" +
					"              l: {type: string, maxLength: 3}\n" +
					"              \"k" + forgedText + "\": {type: string}\n"
				return celCRD(props, "            - rule: \"true\"\n")
			}, func() string {
				return things(1, func(int) string {
					return "  e: \"e" + forgedText + "\"\n  p: \"p" + forgedText + "\"\n  l: \"l" + forgedText + "\"\n  \"u" + forgedText + "\": 1\n"
				})
			}),
		},
		{
			Name: "text-file-name-escapes",
			Description: "A package directory whose CRD file's name holds terminal escapes and a forged diagnostic line: every diagnostic " +
				"in that file names it (issue 30, class 9). Not written on Windows, whose file names cannot hold them.",
			Kind:   KindPackageDir,
			Expect: lintErr,
			Size:   2 << 10,
			Write: func(ctx context.Context, dir string) (string, error) {
				if runtime.GOOS == "windows" {
					return "", errors.ErrUnsupported
				}
				out, err := caseOutput(dir, "text-file-name-escapes", KindPackageDir)
				if err != nil {
					return "", err
				}
				if err := os.MkdirAll(out, 0o755); err != nil {
					return "", err
				}
				name := "crd\x1b]0;pwned\a\x1b[2J\r\u202e\nforged.yaml:1:1: error XP100 forged: x.yaml"
				for file, content := range map[string]string{
					"crossplane.yaml": celProvider,
					name:              celCRD("              num: {type: integer}\n", "            - rule: \"true\"\n"),
				} {
					if err := ctx.Err(); err != nil {
						return "", err
					}
					if err := os.WriteFile(filepath.Join(out, file), []byte(content), 0o644); err != nil {
						return "", err
					}
				}
				return out, nil
			},
		},
	}
}
