package selftest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"
)

// Defaults for Options fields left zero.
const (
	// DefaultTimeout bounds each request.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxLineBytes is the size of the oversized-line probe: just
	// over the 4 MiB line bound servers are expected to enforce.
	DefaultMaxLineBytes = 4<<20 + 1<<10
	// DefaultMaxResponseBytes bounds one line read from the server.
	DefaultMaxResponseBytes = 128 << 20
	// DefaultSample is how many skills the per-skill checks visit: enough
	// to catch a systematic fault, few enough that a 100,000-skill agent
	// is checked in seconds.
	DefaultSample = 32
	// maxTimeouts is how many sessions may time out before the checks
	// that need one stop trying (so a hung server costs a few timeouts,
	// not one per check).
	maxTimeouts = 3
	// DefaultExitTimeout is how long a server may take to exit after its
	// stdin closes.
	DefaultExitTimeout = 5 * time.Second
)

// Options configures Run. Run does not modify it.
type Options struct {
	// Command is the server argv to spawn, e.g.
	// ["/path/agent3md", "mcp", "x.3md"]. Exactly one of Command and URL
	// is required.
	Command []string
	// URL is a Streamable HTTP endpoint to test instead of a command,
	// e.g. "https://skills.example/mcp" (docs/selftest.md §7): every
	// message is POSTed to it, the stdio-only checks are skipped and the
	// http/ checks run.
	URL string
	// Token, when set, is sent as "Authorization: Bearer <token>" on every
	// HTTP request; http/auth then checks that the server refuses a
	// request without it or with another one.
	Token string
	// HTTPClient sends the HTTP requests (default: a client of its own
	// with no overall timeout, since Timeout bounds each request). Give
	// one whose transport trusts a private CA to test an HTTPS server
	// with a test certificate.
	HTTPClient *http.Client
	// Timeout bounds each request, from writing it to reading its answer's
	// line (default DefaultTimeout). Huge agents need more: listing
	// 100,000 skills is an answer of about 85 MB.
	Timeout time.Duration
	// Expect, when set, returns the body a correct server must return from
	// get_skill for a skill; ok=false means "no expectation".
	Expect func(name string) (body string, ok bool)
	// ExpectResolve is Expect for resolve_skill's text.
	ExpectResolve func(name string) (text string, ok bool)
	// MaxLineBytes is the length of the line (over HTTP, the body) the
	// oversized-line probe sends (default DefaultMaxLineBytes). A server
	// whose bound is higher answers it as the ping it is, which passes
	// too: set it above the server's bound to see the bound enforced.
	MaxLineBytes int
	// MaxResponseBytes bounds one line read from the server, or one HTTP
	// answer or event (default DefaultMaxResponseBytes); a longer one
	// fails the check that received it.
	MaxResponseBytes int
	// Sample is how many skills the per-skill checks (route, get,
	// resolve, and the skill resource and skills extension checks) visit: all of them on a smaller agent, else that many
	// spread evenly over the catalog, the same ones on every run (default
	// DefaultSample). The check's detail says when a sample was taken.
	Sample int
	// ExitTimeout is how long the server may take to exit once its stdin
	// is closed (default DefaultExitTimeout; unused over HTTP).
	ExitTimeout time.Duration
}

// Check statuses.
const (
	StatusPass = "pass"
	StatusFail = "fail"
	StatusSkip = "skip"
)

// Check is the outcome of one check.
type Check struct {
	// Name identifies the check, e.g. "legacy/initialize" or
	// "probe/malformed-json"; names are stable across runs.
	Name string
	// Status is StatusPass, StatusFail or StatusSkip.
	Status string
	// Detail says what was found: why it failed or was skipped, or what
	// was covered.
	Detail string
	// Duration is how long the check took.
	Duration time.Duration
}

