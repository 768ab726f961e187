// Command mcpbench drives the agent3md binary over stdio the way an MCP
// client does, on synthetic agents of several sizes, and prints the median
// of several runs next to the targets it is held to (report.go).
//
// For each size it measures, in fresh server processes:
//
//   - spawn → the initialize answer (legacy 2025-11-25 handshake);
//   - spawn → the first route_skill answer, with initialize,
//     notifications/initialized and the call sent together, against an
//     empty cache directory (cold) and one pre-built with
//     `agent3md index --cache-dir` (warm);
//   - pipelined route_skill throughput;
//   - peak RSS after stdin closes, checking the server exits 0 promptly.
//
// Run it from the repository root:
//
//	go run ./bench/mcpbench -sizes 10,1000,4000 -runs 7
//	go run ./bench/mcpbench -bin ./agent3md -sizes 100000 -cold-runs 3 -json
//	go run ./bench/mcpbench -ref 'bun /work/ref/src/mcp.ts' -runs 5
//
// -compare times each request kind, pipelined, and -ref names a reference
// server (run as CMD FILE) to print ours, the reference's figure and the
// ratio side by side; -ab BIN puts a second agent3md build in that column
// instead, for A/B measurements of a change. See compare.go.
//
// -http benchmarks `agent3md serve` instead: throughput and p50/p99
// latency of route_skill, get_skill and resources/read with 1, 8 and 64
// concurrent keep-alive clients on loopback, and the server's RSS at 64
// clients, on a 4,000-skill agent unless -sizes says otherwise:
//
//	go run ./bench/mcpbench -http -runs 3
//
// See httpmode.go.
// -folder DIR and -folder-sizes N serve Agent Skills folders instead (a
// folder of one's own, generated ones of N skills) and -ref-folder names
// another folder server to measure beside ours: spawn → initialize, the
// SKILL.md read, peak RSS, and our first route cold and warm. See
// folder.go.
//
//	go run ./bench/mcpbench -folder /work/ext/anthropics-skills/skills \
//		-ref-folder 'node /work/ext/skilljack/dist/index.js' -runs 7
//	go run ./bench/mcpbench -folder-sizes 10000 -runs 5
//
// Agents are written by bench/gen-agent.py as DIR/agent-N.3md when missing.
// Every read from a server has a timeout; a hung or failing server is
// reported with the tail of its stderr, and the exit status is 1.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// options are the command-line flags.
type options struct {
	bin      string
	sizes    []int
	dir      string
	gen      string
	runs     int
	coldRuns int
	requests int
	timeout  time.Duration
	exitWait time.Duration
	pipeline bool
	json     bool
	compare  bool          // per-request comparison table instead of the bars
	ref      string        // reference server command; the agent file is appended
	ab       string        // a second agent3md binary, compared in the reference's place
	kinds    []string      // request kinds -compare times; empty: cold starts only
	burst    time.Duration // aimed length of one timed burst in -compare
	settle   time.Duration // in -compare, the pause after the handshake and one route

	http         bool          // the HTTP mode (httpmode.go) instead of stdio
	httpClients  []int         // concurrent keep-alive clients per cell
	httpDuration time.Duration // length of one cell

	// The folder mode (folder.go).
	folder      string // a skills folder to serve, e.g. anthropics/skills' skills/
	folderSizes []int  // generated skills folders to serve
	refFolder   string // reference folder server, run as CMD DIR
	folderSkill string // the skill of -folder whose SKILL.md is read
	folderRoute string // the route_skill request sent to -folder
	reads       int    // timed sequential reads per serving session
	floor       bool   // also measure the floor server (floor.go)
	skillsGen   string // the skills folder generator
}

