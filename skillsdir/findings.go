package skillsdir

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Severity of a Finding.
type Severity string

// Severities. An error breaks an Agent Skills rule; a warning is served
// anyway but worth fixing.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Rule identifiers of findings (docs/skill-folders.md §3). Rules
// marked "skips" make the skill broken: it is left out of the catalog.
const (
	RuleFrontmatter   = "frontmatter"     // skips: no frontmatter, unclosed, too large, bad YAML, not a mapping
	RuleYAMLAlias     = "yaml-alias"      // skips: anchors, aliases and merge keys are refused
	RuleYAMLValue     = "yaml-value"      // skips: a value JSON cannot carry (NaN, complex key, duplicate key, too deep)
	RuleYAMLTimestamp = "yaml-timestamp"  // warning: hosts disagree on unquoted dates; kept as the string
	RuleYAMLBool      = "yaml-bool"       // warning: hosts disagree on unquoted yes, no, on, off; kept as the string
	RuleSkillMD       = "skill-md"        // skips: SKILL.md unreadable, not a regular file or over MaxFileBytes
	RuleName          = "name"            // skips: missing, not a string, or outside the Agent Skills charset
	RuleNameMismatch  = "name-mismatch"   // skips: name differs from the folder's name
	RuleDescription   = "description"     // skips when missing or empty; error when over 1024 characters
	RuleCompatibility = "compatibility"   // error: not a string of 1-500 characters
	RuleLicense       = "license"         // error: not a string
	RuleMetadata      = "metadata"        // error: not a map of string to string
	RuleAllowedTools  = "allowed-tools"   // error: neither a string nor a list of strings
	RuleUnknownKey    = "unknown-key"     // warning: a top-level key the format does not define
	RuleInputs        = "inputs"          // error: metadata inputs with a type outside docs/format.md §9
	RuleTool          = "tool"            // error: the command uses an undeclared input, or tool and command disagree
	RuleFileTooLarge  = "file-too-large"  // warning: a file over MaxFileBytes, not listed
	RuleSpecialFile   = "special-file"    // warning: a device, FIFO, socket or directory symlink, not listed
	RuleSymlinkEscape = "symlink-escape"  // warning: a symlink resolving outside the skill, not listed
	RuleTooManyFiles  = "too-many-files"  // warning: over MaxFilesPerSkill, list cut
	RuleSkillTooLarge = "skill-too-large" // warning: files total over MaxSkillBytes
	RuleUnreadable    = "unreadable"      // warning: a directory or file that could not be read
	RuleNestedTooDeep = "nested-too-deep" // warning: a SKILL.md below MaxDepth, served as a file only
	RuleSkillMDCase   = "skill-md-case"   // error: a skill.md (or other casing) where SKILL.md is wanted: no skill
	RuleBrokenLink    = "broken-link"     // warning: a body link into the skill folder at a file it does not serve
	RuleFileName      = "file-name"       // warning: a file or folder whose name is not UTF-8, not listed
)

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
