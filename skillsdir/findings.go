package skillsdir

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agent3md/agent3md/skillsdir/skillmd"
)

// Severity of a Finding. It is the rule's, never the caller's: one table
// (rules, below) gives each rule one severity, which every command reads
// through the findings it is handed.
type Severity string

// Severities. An error breaks the skill: it is left out of the catalog,
// so no command serves or imports it and validate fails. A warning is
// served, imported and reported, and worth fixing.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Rule identifiers of findings (docs/skill-folders.md §3). Each has one
// severity, given by the rules table below.
const (
	RuleSkillMD            = "skill-md"            // SKILL.md unreadable, not a regular file or over MaxFileBytes
	RuleSkillMDCase        = "skill-md-case"       // a skill.md (or other casing) where SKILL.md is wanted: no skill
	RuleName               = "name"                // missing, not a string, or outside the Agent Skills charset
	RuleNameMismatch       = "name-mismatch"       // name differs from the folder's name
	RuleDescription        = "description"         // missing, blank or not a string
	RuleMetadataKey        = "metadata-key"        // metadata triggers, inputs, tool or command is not a string
	RuleInputs             = "inputs"              // metadata inputs with a type outside docs/format.md §9
	RuleTool               = "tool"                // the command uses an undeclared input, or tool and command disagree
	RuleNameClash          = "name-clash"          // two folders hold one skill name: the scan fails
	RuleTooManySkills      = "too-many-skills"     // over MaxSkills: the scan fails
	RuleDescriptionLength  = "description-length"  // description over 1,024 characters
	RuleDescriptionControl = "description-control" // description holds a control character
	RuleCompatibility      = "compatibility"       // not a string of 1-500 characters
	RuleLicense            = "license"             // not a string
	RuleMetadata           = "metadata"            // not a map of string to string (other than RuleMetadataKey's keys)
	RuleAllowedTools       = "allowed-tools"       // neither a string nor a list of strings
	RuleUnknownKey         = "unknown-key"         // a top-level key the format does not define
	RuleFileTooLarge       = "file-too-large"      // a file over MaxFileBytes, not listed
	RuleSpecialFile        = "special-file"        // a device, FIFO, socket or directory symlink, not listed
	RuleSymlinkEscape      = "symlink-escape"      // a symlink resolving outside the skill, not listed
	RuleFileName           = "file-name"           // a file or folder whose name is not UTF-8, not listed
	RuleTooManyFiles       = "too-many-files"      // over MaxFilesPerSkill, list cut
	RuleSkillTooLarge      = "skill-too-large"     // files total over MaxSkillBytes
	RuleUnreadable         = "unreadable"          // a directory or file that could not be read
	RuleNestedTooDeep      = "nested-too-deep"     // a SKILL.md below MaxDepth, served as a file only
	RuleBrokenLink         = "broken-link"         // a body link into the skill folder at a file it does not serve
)

// Rule identifiers of the frontmatter problems skillmd.Parse reports, one
// home for each: these are the same rules.
const (
	RuleFrontmatter   = skillmd.RuleFrontmatter   // no frontmatter, unclosed, too large, bad YAML, not a mapping
	RuleYAMLAlias     = skillmd.RuleYAMLAlias     // anchors, aliases and merge keys are refused
	RuleYAMLValue     = skillmd.RuleYAMLValue     // a value JSON cannot carry (NaN, complex key, duplicate key, tag, too deep)
	RuleYAMLTimestamp = skillmd.RuleYAMLTimestamp // hosts disagree on unquoted dates; kept as the string
	RuleYAMLBool      = skillmd.RuleYAMLBool      // hosts disagree on unquoted yes, no, on, off; kept as the string
)

