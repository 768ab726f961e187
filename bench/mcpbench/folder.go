package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent3md/agent3md/mcpclient"
)

// The folder mode (-folder DIR, -folder-sizes N) measures agent3md serving
// Agent Skills folders (docs/skill-folders.md §10) and, with -ref-folder,
// another folder server (skilljack-mcp, run as CMD DIR) side by side:
// spawn → initialize answer, spawn → first SKILL.md read, the latency of
// sequential resources/read round trips of one SKILL.md and the peak RSS
// after them. For agent3md alone it also times spawn → first route_skill
// answer on an empty cache directory (cold) and on one a previous server
// filled (warm), with each process's peak RSS.

// folderContender is one server under comparison in the folder mode.
type folderContender struct {
	label string
	// argv returns the command line serving dir with cacheDir as the
	// routing index cache (a server without one ignores it).
	argv func(dir, cacheDir string) []string
	// env is added to the environment it runs in.
	env []string
	// routes is set for a server with route_skill: the cold and warm
	// first-route rows are measured for it alone.
	routes bool
	// exits is set for a server that exits 0 when stdin closes, which is
	// then checked; one that does not is killed after its peak is read.
	exits bool
}

// oursFolder is agent3md serving folders.
func oursFolder(bin string) folderContender {
	return folderContender{
		label:  "ours",
		argv:   func(dir, cacheDir string) []string { return []string{bin, "mcp", "--cache-dir", cacheDir, dir} },
		routes: true,
		exits:  true,
	}
}

// referenceFolder is the server -ref-folder names: its words, then the
// folder (e.g. "node dist/index.js" runs "node dist/index.js DIR").
// skilljack-mcp keeps running at EOF (its file watcher holds the event
// loop), so it is not asked to exit.
func referenceFolder(cmd string) folderContender {
	words := strings.Fields(cmd)
	return folderContender{
		label: "reference",
		argv: func(dir, _ string) []string {
			return append(slices.Clone(words), dir)
		},
	}
}

// folderMetrics are the rows of the folder table, in order, with the
// goal for the ratio where there is one (0: none).
var folderMetrics = []struct {
	metric
	goal float64
}{
	{metric{"init", "spawn → initialize", "ms", "%.1f"}, 0.1},
	{metric{"firstRead", "spawn → first SKILL.md read", "ms", "%.1f"}, 0},
	{metric{"read", "resources/read SKILL.md, round trip", "µs", "%.1f"}, 0.05},
	{metric{"readPipe", "resources/read SKILL.md, pipelined (per read)", "µs", "%.1f"}, 0.05},
	{metric{"ping", "ping (transport and dispatch)", "µs", "%.1f"}, 0},
	{metric{"rss", "peak RSS after the reads", "MB", "%.1f"}, 0.33},
	{metric{"coldRoute", "spawn → first route, cold", "ms", "%.1f"}, 0},
	{metric{"coldRSS", "peak RSS, cold first route", "MB", "%.1f"}, 0},
	{metric{"warmRoute", "spawn → first route, warm", "ms", "%.1f"}, 0},
	{metric{"warmRSS", "peak RSS, warm first route", "MB", "%.1f"}, 0},
}

// folderTarget is one folder to measure and what to ask of it.
type folderTarget struct {
	Name   string `json:"name"`   // how the table names it
	Dir    string `json:"dir"`    // the folder served
	Skills int    `json:"skills"` // SKILL.md files below it (for the timeout)
	Skill  string `json:"skill"`  // the skill whose SKILL.md is read
	// route returns the k-th route_skill request text.
	route func(k int) string
}

// folderResult holds the samples of one folder for every contender.
type folderResult struct {
	folderTarget
	Samples   samples        `json:"samples"`
	ReadBytes map[string]int `json:"readBytes,omitempty"`
	Errors    []string       `json:"errors,omitempty"`
}

// folderProbe is what measuring one folder needs.
type folderProbe struct {
	target   folderTarget
	timeout  time.Duration
	exitWait time.Duration
	reads    int    // timed sequential reads per session
	want     []byte // the SKILL.md bytes a read must return; nil: any text
}

// readWarmup is the number of untimed reads before the timed ones: they
// let a JIT compile the path and fill the page cache.
const readWarmup = 20