func main() {
	if status, ok := runAsFloor(); ok {
		os.Exit(status)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its arguments and streams injected. It returns the exit
// status: 0 when every measurement completed, 1 when one failed, 2 on a
// usage or setup error.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "mcpbench:", err)
		return 2
	}
	tmp, err := os.MkdirTemp("", "mcpbench-*")
	if err != nil {
		fmt.Fprintln(stderr, "mcpbench: creating a temp dir:", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	if o.bin == "" {
		if o.bin, err = buildBinary(tmp); err != nil {
			fmt.Fprintln(stderr, "mcpbench:", err)
			return 2
		}
	}
	w, err := loadWords(o.gen)
	if err != nil {
		fmt.Fprintln(stderr, "mcpbench:", err)
		return 2
	}
	if o.folder != "" || len(o.folderSizes) > 0 {
		return runFolders(o, w, tmp, stdout, stderr)
	}
	if o.compare {
		return runCompare(o, w, tmp, stdout, stderr)
	}
	if o.http {
		return runHTTP(o, w, tmp, stdout, stderr)
	}
	var results []*sizeResult
	for _, n := range o.sizes {
		results = append(results, measureSize(o, w, n, tmp, stderr))
	}
	if o.json {
		err = writeJSON(stdout, results)
	} else {
		err = writeTable(stdout, o, results)
	}
	failed := false
	for _, r := range results {
		failed = failed || len(r.Errors) > 0
	}
	return reportStatus(err, failed, stderr)
}

// reportStatus is a mode's exit status once its report is written: 2 when
// writing failed, 1 when a measurement failed, else 0.
func reportStatus(err error, failed bool, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintln(stderr, "mcpbench: writing the report:", err)
		return 2
	}
	if failed {
		return 1
	}
	return 0
}

// parseFlags reads the flags; see the package comment.
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("mcpbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("sizes", "10,1000,4000,100000", "comma-separated skill counts of the synthetic agents")
	fs.StringVar(&o.bin, "bin", "", "agent3md binary to drive (default: go build ./cmd/agent3md into a temp dir)")
	fs.StringVar(&o.dir, "dir", "bench/out", "directory holding the generated agents (agent-N.3md)")
	fs.StringVar(&o.gen, "gen", "bench/gen-agent.py", "the agent generator")
	fs.IntVar(&o.runs, "runs", 7, "runs per size; the table shows medians")
	fs.IntVar(&o.coldRuns, "cold-runs", 0, "cold-cache route runs per size (default: -runs; a cold 100,000-skill start indexes for about a minute)")
	fs.IntVar(&o.requests, "requests", 2000, "pipelined route_skill requests per throughput run")
	fs.DurationVar(&o.timeout, "timeout", 0, "longest wait for any one server message (default: 30s + 2ms per skill)")
	fs.DurationVar(&o.exitWait, "exit-wait", 5*time.Second, "longest wait for the server to exit after stdin closes")
	fs.BoolVar(&o.pipeline, "pipeline", true, "send route_skill before the initialize answer arrives; false waits for it")
	fs.BoolVar(&o.json, "json", false, "print machine-readable JSON instead of a table")
	fs.BoolVar(&o.compare, "compare", false, "time each request kind, pipelined, and print ours / reference / ratio (sizes default to 10,1000,4000)")
	fs.StringVar(&o.ref, "ref", "", "reference server command, run as CMD FILE (e.g. 'bun /work/ref/src/mcp.ts'); implies -compare")
	fs.StringVar(&o.ab, "ab", "", "a second agent3md binary, measured as ours is in the reference's column (A/B of two builds); implies -compare")
	kinds := fs.String("kinds", "all", "in -compare, the request kinds to time ("+strings.Join(requestKinds, ",")+"), all, or none for cold starts only")
	fs.DurationVar(&o.burst, "burst", 300*time.Millisecond, "in -compare, aimed length of one timed burst of requests")
	fs.DurationVar(&o.settle, "settle", time.Second, "in -compare, how long each serving session waits after its handshake and one untimed route before timing anything, so one-time start-up work is not charged to a request kind (0: no wait)")
	fs.BoolVar(&o.http, "http", false, "benchmark agent3md serve over HTTP instead of stdio: route_skill, get_skill and resources/read with -http-clients keep-alive clients (sizes default to 4000)")
	clients := fs.String("http-clients", "1,8,64", "in -http, the concurrent client counts")
	fs.DurationVar(&o.httpDuration, "http-duration", 2*time.Second, "in -http, how long each kind × client count is timed")
	fs.StringVar(&o.folder, "folder", "", "serve this skills folder (docs/skill-folders.md) instead of agent files: spawn → initialize, SKILL.md reads, peak RSS, first route cold and warm")
	folderSizes := fs.String("folder-sizes", "", "also serve generated skills folders of these sizes (bench/gen-skills.py, kept as DIR/skills-N), e.g. 10000")
	fs.StringVar(&o.refFolder, "ref-folder", "", "reference folder server, run as CMD DIR (e.g. 'node /work/ext/skilljack/dist/index.js'); measured beside ours on every folder")
	fs.StringVar(&o.folderSkill, "folder-skill", "pdf", "the skill of -folder whose SKILL.md is read (resources/read skill://NAME)")
	fs.StringVar(&o.folderRoute, "folder-route", "extract the tables from a pdf file", "the route_skill request sent to -folder")
	fs.BoolVar(&o.floor, "floor", false, "also measure the floor: mcpbench itself as the least stdio server, answering from memory (in -compare, with the answers ours gave), which no server goes under")
	fs.IntVar(&o.reads, "reads", 200, "in the folder mode, timed sequential SKILL.md reads per serving session")
	fs.StringVar(&o.skillsGen, "skills-gen", "bench/gen-skills.py", "the skills folder generator")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.http && (o.compare || o.ref != "" || o.ab != "") {
		return nil, fmt.Errorf("-http measures one binary; leave out -compare, -ref and -ab")
	}
	for _, f := range strings.Split(*clients, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 1 || c > 4096 {
			return nil, fmt.Errorf("-http-clients: %q is not a client count from 1 to 4096; use e.g. -http-clients 1,8,64", f)
		}
		o.httpClients = append(o.httpClients, c)
	}
	if o.httpDuration <= 0 {
		return nil, fmt.Errorf("-http-duration must be positive, e.g. -http-duration 2s")
	}
	var err error
	if o.folderSizes, err = parseCounts("-folder-sizes", *folderSizes); err != nil {
		return nil, err
	}
	if o.refFolder != "" && o.folder == "" && len(o.folderSizes) == 0 {
		return nil, fmt.Errorf("-ref-folder needs a folder to serve: pass -folder DIR or -folder-sizes N")
	}
	if o.reads < 1 {
		return nil, fmt.Errorf("-reads must be at least 1")
	}
	if o.ref != "" && o.ab != "" {
		return nil, fmt.Errorf("-ref and -ab both fill the second column; pass one")
	}
	o.compare = o.compare || o.ref != "" || o.ab != ""
	sizesSet := false
	fs.Visit(func(f *flag.Flag) { sizesSet = sizesSet || f.Name == "sizes" })
	if o.compare && !sizesSet {
		*sizes = "10,1000,4000"
	}
	if o.http && !sizesSet {
		*sizes = "4000"
	}
	if o.kinds, err = parseKinds(*kinds); err != nil {
		return nil, err
	}
	if o.burst <= 0 {
		return nil, fmt.Errorf("-burst must be positive, e.g. -burst 300ms")
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q; every setting is a flag (see -h)", fs.Arg(0))
	}
	if o.sizes, err = parseCounts("-sizes", *sizes); err != nil {
		return nil, err
	}
	if o.runs < 1 || o.requests < 1 || o.coldRuns < 0 {
		return nil, fmt.Errorf("-runs and -requests must be at least 1, -cold-runs at least 0")
	}
	if o.coldRuns == 0 || o.coldRuns > o.runs {
		o.coldRuns = o.runs
	}
	return o, nil
}

// parseCounts reads a comma-separated list of skill counts; empty is none.
func parseCounts(flagName, s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: %q is not a positive skill count; use e.g. %s 10,1000,4000", flagName, f, flagName)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseKinds reads -kinds.
func parseKinds(s string) ([]string, error) {
	switch s = strings.TrimSpace(s); s {
	case "all":
		return requestKinds, nil
	case "none":
		return nil, nil
	}
	var out []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if !slices.Contains(requestKinds, k) {
			return nil, fmt.Errorf("-kinds: %q is not a request kind; use all, none, or some of %s", k, strings.Join(requestKinds, ","))
		}
		out = append(out, k)
	}
	return out, nil
}

// runCompare runs the comparison mode on every size and prints its table.
func runCompare(o *options, w words, tmp string, stdout, stderr io.Writer) int {
	who := []contender{ours(o.bin)}
	switch {
	case o.ref != "":
		who = append(who, reference(o.ref))
	case o.ab != "":
		who = append(who, other(o.ab))
	}
	if o.floor {
		f, err := replayFloor()
		if err != nil {
			fmt.Fprintln(stderr, "mcpbench:", err)
			return 2
		}
		who = append(who, f)
	}
	var results []*cmpResult
	for _, n := range o.sizes {
		results = append(results, compareSize(o, w, who, n, tmp, stderr))
	}
	var err error
	if o.json {
		err = writeCompareJSON(stdout, results)
	} else {
		err = writeCompare(stdout, o, results)
	}
	failed := false
	for _, r := range results {
		failed = failed || len(r.Errors) > 0
	}
	return reportStatus(err, failed, stderr)
}

// buildBinary builds ./cmd/agent3md into dir.
func buildBinary(dir string) (string, error) {
	bin := filepath.Join(dir, "agent3md")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/agent3md")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/agent3md (run from the repository root, or pass -bin): %w\n%s", err, out)
	}
	return bin, nil
}