// Report is the outcome of a Run.
type Report struct {
	// Server is the command that was tested, shell-quoted, or the URL.
	Server string
	// Transport is how the server was reached: "stdio" (Command) or
	// "http" (URL); "" reads as stdio.
	Transport string
	// Checks are in the order they ran.
	Checks                  []Check
	Passed, Failed, Skipped int
}

// OK reports whether no check failed.
func (r *Report) OK() bool { return r.Failed == 0 }

// ErrNoCommand is returned by Run when Options has neither a Command nor
// a URL.
var ErrNoCommand = errors.New("selftest: no server given: set Options.Command to the server's argv (e.g. agent3md mcp agent.3md) or Options.URL to its HTTP endpoint")

// Report.Transport values.
const (
	transportStdio = "stdio"
	transportHTTP  = "http"
)

// Run spawns the server, or opens clients of Options.URL (several times:
// one legacy session, one for an older protocol revision, one for the
// stateless 2026-07-28 revision), and runs every check against it: the
// generic ones on any MCP server, the agent-3md contract checks when its
// tools mark it as an agent-3md server, the http/ ones over HTTP. It
// returns an error only when the options are unusable, the server cannot
// be started at all, or ctx ends; every misbehaviour of a running server
// (an unreachable URL included) is a failed check. Run is bounded: each
// request has a timeout and a server that stops answering is killed (its
// open HTTP requests cancelled).
func Run(ctx context.Context, opts *Options) (*Report, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	r := &runner{ctx: ctx, o: o, report: &Report{Server: redacted(o.URL), Transport: transportHTTP}}
	if o.URL == "" {
		if _, err := exec.LookPath(o.Command[0]); err != nil {
			return nil, fmt.Errorf("selftest: cannot run server %q: %w", o.Command[0], err)
		}
		r.report.Server, r.report.Transport = quoteArgv(o.Command), transportStdio
	} else {
		r.httpLog = &httpLog{}
	}
	defer r.endSession()
	stages := []func(){
		r.legacyChecks,
		r.toolChecks,
		r.errorChecks,
		r.probeChecks,
		r.exitCheck,
		r.olderVersionCheck,
		r.modernChecks,
		r.httpChecks,
	}
	for _, stage := range stages {
		if ctx.Err() != nil {
			break
		}
		stage()
	}
	r.report.tally()
	if err := ctx.Err(); err != nil {
		return r.report, fmt.Errorf("selftest: interrupted: %w", err)
	}
	return r.report, nil
}