// runFolders measures every folder the flags name and prints the table.
func runFolders(o *options, w words, tmp string, stdout, stderr io.Writer) int {
	who := []folderContender{oursFolder(o.bin)}
	if o.refFolder != "" {
		who = append(who, referenceFolder(o.refFolder))
	}
	if o.floor {
		f, err := floorFolder()
		if err != nil {
			fmt.Fprintln(stderr, "mcpbench:", err)
			return 2
		}
		who = append(who, f)
	}
	var targets []folderTarget
	var results []*folderResult
	if o.folder != "" {
		t, err := namedFolder(o)
		if err != nil {
			fmt.Fprintln(stderr, "mcpbench:", err)
			return 2
		}
		targets = append(targets, t)
	}
	for _, n := range o.folderSizes {
		t, err := generatedFolder(o, w, n)
		if err != nil {
			results = append(results, &folderResult{folderTarget: folderTarget{Name: fmt.Sprintf("generated %d", n)},
				Errors: []string{"generating the folder: " + err.Error()}})
			continue
		}
		targets = append(targets, t)
	}
	for _, t := range targets {
		results = append(results, measureFolder(o, who, t, tmp, stderr))
	}
	var err error
	if o.json {
		err = writeFolderJSON(stdout, results)
	} else {
		err = writeFolders(stdout, o, results)
	}
	failed := false
	for _, r := range results {
		failed = failed || len(r.Errors) > 0
	}
	return reportStatus(err, failed, stderr)
}

// namedFolder is the -folder target: -folder-skill is read and
// -folder-route asked.
func namedFolder(o *options) (folderTarget, error) {
	n, err := countSkills(o.folder)
	if err != nil {
		return folderTarget{}, err
	}
	if n == 0 {
		return folderTarget{}, fmt.Errorf("-folder %s: no SKILL.md in it or its subfolders; pass a folder of skill folders", o.folder)
	}
	if _, err := os.Stat(filepath.Join(o.folder, o.folderSkill, "SKILL.md")); err != nil {
		return folderTarget{}, fmt.Errorf("-folder-skill %s: %v; name a skill folder of %s", o.folderSkill, err, o.folder)
	}
	text := o.folderRoute
	return folderTarget{Name: shortName(o.folder), Dir: o.folder, Skills: n, Skill: o.folderSkill,
		route: func(int) string { return text }}, nil
}

// shortName names a folder by its last two path elements, enough to tell
// anthropics-skills/skills from ~/.claude/skills.
func shortName(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	return filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(abs)), filepath.Base(abs)))
}

// generatedFolder is a folder of n skills from the skills generator,
// written once as DIR/skills-N and reused; its first skill is read, and
// requests walk the vocabulary its skills cover.
func generatedFolder(o *options, w words, n int) (folderTarget, error) {
	dir, err := ensureFolder(o.skillsGen, o.dir, n)
	if err != nil {
		return folderTarget{}, err
	}
	v := w.forSize(n)
	return folderTarget{Name: fmt.Sprintf("generated %d", n), Dir: dir, Skills: n, Skill: v.skillName(0, n),
		route: v.text}, nil
}

// ensureFolder writes dir/skills-N with the generator unless it exists,
// and returns its path.
func ensureFolder(gen, dir string, n int) (string, error) {
	path := filepath.Join(dir, fmt.Sprintf("skills-%d", n))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp := path + ".tmp"
	os.RemoveAll(tmp) // a generation cut short earlier
	if out, err := exec.Command("python3", gen, fmt.Sprint(n), tmp).CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("python3 %s %d %s: %w\n%s", gen, n, tmp, err, out)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("moving the generated folder into place: %w", err)
	}
	return path, nil
}

// countSkills counts the SKILL.md files up to four levels below dir (the
// default search depth, docs/skill-folders.md §1).
func countSkills(dir string) (int, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return 0, fmt.Errorf("-folder: %w", err)
	}
	if !st.IsDir() {
		return 0, fmt.Errorf("-folder %s is not a directory; pass a folder of skill folders", dir)
	}
	n := 0
	for depth, pattern := 0, dir; depth <= 4; depth++ {
		m, _ := filepath.Glob(filepath.Join(pattern, "SKILL.md"))
		n += len(m)
		pattern = filepath.Join(pattern, "*")
	}
	return n, nil
}

