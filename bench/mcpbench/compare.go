package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent3md/agent3md/mcpclient"
)

// The comparison mode (-compare, implied by -ref) drives agent3md and,
// when -ref names it, a reference MCP server through the same client and
// reports each per-request figure side by side: ours, the reference's, and
// their ratio.

// contender is one server under comparison.
type contender struct {
	label string
	// argv returns the command line serving agent with cacheDir as its
	// index cache (a contender without a cache ignores it).
	argv func(agent, cacheDir string) []string
	// prebuild, when set, fills a warm cache before the serving runs.
	prebuild func(cacheDir, agent string, timeout time.Duration) error
	// env is added to the environment it runs in.
	env []string
	// noCold leaves it out of the cold-start rows: it has no index to
	// build (the replay floor).
	noCold bool
	// replay, set for the replay floor, maps an agent's path to the
	// answers ours recorded for it, which compareSize fills.
	replay map[string]string
}

// ours is agent3md itself.
func ours(bin string) contender {
	return contender{
		label: "ours",
		argv: func(agent, cacheDir string) []string {
			return []string{bin, "mcp", "--cache-dir", cacheDir, agent}
		},
		prebuild: func(cacheDir, agent string, timeout time.Duration) error {
			return buildCache(bin, cacheDir, agent, timeout)
		},
	}
}

// other is a second agent3md binary (-ab), measured exactly as ours is,
// in the reference's column: an A/B comparison of two builds.
func other(bin string) contender {
	c := ours(bin)
	c.label = "reference"
	return c
}

// reference is the server that -ref names: its words, then the agent file
// (e.g. "bun /work/ref/src/mcp.ts" runs "bun /work/ref/src/mcp.ts FILE").
func reference(cmd string) contender {
	words := strings.Fields(cmd)
	return contender{
		label: "reference",
		argv: func(agent, _ string) []string {
			return append(append([]string(nil), words...), agent)
		},
	}
}

// metric is one row of the comparison: a name, a unit and how the value
// is shown.
type metric struct {
	key, label, unit, format string
}

// requestKinds are the requests timed one kind at a time, pipelined.
var requestKinds = []string{"ping", "tools/list", "list_skills", "get_skill", "get_skill_again", "resolve_skill", "route_skill"}

// againPool is how many skills get_skill_again cycles through: an agent
// in a session re-reads the few skills it works with, so after the
// untimed warm-up every read is a repeat.
const againPool = 8

// compareMetrics are the rows of the comparison, in table order.
var compareMetrics = []metric{
	{"init", "spawn → initialize", "ms", "%.1f"},
	{"ping", "ping", "µs", "%.1f"},
	{"tools/list", "tools/list", "µs", "%.1f"},
	{"list_skills", "list_skills", "µs", "%.1f"},
	{"get_skill", "get_skill", "µs", "%.1f"},
	{"get_skill_again", "get_skill, same 8 skills", "µs", "%.1f"},
	{"resolve_skill", "resolve_skill", "µs", "%.1f"},
	{"route_skill", "route_skill (trigger hits)", "µs", "%.1f"},
	{"coldRoute", "spawn → first route, cold", "ms", "%.1f"},
	{"rss", "peak RSS, all requests", "MB", "%.1f"},
	{"coldRSS", "peak RSS, cold first route", "MB", "%.1f"},
}

// cmpResult holds the samples of one agent size for every contender.
type cmpResult struct {
	Size    int            `json:"size"`
	Samples samples        `json:"samples"`
	Misses  map[string]int `json:"noSkillMatched,omitempty"`
	Errors  []string       `json:"errors,omitempty"`
}

// samples are every contender's samples: contender label → metric key →
// samples.
type samples map[string]map[string][]float64

func (s samples) add(who, key string, v float64) {
	if s[who] == nil {
		s[who] = map[string][]float64{}
	}
	s[who][key] = append(s[who][key], v)
}

// cmpProbe is what the comparison of one agent size needs.
type cmpProbe struct {
	agent    string
	size     int
	timeout  time.Duration
	exitWait time.Duration
	kinds    []string      // request kinds timed in each serving session; none: no session
	requests int           // most requests in one timed burst
	budget   time.Duration // aimed length of one timed burst
	// settle is how long a serving session waits, after its handshake
	// and one untimed route, before it times anything (options.settle).
	settle time.Duration
	words  words
}