// rules is the one table of severities (docs/skill-folders.md §3 gives
// each row's reason). A rule is an error when it breaks the skill: a host
// would refuse it or read it otherwise than we do (its name, its
// frontmatter), or we could not serve what its author wrote (its
// description, its command). Everything else is a warning: the skill is
// served as it is on disk, which is what a host reading the folder gets.
var rules = [...]struct {
	id  string
	sev Severity
}{
	{RuleSkillMD, SeverityError},
	{RuleSkillMDCase, SeverityError},
	{RuleFrontmatter, SeverityError},
	{RuleYAMLAlias, SeverityError},
	{RuleYAMLValue, SeverityError},
	{RuleName, SeverityError},
	{RuleNameMismatch, SeverityError},
	{RuleDescription, SeverityError},
	{RuleMetadataKey, SeverityError},
	{RuleInputs, SeverityError},
	{RuleTool, SeverityError},
	{RuleNameClash, SeverityError},
	{RuleTooManySkills, SeverityError},
	{RuleDescriptionLength, SeverityWarning},
	{RuleDescriptionControl, SeverityWarning},
	{RuleCompatibility, SeverityWarning},
	{RuleLicense, SeverityWarning},
	{RuleMetadata, SeverityWarning},
	{RuleAllowedTools, SeverityWarning},
	{RuleUnknownKey, SeverityWarning},
	{RuleYAMLTimestamp, SeverityWarning},
	{RuleYAMLBool, SeverityWarning},
	{RuleFileTooLarge, SeverityWarning},
	{RuleSpecialFile, SeverityWarning},
	{RuleSymlinkEscape, SeverityWarning},
	{RuleFileName, SeverityWarning},
	{RuleTooManyFiles, SeverityWarning},
	{RuleSkillTooLarge, SeverityWarning},
	{RuleUnreadable, SeverityWarning},
	{RuleNestedTooDeep, SeverityWarning},
	{RuleBrokenLink, SeverityWarning},
}

// Rules returns every rule identifier, errors first, in the order of
// docs/skill-folders.md §3.
func Rules() []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.id
	}
	return out
}

// SeverityOf returns rule's severity. A rule the table does not hold (a
// bug: every finding is made with a Rule constant) is an error, so the
// skill is left out rather than served on an unchecked rule.
func SeverityOf(rule string) Severity {
	for _, r := range rules {
		if r.id == rule {
			return r.sev
		}
	}
	return SeverityError
}

// newFinding makes a finding with its rule's severity.
func newFinding(rule, skill, path string, line int, msg string) Finding {
	return Finding{Skill: skill, Path: path, Line: line, Rule: rule, Severity: SeverityOf(rule), Msg: msg}
}

// Finding is one problem found in a skill folder.
type Finding struct {
	// Skill is the folder's name (the skill's intended name).
	Skill string `json:"skill"`
	// Path is the file the finding is about, as found under its root.
	Path string `json:"path"`
	// Line is 1-based; 0 when the finding is about the whole file.
	Line     int      `json:"line,omitempty"`
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Msg      string   `json:"message"`
}

// Breaks reports whether the finding leaves its skill out: its rule is
// an error (docs/skill-folders.md §3).
func (f Finding) Breaks() bool { return f.Severity == SeverityError }

// String renders "path:line: severity: message [rule]".
func (f Finding) String() string {
	loc := f.Path
	if f.Line > 0 {
		loc += ":" + strconv.Itoa(f.Line)
	}
	return fmt.Sprintf("%s: %s: %s [%s]", loc, f.Severity, f.Msg, f.Rule)
}

// Errors. Each is wrapped with the skill, file and limit concerned; test
// with errors.Is.
var (
	// ErrNotFound: no served skill has that name, or the skill lists no
	// such file.
	ErrNotFound = errors.New("not found")
	// ErrRefused: the path is not one a skill may serve (absolute, "..",
	// backslash, NUL, escaping symlink, not a regular file).
	ErrRefused = errors.New("refused")
	// ErrTooLarge: the file is over MaxFileBytes.
	ErrTooLarge = errors.New("file too large")
	// ErrChanged: the file kept changing while it was read.
	ErrChanged = errors.New("file changed while read")
	// ErrTooManySkills: the roots hold more than MaxSkills skills.
	ErrTooManySkills = errors.New("too many skills")
	// ErrNameClash: two folders hold a skill of the same name; the error is
	// a *ClashError.
	ErrNameClash = errors.New("skill name clash")
)

// ClashError reports two skill folders with the same name. Names must be
// unique across every root, since clients ask for skills by name.
type ClashError struct {
	Name          string
	First, Second string // the two SKILL.md paths
	// Others are the scan's further clashes, in name order, so one run
	// of validate can name them all.
	Others []*ClashError
}

func (e *ClashError) Error() string {
	msg := fmt.Sprintf("skill %q is defined twice: %s and %s; rename one folder and its frontmatter name, or serve only one of the folders", e.Name, e.First, e.Second)
	if n := len(e.Others); n > 0 {
		names := make([]string, 0, 3)
		for _, o := range e.Others[:min(n, 3)] {
			names = append(names, strconv.Quote(o.Name))
		}
		more := ""
		if n > 3 {
			more = ", …"
		}
		msg += fmt.Sprintf(" (and %d more names defined twice: %s%s)", n, strings.Join(names, ", "), more)
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrNameClash) hold.
func (e *ClashError) Unwrap() error { return ErrNameClash }
