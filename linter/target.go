package linter

// Target is the Crossplane release line a run of rules follows.
type Target struct {
	// Line is the release line, such as "v2.3": that of the version given
	// (WithCrossplaneVersion), else DefaultCrossplaneVersion.
	Line string
	// Note is set when the version given is outside the release lines the
	// linter knows: it says which line judges it instead.
	Note string
}