// compareSize measures every contender on an agent of n skills, o.runs
// times, alternating contenders within each run (and which goes first)
// so that drift in the machine's load hits both alike. A contender that fails a kind of
// measurement is not asked for it again.
func compareSize(o *options, w words, who []contender, n int, tmp string, log io.Writer) *cmpResult {
	r := &cmpResult{Size: n, Samples: samples{}, Misses: map[string]int{}}
	path, _, err := ensureAgent(o.gen, o.dir, n)
	if err != nil {
		r.Errors = append(r.Errors, "generating the agent: "+err.Error())
		return r
	}
	timeout := o.timeout
	if timeout == 0 {
		timeout = 30*time.Second + time.Duration(n)*2*time.Millisecond
	}
	p := &cmpProbe{agent: path, size: n, timeout: timeout, exitWait: o.exitWait, kinds: o.kinds,
		requests: o.requests, budget: o.burst, settle: o.settle, words: w.forSize(n)}
	failed := map[string]bool{}
	fail := func(c contender, what string, err error) {
		failed[c.label+what] = true
		r.Errors = append(r.Errors, fmt.Sprintf("%s, %s: %v", c.label, what, err))
	}
	warm := make([]string, len(who))
	for i, c := range who {
		warm[i] = filepath.Join(tmp, fmt.Sprintf("cmp-warm-%d-%d", n, i))
		if c.prebuild != nil && len(o.kinds) > 0 {
			fmt.Fprintf(log, "size %d: building the warm cache of %s\n", n, c.label)
			if err := c.prebuild(warm[i], path, timeout); err != nil {
				fail(c, "serving", err)
			}
		}
	}
	for _, c := range who {
		if c.replay == nil || len(p.kinds) == 0 {
			continue
		}
		file := filepath.Join(tmp, fmt.Sprintf("floor-answers-%d.json", n))
		fmt.Fprintf(log, "size %d: recording the answers of %s for the floor\n", n, who[0].label)
		if err := p.recordAnswers(who[0], warm[0], file); err != nil {
			fail(c, "serving", fmt.Errorf("recording %s's answers: %w", who[0].label, err))
			continue
		}
		c.replay[path] = file
	}
	for run := 0; run < o.runs; run++ {
		fmt.Fprintf(log, "size %d: comparison run %d/%d\n", n, run+1, o.runs)
		// Who goes first alternates from run to run, so that whatever
		// favours a position (the page cache, the load) favours neither.
		for k := range who {
			i := (k + run) % len(who)
			c := who[i]
			if !c.noCold && !failed[c.label+"cold"] && run < o.coldRuns {
				cold := filepath.Join(tmp, fmt.Sprintf("cmp-cold-%d-%d-%d", n, i, run)) // fresh and empty
				ms, rss, err := p.coldRoute(c, cold, run)
				os.RemoveAll(cold)
				if err != nil {
					fail(c, "cold", err)
				} else {
					r.Samples.add(c.label, "coldRoute", ms)
					r.Samples.add(c.label, "coldRSS", rss)
				}
			}
			if !failed[c.label+"serving"] && len(p.kinds) > 0 {
				if err := p.session(c, warm[i], run, r); err != nil {
					fail(c, "serving", err)
				}
			}
		}
	}
	return r
}

// coldRoute measures spawn → first route_skill answer against an empty
// cache: initialize, notifications/initialized and the call go out
// together, as a pipelining client sends them.
func (p *cmpProbe) coldRoute(c contender, cacheDir string, k int) (msec, rssMB float64, err error) {
	argv := c.argv(p.agent, cacheDir)
	s, err := startServerEnv(argv[0], argv[1:], c.env, p.timeout)
	if err != nil {
		return 0, 0, err
	}
	defer s.kill()
	elapsed, err := spawnRoute(s, p.words.text(k))
	if err != nil {
		return 0, 0, err
	}
	rss, err := s.finish(p.exitWait)
	return ms(elapsed), rss, err
}

// spawnRoute sends initialize, notifications/initialized and a route_skill
// of text to a freshly started server in one write, as a pipelining client
// does, and returns the time from spawn to the route's answer.
func spawnRoute(s *server, text string) (time.Duration, error) {
	ps, err := s.start(initializeRequest(), initializedNotification(), routeRequest(text))
	if err != nil {
		return 0, err
	}
	pr := &probe{pipeline: true}
	if err := pr.awaitRoute(s, ps[0], ps[2]); err != nil {
		return 0, err
	}
	return ps[2].Timing().Answered.Sub(s.started()), nil
}

