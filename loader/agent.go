package loader

import (
	"context"
	"errors"

	"github.com/agent3md/agent3md/agentfile"
)

// ErrNotImplemented is temporary scaffolding while the package is built.
var ErrNotImplemented = errors.New("loader: not implemented yet")

// Options configures Open. A nil *Options means defaults.
type Options struct {
	// Parse bounds the scan (file name is set by Open).
	Parse agentfile.Options
}

// Agent is an agent file opened for serving: its body-less catalog plus the
// open file, from which bodies are read on demand. Safe for concurrent use.
type Agent struct {
	// implementation pending
}

// Manifest is the agent's body-less description.
type Manifest struct {
	Name     string      `json:"name"`
	Model    string      `json:"model"`
	Tools    []string    `json:"tools"`
	Persona  string      `json:"persona,omitempty"`
	Identity string      `json:"identity"` // the identity plane's body
	Skills   []SkillInfo `json:"skills"`
}

// SkillInfo is one skill in the body-less catalog.
type SkillInfo struct {
	Name        string            `json:"name"`
	Z           float64           `json:"z"`
	Description string            `json:"description"`
	Triggers    []string          `json:"triggers"`
	Inputs      []agentfile.Input `json:"inputs"`
	Tool        string            `json:"tool,omitempty"`
	Cost        string            `json:"cost,omitempty"`
	Deps        []string          `json:"deps"` // names of skills linked from the body, in body order
}

// Resolved is one skill of a resolve chain with its body.
type Resolved struct {
	Name string
	Z    float64
	Body string
}

// Fill is the result of filling a skill's command template.
type Fill struct {
	Skill string `json:"skill"`
	// Command is the template with every valued placeholder replaced by its
	// POSIX single-quoted value; "" when the skill has no tool.
	Command string `json:"command,omitempty"`
	HasTool bool   `json:"hasTool"`
	// Missing lists required inputs with no value, in declaration order.
	Missing []string `json:"missing"`
	// Invalid lists values that break their input's type (or hold a NUL).
	Invalid []InputProblem `json:"invalid"`
	// Unknown lists value names that are not declared inputs (sorted).
	Unknown []string `json:"unknown"`
	// Ready is true when there is a command and nothing is missing or invalid.
	Ready bool `json:"ready"`
}

// InputProblem says why one value cannot fill its input.
type InputProblem struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// UnknownSkillError is returned for a skill name or z the agent lacks.
type UnknownSkillError struct {
	Name    string
	Closest []string // up to three nearest names, best first
}

func (e *UnknownSkillError) Error() string { return "unknown skill: " + e.Name }

// Rendered is a skill rendered as an Agent Skills SKILL.md plus its
// references/<dep>.md supporting files.
type Rendered struct {
	Slug       string // the frontmatter name: a valid, unique Agent Skills name
	Text       []byte // the SKILL.md bytes
	SHA256     string // lowercase hex of Text
	References []Reference
}

// Reference is one supporting file of a rendered skill.
type Reference struct {
	Path   string // "references/<dep-slug>.md"
	Skill  string // the dependency's skill name
	Text   []byte
	SHA256 string
}

// Open scans the agent file at path and keeps it open for body reads.
func Open(path string, opts *Options) (*Agent, error) { return nil, ErrNotImplemented }

// Close releases the file. It is idempotent.
func (a *Agent) Close() error { return nil }

// Catalog returns the scanned catalog.
func (a *Agent) Catalog() *agentfile.Catalog { return nil }

// Info returns the agent3md/1 reading of the catalog.
func (a *Agent) Info() *agentfile.Agent { return nil }

// Path returns the file path the agent was opened from.
func (a *Agent) Path() string { return "" }

// Manifest returns the body-less manifest with the identity body.
func (a *Agent) Manifest(ctx context.Context) (*Manifest, error) { return nil, ErrNotImplemented }

// Skills returns the body-less skill catalog in source order.
func (a *Agent) Skills() []SkillInfo { return nil }

// Skill returns a skill by name.
func (a *Agent) Skill(name string) (*agentfile.Skill, error) { return nil, ErrNotImplemented }

// SkillByZ returns a skill by plane position.
func (a *Agent) SkillByZ(z float64) (*agentfile.Skill, error) { return nil, ErrNotImplemented }

// Body returns a skill's body, read from the file and verified.
func (a *Agent) Body(ctx context.Context, name string) (string, error) { return "", ErrNotImplemented }

// IdentityBody returns the identity plane's body.
func (a *Agent) IdentityBody(ctx context.Context) (string, error) { return "", ErrNotImplemented }

// Resolve returns the skill then its dependencies depth-first in body order.
func (a *Agent) Resolve(ctx context.Context, name string) ([]Resolved, error) {
	return nil, ErrNotImplemented
}

// Command fills the skill's command template with values.
func (a *Agent) Command(name string, values map[string]string) (*Fill, error) {
	return nil, ErrNotImplemented
}

// Closest returns up to n skill names nearest to name, best first.
func (a *Agent) Closest(name string, n int) []string { return nil }

// SkillMD renders a skill as an Agent Skills SKILL.md with its references.
func (a *Agent) SkillMD(ctx context.Context, name string) (*Rendered, error) {
	return nil, ErrNotImplemented
}