// measureFolder measures every contender on t, o.runs times, alternating
// which goes first from run to run so drift in the machine's load hits
// both alike. A contender that fails a kind of measurement is not asked
// for it again.
func measureFolder(o *options, who []folderContender, t folderTarget, tmp string, log io.Writer) *folderResult {
	r := &folderResult{folderTarget: t, Samples: samples{}, ReadBytes: map[string]int{}}
	timeout := o.timeout
	if timeout == 0 {
		timeout = 30*time.Second + time.Duration(t.Skills)*2*time.Millisecond
	}
	p := &folderProbe{target: t, timeout: timeout, exitWait: o.exitWait, reads: o.reads}
	p.want, _ = os.ReadFile(filepath.Join(t.Dir, t.Skill, "SKILL.md"))
	failed := map[string]bool{}
	fail := func(c folderContender, what string, err error) {
		failed[c.label+what] = true
		r.Errors = append(r.Errors, fmt.Sprintf("%s, %s: %v", c.label, what, err))
	}
	// The warm cache is whatever a first, untimed route leaves behind:
	// `agent3md index` takes agent files only.
	warm := filepath.Join(tmp, "folder-warm-"+strings.ReplaceAll(t.Name, " ", "-"))
	defer os.RemoveAll(warm)
	for _, c := range who {
		if c.routes {
			fmt.Fprintf(log, "%s: filling the warm cache of %s\n", t.Name, c.label)
			if _, _, err := p.firstRoute(c, warm, 0); err != nil {
				fail(c, "warm route", err)
			}
		}
	}
	for run := 0; run < o.runs; run++ {
		fmt.Fprintf(log, "%s: run %d/%d\n", t.Name, run+1, o.runs)
		for k := range who {
			i := (k + run) % len(who)
			c := who[i]
			if !failed[c.label+"serving"] {
				if err := p.session(c, warm, r); err != nil {
					fail(c, "serving", err)
				}
			}
			if !c.routes {
				continue
			}
			if !failed[c.label+"cold route"] && run < o.coldRuns {
				cold := filepath.Join(tmp, fmt.Sprintf("folder-cold-%d", run)) // fresh and empty
				ms, rss, err := p.firstRoute(c, cold, run)
				os.RemoveAll(cold)
				if err != nil {
					fail(c, "cold route", err)
				} else {
					r.Samples.add(c.label, "coldRoute", ms)
					r.Samples.add(c.label, "coldRSS", rss)
				}
			}
			if !failed[c.label+"warm route"] {
				if ms, rss, err := p.firstRoute(c, warm, run+1); err != nil {
					fail(c, "warm route", err)
				} else {
					r.Samples.add(c.label, "warmRoute", ms)
					r.Samples.add(c.label, "warmRSS", rss)
				}
			}
		}
	}
	return r
}

// session spawns c on the folder, times the handshake and the first read
// of the skill's SKILL.md from spawn, then readWarmup untimed and p.reads
// timed sequential reads and as many pings, and records the median round
// trips and the peak RSS after them.
func (p *folderProbe) session(c folderContender, cacheDir string, r *folderResult) error {
	argv := c.argv(p.target.Dir, cacheDir)
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
	hello := init[0].Timing().Answered.Sub(s.started())
	if _, err := s.start(initializedNotification()); err != nil {
		return err
	}
	t, n, err := p.read(s)
	if err != nil {
		return fmt.Errorf("first read: %w", err)
	}
	first := t.Answered.Sub(s.started())
	for i := 0; i < readWarmup; i++ {
		if _, _, err := p.read(s); err != nil {
			return err
		}
	}
	trips := make([]float64, p.reads)
	for i := range trips {
		t, _, err := p.read(s)
		if err != nil {
			return err
		}
		trips[i] = float64(t.RoundTrip()) / float64(time.Microsecond)
	}
	// Pings time the transport and the server's dispatch alone: what a
	// read costs beyond them is its reading and encoding.
	pings := make([]float64, p.reads)
	for i := range pings {
		_, trip, err := s.roundTrip(request("ping", nil))
		if err != nil {
			return fmt.Errorf("ping: %w", err)
		}
		pings[i] = float64(trip) / float64(time.Microsecond)
	}
	// Pipelined: every read written at once, as a client that loads many
	// skills does; the per-read time is the server's throughput, not the
	// transport's round trip.
	pipe, err := p.pipelined(s)
	if err != nil {
		return err
	}
	rss, err := p.end(c, s)
	if err != nil {
		return err
	}
	r.Samples.add(c.label, "readPipe", pipe)
	r.Samples.add(c.label, "ping", median(pings))
	r.Samples.add(c.label, "init", ms(hello))
	r.Samples.add(c.label, "firstRead", ms(first))
	r.Samples.add(c.label, "read", median(trips))
	r.Samples.add(c.label, "rss", rss)
	r.ReadBytes[c.label] = n
	return nil
}

