package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent3md/agent3md/loader"
)

var update = flag.Bool("update", false, "rewrite testdata/transcripts/*.txtar with the server's actual responses")

// A transcript (testdata/transcripts/*.txtar) is a comment holding options
// ("agent: ada.3md", "max-line-bytes: 200", "max-answer-bytes: 6000",
// "max-in-flight: 1") and one "transcript" section of
// steps: each "> line" is written to the server, and the "< line"s after it
// are the responses it must produce before the next input is written
// (compared as a set: concurrent requests may answer in any order). Input
// forms: "> text" ends with "\n"; ">crlf text" ends with "\r\n"; ">noeol
// text" has no terminator (last step only); ">blank" is an empty line;
// ">pad N text" replaces PAD in text with N 'x' bytes; ">reconnect" closes
// stdin, checks Serve ends cleanly, and starts a new connection (a session
// is initialized once per connection). Lines starting with
// "#" are comments. After the last step stdin is closed and Serve must
// return nil with nothing more written.

type step struct {
	src  string // the input line as written in the transcript
	in   []byte // bytes sent
	want []string
}

type transcript struct {
	comment     string
	agent       string
	maxLine     int
	maxAnswer   int // "max-answer-bytes: N"
	maxInFlight int // "max-in-flight: N"
	steps       []*step
}

// options are the server options the transcript's header sets.
func (tr *transcript) options() *Options {
	return &Options{MaxLineBytes: tr.maxLine, MaxAnswerBytes: tr.maxAnswer, MaxInFlight: tr.maxInFlight}
}

// parseTranscript reads the txtar-shaped file.
func parseTranscript(data []byte) (*transcript, error) {
	tr := &transcript{agent: "ada.3md"}
	text := string(data)
	head, body, ok := strings.Cut(text, "-- transcript --\n")
	if !ok {
		return nil, fmt.Errorf("no -- transcript -- section")
	}
	tr.comment = head
	for _, l := range strings.Split(head, "\n") {
		k, v, _ := strings.Cut(l, ":")
		switch strings.TrimSpace(k) {
		case "agent":
			tr.agent = strings.TrimSpace(v)
		case "max-line-bytes", "max-answer-bytes", "max-in-flight":
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", strings.TrimSpace(k), err)
			}
			*map[string]*int{"max-line-bytes": &tr.maxLine, "max-answer-bytes": &tr.maxAnswer, "max-in-flight": &tr.maxInFlight}[strings.TrimSpace(k)] = n
		}
	}
	for i, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "<"):
			if len(tr.steps) == 0 {
				return nil, fmt.Errorf("line %d: a response before any input", i+1)
			}
			s := tr.steps[len(tr.steps)-1]
			s.want = append(s.want, strings.TrimPrefix(strings.TrimPrefix(l, "<"), " "))
		case strings.HasPrefix(l, ">"):
			in, err := inputBytes(l)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			tr.steps = append(tr.steps, &step{src: l, in: in})
		default:
			return nil, fmt.Errorf("line %d: want '>', '<' or '#': %q", i+1, l)
		}
	}
	return tr, nil
}

func inputBytes(l string) ([]byte, error) {
	switch {
	case l == ">reconnect":
		return nil, nil
	case l == ">blank":
		return []byte("\n"), nil
	case strings.HasPrefix(l, ">crlf "):
		return []byte(strings.TrimPrefix(l, ">crlf ") + "\r\n"), nil
	case strings.HasPrefix(l, ">noeol "):
		return []byte(strings.TrimPrefix(l, ">noeol ")), nil
	case strings.HasPrefix(l, ">pad "):
		n, rest, _ := strings.Cut(strings.TrimPrefix(l, ">pad "), " ")
		count, err := strconv.Atoi(n)
		if err != nil {
			return nil, fmt.Errorf(">pad needs a count: %w", err)
		}
		return []byte(strings.Replace(rest, "PAD", strings.Repeat("x", count), 1) + "\n"), nil
	case strings.HasPrefix(l, "> "):
		return []byte(strings.TrimPrefix(l, "> ") + "\n"), nil
	}
	return nil, fmt.Errorf("unknown input form %q", l)
}

// format writes the transcript back with the given responses.
func (tr *transcript) format(got [][]string) []byte {
	var b bytes.Buffer
	b.WriteString(tr.comment)
	b.WriteString("-- transcript --\n")
	for i, s := range tr.steps {
		b.WriteString(s.src + "\n")
		for _, l := range got[i] {
			b.WriteString("< " + l + "\n")
		}
	}
	return b.Bytes()
}

func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			runTranscript(t, f)
		})
	}
}