// sizeResult holds every sample taken for one agent size.
type sizeResult struct {
	Size         int       `json:"size"`
	FileMB       float64   `json:"fileMB"`
	InitMS       []float64 `json:"initMS"`
	RouteColdMS  []float64 `json:"routeColdMS"`
	RouteWarmMS  []float64 `json:"routeWarmMS"`
	RoutesPerSec []float64 `json:"routesPerSec"`
	AnswerKB     []float64 `json:"answerKB"`
	RSSMB        []float64 `json:"rssMB"`
	RouteRSSMB   []float64 `json:"routeRSSMB"`
	ColdRSSMB    []float64 `json:"coldRSSMB"`
	Requests     int       `json:"requests"`
	Misses       int       `json:"noSkillMatched"`
	Errors       []string  `json:"errors,omitempty"`
}

// measureSize runs every measurement for an agent of n skills. A kind of
// measurement that fails is recorded once and not repeated; the others go
// on.
func measureSize(o *options, w words, n int, tmp string, log io.Writer) *sizeResult {
	r := &sizeResult{Size: n}
	fail := func(what string, err error) { r.Errors = append(r.Errors, what+": "+err.Error()) }
	path, mb, err := ensureAgent(o.gen, o.dir, n)
	if err != nil {
		fail("generating the agent", err)
		return r
	}
	r.FileMB = mb
	timeout := o.timeout
	if timeout == 0 {
		timeout = 30*time.Second + time.Duration(n)*2*time.Millisecond
	}
	p := &probe{bin: o.bin, agent: path, timeout: timeout, exitWait: o.exitWait,
		pipeline: o.pipeline, requests: o.requests, words: w.forSize(n)}
	warm := filepath.Join(tmp, fmt.Sprintf("warm-%d", n))
	fmt.Fprintf(log, "size %d: building the warm cache\n", n)
	warmOK := true
	if err := buildCache(o.bin, warm, path, timeout); err != nil {
		fail("pre-building the warm cache", err)
		warmOK = false
	}
	coldOK, routeOK, serveOK := true, warmOK, warmOK
	for i := 0; i < o.runs; i++ {
		fmt.Fprintf(log, "size %d: run %d/%d\n", n, i+1, o.runs)
		if coldOK && i < o.coldRuns {
			cold := filepath.Join(tmp, fmt.Sprintf("cold-%d-%d", n, i)) // fresh and empty
			s, err := p.firstRoute(cold, i)
			os.RemoveAll(cold)
			if coldOK = err == nil; coldOK {
				r.RouteColdMS, r.ColdRSSMB = append(r.RouteColdMS, s.ms), append(r.ColdRSSMB, s.rssMB)
			} else {
				fail("route, cold cache", err)
			}
		}
		if routeOK {
			s, err := p.firstRoute(warm, i+o.runs)
			if routeOK = err == nil; routeOK {
				r.RouteWarmMS, r.RouteRSSMB = append(r.RouteWarmMS, s.ms), append(r.RouteRSSMB, s.rssMB)
			} else {
				fail("route, warm cache", err)
			}
		}
		if serveOK {
			s, err := p.serve(warm, i)
			if serveOK = err == nil; serveOK {
				r.InitMS, r.RoutesPerSec = append(r.InitMS, s.initMS), append(r.RoutesPerSec, s.routesPerSec)
				r.RSSMB, r.AnswerKB = append(r.RSSMB, s.rssMB), append(r.AnswerKB, s.answerKB)
				r.Requests += o.requests
				r.Misses += s.misses
			} else {
				fail("initialize + pipelined routes", err)
			}
		}
	}
	return r
}

// buildCache runs `agent3md index --cache-dir dir agent`, the documented
// way to start warm.
func buildCache(bin, dir, agent string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "index", "--cache-dir", dir, agent).CombinedOutput()
	if ctx.Err() != nil {
		return fmt.Errorf("agent3md index did not finish within %v", timeout)
	}
	if err != nil {
		return fmt.Errorf("agent3md index --cache-dir %s %s: %w\n%s", dir, agent, err, out)
	}
	return nil
}

// writeJSON prints the samples and medians of every size.
func writeJSON(w io.Writer, results []*sizeResult) error {
	type out struct {
		*sizeResult
		Medians map[string]float64 `json:"medians"`
		Bars    []barCheck         `json:"bars"`
	}
	all := make([]out, len(results))
	for i, r := range results {
		all[i] = out{sizeResult: r, Medians: r.medians(), Bars: checkBars(r)}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(all)
}