// read sends resources/read of skill://NAME (the SKILL.md, as both
// servers name it) and waits for the answer. It returns the request's
// timing, whose round trip runs from the write of the request to the
// arrival of the whole answer line (the client's own decoding, which for
// an 8 KB answer costs more than the transport, is not counted), and the
// text's size; it fails when the text differs from the file on disk.
func (p *folderProbe) read(s *server) (mcpclient.Timing, int, error) {
	uri := "skill://" + p.target.Skill
	ps, err := s.start(request("resources/read", map[string]any{"uri": uri}))
	if err != nil {
		return mcpclient.Timing{}, 0, err
	}
	res, err := s.result(ps[0])
	if err != nil {
		return mcpclient.Timing{}, 0, fmt.Errorf("resources/read %s: %w", uri, err)
	}
	var rr struct {
		Contents []struct {
			Text *string `json:"text"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(res, &rr); err != nil {
		return mcpclient.Timing{}, 0, fmt.Errorf("resources/read %s: the result is not a read result: %v", uri, err)
	}
	if len(rr.Contents) == 0 || rr.Contents[0].Text == nil {
		return mcpclient.Timing{}, 0, fmt.Errorf("resources/read %s: no text content", uri)
	}
	text := *rr.Contents[0].Text
	if p.want != nil && text != string(p.want) {
		return mcpclient.Timing{}, 0, fmt.Errorf("resources/read %s: %d bytes that differ from the %d of its SKILL.md on disk", uri, len(text), len(p.want))
	}
	return ps[0].Timing(), len(text), nil
}

// pipelined writes p.reads reads of the SKILL.md in one go (the answers
// are read meanwhile, so a server that answers as it reads never blocks
// on a full pipe) and returns the time until the last answer line, per
// read, in microseconds. Every answer must be a result with the text of
// the first read's size or more (answers are checked in full by read);
// a byte scan tells, since decoding each 8 KB answer would time the
// client.
func (p *folderProbe) pipelined(s *server) (float64, error) {
	uri := "skill://" + p.target.Skill
	reqs := make([]mcpclient.Request, p.reads)
	for i := range reqs {
		reqs[i] = request("resources/read", map[string]any{"uri": uri})
	}
	ps, err := s.start(reqs...)
	if err != nil {
		return 0, err
	}
	if err := s.waitAll(ps); err != nil {
		return 0, fmt.Errorf("pipelined reads: %w", err)
	}
	for i, pd := range ps {
		line, err := pd.Raw()
		if err != nil {
			return 0, fmt.Errorf("pipelined read %d: %w", i+1, err)
		}
		if !bytes.Contains(line, []byte(`"result"`)) || len(line) < len(p.want) {
			return 0, fmt.Errorf("pipelined read %d: not a whole read result: %.200q", i+1, line)
		}
	}
	return float64(mcpclient.Span(ps)) / float64(time.Microsecond) / float64(p.reads), nil
}

// firstRoute measures spawn → first route_skill answer with cacheDir as
// the index cache: initialize, notifications/initialized and the call go
// out together, as a pipelining client sends them. It returns the time
// and the process's peak RSS.
func (p *folderProbe) firstRoute(c folderContender, cacheDir string, k int) (float64, float64, error) {
	argv := c.argv(p.target.Dir, cacheDir)
	s, err := startServerEnv(argv[0], argv[1:], c.env, p.timeout)
	if err != nil {
		return 0, 0, err
	}
	defer s.kill()
	elapsed, err := spawnRoute(s, p.target.route(k))
	if err != nil {
		return 0, 0, err
	}
	rss, err := p.end(c, s)
	return ms(elapsed), rss, err
}

// end returns the peak RSS of s and stops it: a server that exits at EOF
// must do so cleanly; another is killed once its peak is read.
func (p *folderProbe) end(c folderContender, s *server) (float64, error) {
	if c.exits {
		return s.finish(p.exitWait)
	}
	rss, ok := liveHWMMB(s.proc.Pid())
	s.kill()
	if !ok {
		rss = peakRSSMB(s.proc.State()) // killed: rusage still holds the peak
	}
	return rss, nil
}