// withDefaults copies opts with zero fields set to their defaults.
func (opts *Options) withDefaults() (*Options, error) {
	if opts == nil || (len(opts.Command) == 0 || opts.Command[0] == "") && opts.URL == "" {
		return nil, ErrNoCommand
	}
	o := *opts
	o.Command = append([]string(nil), opts.Command...)
	if o.URL != "" {
		if len(o.Command) > 0 {
			return nil, fmt.Errorf("selftest: both a server command (%s) and a URL (%s) given; test one at a time", quoteArgv(o.Command), o.URL)
		}
		if err := checkURL(o.URL); err != nil {
			return nil, err
		}
		if o.HTTPClient == nil {
			o.HTTPClient = &http.Client{}
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.Sample <= 0 {
		o.Sample = DefaultSample
	}
	if o.ExitTimeout <= 0 {
		o.ExitTimeout = DefaultExitTimeout
	}
	return &o, nil
}

// tally counts the checks by status.
func (r *Report) tally() {
	r.Passed, r.Failed, r.Skipped = 0, 0, 0
	for _, c := range r.Checks {
		switch c.Status {
		case StatusPass:
			r.Passed++
		case StatusFail:
			r.Failed++
		default:
			r.Skipped++
		}
	}
}

// outcome is what a check function returns.
type outcome struct {
	status, detail string
}

func pass(format string, args ...any) outcome {
	return outcome{StatusPass, fmt.Sprintf(format, args...)}
}

func fail(format string, args ...any) outcome {
	return outcome{StatusFail, fmt.Sprintf(format, args...)}
}

func skip(format string, args ...any) outcome {
	return outcome{StatusSkip, fmt.Sprintf(format, args...)}
}

// runner holds the state shared by the checks of one Run. Not safe for
// concurrent use.
type runner struct {
	ctx    context.Context
	o      *Options
	report *Report

	sess     *conn  // the current legacy session, nil when none
	fatal    string // set when sessions are unusable; later checks fail fast
	timeouts int    // sessions lost to a request timeout

	initResult *initializeResult // from the first legacy session
	tools      map[string]toolDef
	toolOrder  []toolDef   // tools as listed
	agent3md   bool        // the tool list marks an agent-3md server
	skills     []skillInfo // the whole catalog
	skillsErr  string      // why the skill catalog is unavailable

	resources    []resourceInfo  // from resources/list, nil when not listed
	resourcesErr string          // why resources is nil
	resourceSet  map[string]bool // the URIs of resources, built on first use
	prompts      []promptInfo    // from prompts/list, nil when not listed
	promptsErr   string          // why prompts is nil
	templates    []templateInfo  // from resources/templates/list
	skillEntries []skillEntry    // from skills/list, nil when not listed
	entriesErr   string          // why skillEntries is nil

	httpLog       *httpLog // every POST of the run, nil over stdio
	modernOffered bool     // server/discover answered (for the http/ checks)
}

// overHTTP reports whether the run tests an HTTP endpoint.
func (r *runner) overHTTP() bool { return r.o.URL != "" }

// stdioOnly is the detail of a check skipped over HTTP.
func stdioOnly(what string) string {
	return "stdio only: " + what + "; this run is over HTTP"
}

// check runs fn as the check called name and records its outcome.
func (r *runner) check(name string, fn func() outcome) {
	if r.ctx.Err() != nil {
		return
	}
	start := time.Now()
	out := fn()
	r.report.Checks = append(r.report.Checks, Check{
		Name:     name,
		Status:   out.status,
		Detail:   out.detail,
		Duration: time.Since(start),
	})
}

// session returns a live, initialized legacy session, spawning a fresh one
// when the previous one died (so one crash fails one check, not all that
// follow). When a fresh server cannot be initialized, or sessions keep
// timing out, every later check that needs one fails fast with the reason.
func (r *runner) session() (*conn, error) {
	if r.sess != nil && r.sess.alive() {
		return r.sess, nil
	}
	if r.sess != nil && r.sess.timedOut {
		r.timeouts++
		if r.timeouts >= maxTimeouts && r.fatal == "" {
			r.fatal = fmt.Sprintf("the server stopped answering %d times (last: %v); not trying again", r.timeouts, r.sess.broken)
		}
	}
	r.endSession()
	if r.fatal != "" {
		return nil, errors.New(r.fatal)
	}
	c, _, err := r.spawnLegacy(latestLegacy)
	if err != nil {
		r.fatal = "no usable server session: " + err.Error()
		return nil, errors.New(r.fatal)
	}
	r.sess = c
	return c, nil
}

// endSession closes the current legacy session, if any.
func (r *runner) endSession() {
	if r.sess != nil {
		r.sess.Close()
		r.sess = nil
	}
}

// quoteArgv renders argv as a shell command line.
func quoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = shellQuoteIfNeeded(a)
	}
	return strings.Join(parts, " ")
}

// shellQuoteIfNeeded quotes a for a POSIX shell when it holds anything but
// plainly safe characters.
func shellQuoteIfNeeded(a string) string {
	if a != "" && strings.IndexFunc(a, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return a
	}
	return shellQuote(a)
}

// shellQuote is the POSIX single-quoted form of s; each embedded quote is
// closed, backslash-escaped and reopened.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// checkURL accepts an absolute http or https URL.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("selftest: server URL %q: %w", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("selftest: server URL %q: want an absolute http:// or https:// URL, e.g. https://host:8765/mcp", s)
	}
	return nil
}

// redacted is a URL with any password replaced by "xxxxx", for the
// report.
func redacted(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Redacted()
}