// session spawns c once, times the handshake, then each request kind in
// turn as a pipelined burst, and records the peak RSS after stdin closes.
func (p *cmpProbe) session(c contender, cacheDir string, run int, r *cmpResult) error {
	argv := c.argv(p.agent, cacheDir)
	s, err := startServerEnv(argv[0], argv[1:], c.env, p.timeout)
	if err != nil {
		return err
	}
	defer s.kill()
	init, err := s.start(initializeRequest())
	if err != nil {
		return err
	}
	if _, err := s.result(init[0]); err != nil {
		return err
	}
	r.Samples.add(c.label, "init", ms(init[0].Timing().Answered.Sub(s.started())))
	if _, err := s.start(initializedNotification()); err != nil {
		return err
	}
	if p.settle > 0 {
		// One route, then a pause: whatever a server does once after its
		// first route or in its first moments (a warm agent3md builds its
		// term statistics then) is over before the first timed burst, and
		// is not charged to whichever kind happens to be timed first.
		if _, err := s.call(routeRequest(p.words.text(0))); err != nil {
			return err
		}
		time.Sleep(p.settle)
	}
	for _, kind := range p.kinds {
		perReq, misses, err := p.timeKind(s, kind, run)
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		r.Samples.add(c.label, kind, perReq)
		r.Misses[c.label] += misses
	}
	rss, err := s.finish(p.exitWait)
	if err != nil {
		return err
	}
	r.Samples.add(c.label, "rss", rss)
	return nil
}

// warmupRequests is the untimed burst before each timed one: it lets a JIT
// compile the path and sizes the timed burst.
const warmupRequests = 50

// timeKind sends an untimed warm-up burst of kind, then a timed one sized
// to last about p.budget (between warmupRequests and p.requests requests),
// and returns the time per request in µs and how many route answers
// matched no skill.
func (p *cmpProbe) timeKind(s *server, kind string, run int) (float64, int, error) {
	misses := 0
	check := func(res json.RawMessage) error {
		text, err := toolText(res)
		if kind == "route_skill" && text == "no skill matched" {
			misses++
		}
		return err
	}
	if kind == "ping" || kind == "tools/list" {
		check = func(json.RawMessage) error { return nil }
	}
	warm, err := p.burst(s, kind, run*p.requests, warmupRequests, check)
	if err != nil {
		return 0, 0, err
	}
	per := warm / warmupRequests
	count := p.requests
	if per > 0 {
		count = int(min(int64(p.requests), max(int64(warmupRequests), int64(p.budget/per))))
	}
	misses = 0
	d, err := p.burst(s, kind, run*p.requests+warmupRequests, count, check)
	if err != nil {
		return 0, 0, err
	}
	return float64(d) / float64(count) / float64(time.Microsecond), misses, nil
}

// burst writes count requests of kind at once and returns first write →
// last answer line, from the requests' timings. The answers are decoded
// and checked after the clock stops: this client's JSON decoding costs
// more per answer than a small answer costs the server (a few KB take tens
// of µs to decode), so timing it would measure the client and pull every
// ratio towards 1. Every answer is still checked before the figure counts.
func (p *cmpProbe) burst(s *server, kind string, k0, count int, check func(json.RawMessage) error) (time.Duration, error) {
	reqs := make([]mcpclient.Request, count)
	for i := range reqs {
		reqs[i] = p.request(kind, k0+i)
	}
	ps, err := s.start(reqs...)
	if err != nil {
		return 0, err
	}
	if err := s.waitAll(ps); err != nil {
		return 0, err
	}
	elapsed := mcpclient.Span(ps)
	for _, pd := range ps {
		res, err := s.result(pd)
		if err == nil {
			err = check(res)
		}
		if err != nil {
			return 0, err
		}
	}
	return elapsed, nil
}

// request builds the k-th request of kind.
func (p *cmpProbe) request(kind string, k int) mcpclient.Request {
	switch kind {
	case "ping", "tools/list":
		return request(kind, nil)
	case "route_skill":
		return routeRequest(p.words.text(k))
	}
	args := map[string]any{}
	switch kind {
	case "list_skills":
	case "get_skill_again":
		kind, args["name"] = "get_skill", p.words.skillName(k%againPool, p.size)
	default:
		args["name"] = p.words.skillName(k, p.size)
	}
	return request("tools/call", map[string]any{"name": kind, "arguments": args})
}

// toolText returns the text of a tools/call result; a tool error result
// is an error.
func toolText(raw json.RawMessage) (string, error) {
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", fmt.Errorf("result is not a tool result: %v", err)
	}
	text := ""
	if len(res.Content) > 0 {
		text = res.Content[0].Text
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %.300s", text)
	}
	return text, nil
}
