package skillsync

import (
	"log/slog"
	"net/http"
	"time"
)

// Limits bound what one sync takes from a server (docs/sync.md §5). Zero
// fields take their defaults.
type Limits struct {
	// MaxFileBytes bounds one file (default DefaultMaxFileBytes).
	MaxFileBytes int64
	// MaxSkillBytes bounds one skill's files together (default
	// DefaultMaxSkillBytes, the skills extension's limit).
	MaxSkillBytes int64
	// MaxSkillFiles bounds one skill's files (default
	// DefaultMaxSkillFiles, the skills extension's limit).
	MaxSkillFiles int
	// MaxSkills bounds the skills listed (default DefaultMaxSkills).
	MaxSkills int
	// MaxTotalBytes bounds the bytes of the files one sync reads
	// (default DefaultMaxTotalBytes).
	MaxTotalBytes int64
	// MaxPages bounds the listing pages one pass reads, skills/list,
	// resources/list and resources/directory/read together (default
	// DefaultMaxPages).
	MaxPages int
	// MaxCursorBytes bounds one cursor a listing page gives (default
	// DefaultMaxCursorBytes).
	MaxCursorBytes int
	// MaxListingBytes bounds the bytes of listing entries one pass takes:
	// URIs, frontmatter, file lists, counted as the pages give them
	// (default DefaultMaxListingBytes).
	MaxListingBytes int64
	// MaxFrontmatterBytes bounds one skill's frontmatter as skills/list
	// gives it (default DefaultMaxFrontmatterBytes); a skill over it is
	// refused.
	MaxFrontmatterBytes int
}

// Defaults of Limits.
const (
	DefaultMaxFileBytes  = 16 << 20
	DefaultMaxSkillBytes = 16 << 20
	DefaultMaxSkillFiles = 512
	DefaultMaxSkills     = 10_000
	DefaultMaxTotalBytes = 1 << 30
	// DefaultMaxPages: 10,000 skills on pages of one, and a few folders
	// each for those listed as "dynamic".
	DefaultMaxPages = 100_000
	// DefaultMaxCursorBytes: a cursor names a place in a listing; ours
	// are a few dozen bytes, and encoded state rarely passes a few KiB.
	DefaultMaxCursorBytes = 16 << 10
	// DefaultMaxListingBytes: 10,000 skills with a kilobyte of
	// frontmatter and a dozen files each are about 25 MiB.
	DefaultMaxListingBytes = 128 << 20
	// DefaultMaxFrontmatterBytes: a name of at most 64 characters, a
	// description of at most 1,024 and some metadata.
	DefaultMaxFrontmatterBytes = 64 << 10
)

func (l *Limits) withDefaults() Limits {
	out := Limits{}
	if l != nil {
		out = *l
	}
	if out.MaxFileBytes <= 0 {
		out.MaxFileBytes = DefaultMaxFileBytes
	}
	if out.MaxSkillBytes <= 0 {
		out.MaxSkillBytes = DefaultMaxSkillBytes
	}
	if out.MaxSkillFiles <= 0 {
		out.MaxSkillFiles = DefaultMaxSkillFiles
	}
	if out.MaxSkills <= 0 {
		out.MaxSkills = DefaultMaxSkills
	}
	if out.MaxTotalBytes <= 0 {
		out.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if out.MaxPages <= 0 {
		out.MaxPages = DefaultMaxPages
	}
	if out.MaxCursorBytes <= 0 {
		out.MaxCursorBytes = DefaultMaxCursorBytes
	}
	if out.MaxListingBytes <= 0 {
		out.MaxListingBytes = DefaultMaxListingBytes
	}
	if out.MaxFrontmatterBytes <= 0 {
		out.MaxFrontmatterBytes = DefaultMaxFrontmatterBytes
	}
	return out
}

// Source is where the skills come from: a Streamable HTTP endpoint (URL)
// or a stdio server command (Command). Exactly one is set.
type Source struct {
	// URL is the endpoint, e.g. https://host/mcp/team.
	URL string
	// Token, when set, is sent as a bearer token over HTTP.
	Token string
	// HTTPClient sends the requests (default: one of its own). Give one
	// that trusts a private CA for a test or company certificate.
	HTTPClient *http.Client
	// Command is the server's argv; Dir its working directory.
	Command []string
	Dir     string
}

// Options configures a sync.
type Options struct {
	// Dir is the skills folder written (e.g. ~/.claude/skills).
	Dir string
	// Force writes into skill folders this source did not write, and over
	// files changed there since it wrote them.
	Force bool
	// DryRun says what would happen and writes nothing.
	DryRun bool
	// Limits bound what is read; nil takes the defaults.
	Limits *Limits
	// Workers is how many requests are in flight at once while files are
	// read (default DefaultWorkers).
	Workers int
	// Timeout bounds each request (default DefaultTimeout).
	Timeout time.Duration
	// Logger receives what a watch does between passes (default: none).
	Logger *slog.Logger
}

// Defaults of Options.
const (
	DefaultWorkers = 16
	DefaultTimeout = time.Minute
)

func (o *Options) withDefaults() Options {
	out := Options{}
	if o != nil {
		out = *o
	}
	if out.Workers <= 0 {
		out.Workers = DefaultWorkers
	}
	if out.Timeout <= 0 {
		out.Timeout = DefaultTimeout
	}
	if out.Logger == nil {
		out.Logger = slog.New(slog.DiscardHandler)
	}
	return out
}
