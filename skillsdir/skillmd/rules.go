package skillmd

// Rule identifiers of the problems Parse reports (docs/skill-folders.md
// §3). The folder reader's findings use the same identifiers, and its
// rules table gives each one severity.
const (
	RuleFrontmatter   = "frontmatter"    // no frontmatter, unclosed, too large, bad YAML, not a mapping
	RuleYAMLAlias     = "yaml-alias"     // anchors, aliases and merge keys are refused
	RuleYAMLValue     = "yaml-value"     // a value JSON cannot carry (NaN, complex key, duplicate key, tag, too deep)
	RuleYAMLTimestamp = "yaml-timestamp" // hosts disagree on unquoted dates; kept as the string
	RuleYAMLBool      = "yaml-bool"      // hosts disagree on unquoted yes, no, on, off; kept as the string
)

// DefaultMaxBytes bounds a frontmatter's YAML when the caller sets no
// bound (skillsdir.Options.MaxFrontmatterBytes, ParseFrontmatter).
const DefaultMaxBytes = 64 << 10 // 64 KiB

// MaxDescription is the Agent Skills bound on a description, in
// characters: the reader warns past it, the renderer cuts at it.
const MaxDescription = 1024