// harness is one Serve over pipes.
type harness struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startServer(t *testing.T, agentFile string, opts *Options) *harness {
	t.Helper()
	a, err := loader.Open(filepath.Join("testdata", agentFile), nil)
	if err != nil {
		t.Fatalf("opening the test agent: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	if opts == nil {
		opts = &Options{}
	}
	opts.Source = Loaded(a)
	return serveHarness(t, opts)
}

// serveHarness runs Serve with opts (Agent or Open set) over pipes.
func serveHarness(t *testing.T, opts *Options) *harness {
	if opts.Version == "" {
		opts.Version = "test"
	}
	if opts.Router == nil {
		opts.Router = testRouterOptions(t)
	}
	withMethods(opts, testMethods())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &harness{t: t, in: inW, lines: make(chan string, 1024), done: make(chan error, 1)}
	go func() {
		err := Serve(context.Background(), inR, outW, opts)
		outW.Close()
		h.done <- err
	}()
	go func() {
		defer close(h.lines)
		r := bufio.NewReader(outR)
		for {
			l, err := r.ReadString('\n')
			if l != "" {
				h.lines <- strings.TrimSuffix(l, "\n")
			}
			if err != nil {
				return
			}
		}
	}()
	return h
}

// next returns the next response line, or false after timeout.
func (h *harness) next(timeout time.Duration) (string, bool) {
	select {
	case l, ok := <-h.lines:
		return l, ok
	case <-time.After(timeout):
		return "", false
	}
}

// byID reads n response lines, in whatever order the server wrote them
// (requests are served concurrently), keyed by their raw id.
func (h *harness) byID(n int, timeout time.Duration) map[string]string {
	h.t.Helper()
	got := map[string]string{}
	for i := 0; i < n; i++ {
		l, ok := h.next(timeout)
		if !ok {
			h.t.Fatalf("only %d of %d answers: %v", i, n, got)
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			h.t.Fatalf("answer is not JSON: %s", l)
		}
		got[string(m.ID)] = l
	}
	return got
}

// finish closes stdin and checks Serve returns nil with nothing more.
func (h *harness) finish() {
	h.t.Helper()
	h.in.Close()
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Errorf("Serve returned %v after EOF, want nil", err)
		}
	case <-time.After(10 * time.Second):
		h.t.Fatal("Serve did not return within 10s of EOF")
	}
	for l := range h.lines {
		h.t.Errorf("unexpected output after the last step: %s", l)
	}
}

func runTranscript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := parseTranscript(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	h := startServer(t, tr.agent, tr.options())
	got := make([][]string, len(tr.steps))
	for i, s := range tr.steps {
		if s.src == ">reconnect" {
			h.finish()
			h = startServer(t, tr.agent, tr.options())
			continue
		}
		if _, err := h.in.Write(s.in); err != nil {
			t.Fatalf("step %d: writing %q: %v", i+1, s.src, err)
		}
		if strings.HasPrefix(s.src, ">noeol ") {
			h.in.Close() // the unterminated line is only complete at EOF
		}
		if *update {
			// Collect until the server has been quiet for a while.
			for {
				l, ok := h.next(300 * time.Millisecond)
				if !ok {
					break
				}
				got[i] = append(got[i], normalise(l))
			}
			continue
		}
		for range s.want {
			l, ok := h.next(10 * time.Second)
			if !ok {
				break
			}
			got[i] = append(got[i], normalise(l))
		}
		if !sameLines(got[i], s.want) {
			t.Errorf("step %d %s:\n got: %s\nwant: %s", i+1, s.src,
				strings.Join(got[i], "\n      "), strings.Join(s.want, "\n      "))
		}
	}
	h.finish()
	if *update {
		if err := os.WriteFile(file, tr.format(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// relevance matches bleve relevance figures, which move with the router's
// tuning; transcripts pin the matches, not the scores.
var relevance = regexp.MustCompile(`"relevance":[-+0-9.eE]+`)

// normalise replaces what a transcript does not pin down.
func normalise(line string) string {
	return relevance.ReplaceAllStringFunc(line, func(m string) string {
		if m == `"relevance":0` {
			return m
		}
		return `"relevance":"R"`
	})
}

// sameLines compares response lines as multisets.
func sameLines(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	g := append([]string(nil), got...)
	w := append([]string(nil), want...)
	sort.Strings(g)
	sort.Strings(w)
	for i := range g {
		if g[i] != w[i] {
			return false
		}
	}
	return true
}

// testMethods are request methods only tests add: test/wait blocks until
// test/release (or cancellation), test/sleep {ms} sleeps, test/stuck
// never returns, test/panic panics.
func testMethods() map[string]methodSpec {
	release := make(chan struct{})
	var once sync.Once
	return map[string]methodSpec{
		"test/wait": {legacy: true, modern: true, handle: func(s *server, ctx context.Context, c *call) (any, error) {
			select {
			case <-release:
				return map[string]bool{"released": true}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}},
		"test/release": {legacy: true, modern: true, handle: func(s *server, ctx context.Context, c *call) (any, error) {
			once.Do(func() { close(release) })
			return struct{}{}, nil
		}},
		"test/sleep": {legacy: true, modern: true, handle: func(s *server, ctx context.Context, c *call) (any, error) {
			ms, _ := strconv.Atoi(string(c.params["ms"]))
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return map[string]int{"slept": ms}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}},
		"test/stuck": {legacy: true, modern: true, handle: func(s *server, ctx context.Context, c *call) (any, error) {
			select {} // ignores its context, as CPU-bound work that never checks it would
		}},
		"test/panic": {legacy: true, modern: true, handle: func(s *server, ctx context.Context, c *call) (any, error) {
			panic("test panic")
		}},
	}
}
