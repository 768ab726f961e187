package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestReadLineBound checks the line bound at N and N+1, with either
// terminator, and that an oversized line does not disturb the next one.
func TestReadLineBound(t *testing.T) {
	const max = 16
	line := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name  string
		input string
		want  []string // "" entries stand for errLineTooLong
	}{
		{"at bound LF", line(max) + "\n" + "b\n", []string{line(max), "b"}},
		{"at bound CRLF", line(max) + "\r\n" + "b\n", []string{line(max), "b"}},
		{"over bound LF", line(max+1) + "\n" + "b\n", []string{"", "b"}},
		{"over bound CRLF", line(max+1) + "\r\n" + "b\n", []string{"", "b"}},
		{"far over bound", line(300_000) + "\n" + "b\n", []string{"", "b"}},
		{"unterminated tail", "b\n" + line(3), []string{"b", line(3)}},
		{"unterminated tail at bound", "b\n" + line(max), []string{"b", line(max)}},
		{"unterminated tail over bound", "b\n" + line(max+1), []string{"b", ""}},
		{"lone CR kept", "a\rb\n", []string{"a\rb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newLineReader(strings.NewReader(tt.input), max)
			var got []string
			for {
				l, err := s.readLine()
				if errors.Is(err, errLineTooLong) {
					got = append(got, "")
					continue
				}
				if err == nil || len(l) > 0 {
					got = append(got, string(l))
				}
				if err != nil {
					break
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("lines = %q, want %q", got, tt.want)
			}
			if cap(s.buf) > 64<<10+max+2 {
				t.Errorf("line buffer grew to %d bytes for a %d-byte bound", cap(s.buf), max)
			}
		})
	}
}

// TestCancelAppliedInReadOrder: notifications/cancelled takes effect as
// it is read, whatever the queue holds: with no handler free (a bound of
// zero keeps every request queued), the cancelled request leaves the
// tracker at once and nothing is answered for it.
func TestCancelAppliedInReadOrder(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":"a","method":"test/wait"}` + "\n" +
		`{"jsonrpc":"2.0","id":7,"method":"test/wait"}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"7"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"test/release"}` + "\n"
	opts := withMethods(&Options{Source: Loaded(openAda(t))}, testMethods())
	c := newConn(context.Background(), newServer(opts), strings.NewReader(""), io.Discard)
	c.maxInFlight = 0
	for _, l := range strings.Split(strings.TrimSpace(in), "\n") {
		c.accept([]byte(l))
	}
	var live []string
	c.tr.mu.Lock()
	for _, e := range c.tr.live {
		live = append(live, string(e.rawID))
	}
	c.tr.mu.Unlock()
	sort.Strings(live)
	// "a" is cancelled; 7 is not, since the string "7" is another id.
	if got := strings.Join(live, " "); got != "2 7" {
		t.Errorf("live requests after reading the release: %s, want 2 7", got)
	}
	if len(c.queue) != 3 {
		t.Errorf("%d requests queued, want 3 (the cancelled one is skipped when its turn comes)", len(c.queue))
	}
	if len(c.out) != 0 {
		t.Errorf("a cancellation was answered: %q", c.out)
	}
}

func TestIDKey(t *testing.T) {
	tests := []struct {
		raw, key string
		ok       bool
	}{
		{`1`, "n:1", true},
		{`-1`, "n:-1", true},
		{`0`, "n:0", true},
		{`"a"`, "s:a", true},
		{`"1"`, "s:1", true}, // string and number ids never collide
		{`""`, "s:", true},
		{`null`, "", false},
		{`true`, "", false},
		{`1.5`, "", false},
		{`1e2`, "", false},
		{`{}`, "", false},
		{`[]`, "", false},
	}
	for _, tt := range tests {
		key, err := idKey(json.RawMessage(tt.raw))
		if (err == nil) != tt.ok || key != tt.key {
			t.Errorf("idKey(%s) = %q, %v; want %q, ok=%v", tt.raw, key, err, tt.key, tt.ok)
		}
	}
}

// TestTruncateTextClosesFence: instructions cut inside a fenced code
// block close it before the truncation note, with the fence they opened,
// so the note is text and the block does not swallow what a host adds
// after the instructions. Cuts outside a fence add nothing.
func TestTruncateTextClosesFence(t *testing.T) {
	code := strings.Repeat("echo line\n", 40)
	for _, tt := range []struct {
		name, text, closer string // closer: "" when none is added
	}{
		{"backticks", "# Guide\n\n```sh\n" + code, "\n```"},
		{"tildes, longer", "Intro.\n\n~~~~~\n" + code, "\n~~~~~"},
		// The note at column 0 ends the list item, and the block with it.
		{"in a list item", "- step:\n\n  ````\n  " + strings.ReplaceAll(code, "\n", "\n  "), ""},
		{"closed before the cut", "```\nx\n```\n\n" + strings.Repeat("plain words ", 40), ""},
		{"no fence", strings.Repeat("plain words ", 40), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := truncateText(tt.text, 200)
			if len(got) > 200 {
				t.Fatalf("len = %d, over the bound", len(got))
			}
			body, _, ok := strings.Cut(got, "\n\n[… truncated")
			if !ok {
				t.Fatalf("no note: %q", got)
			}
			if !strings.HasSuffix(body, tt.closer) || tt.closer == "" && (strings.HasSuffix(body, "```") || strings.HasSuffix(body, "~~~")) {
				t.Errorf("got %q, want %q right before the note", got, tt.closer)
			}
			if !strings.HasPrefix(tt.text, strings.TrimSuffix(body, tt.closer)) {
				t.Errorf("not a prefix of the text: %q", body)
			}
			if openFence(got) != "" {
				t.Errorf("the note is inside a code block: %q", got)
			}
		})
	}
}

func TestTruncateText(t *testing.T) {
	tests := []struct {
		name string
		text string
		max  int
	}{
		{"fits", "hello", 10},
		{"exact", strings.Repeat("x", 200), 200},
		{"over", strings.Repeat("x", 201), 200},
		{"multibyte", strings.Repeat("é", 300), 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := truncateText(tt.text, tt.max)
			if len(got) > tt.max {
				t.Errorf("len = %d, over the bound %d", len(got), tt.max)
			}
			if len(tt.text) <= tt.max && got != tt.text {
				t.Errorf("text within the bound was changed")
			}
			if len(tt.text) > tt.max && !strings.Contains(got, "truncated") {
				t.Errorf("truncation is not said: %q", got)
			}
			if !strings.HasPrefix(tt.text, strings.Split(got, "\n\n[")[0]) || !json.Valid([]byte(fmt.Sprintf("%q", got))) {
				t.Errorf("not a prefix cut on a rune boundary: %q", got)
			}
		})
	}
}

func TestNegotiate(t *testing.T) {
	tests := map[string]string{
		"2024-11-05": "2024-11-05",
		"2025-03-26": "2025-03-26",
		"2025-06-18": "2025-06-18",
		"2025-11-25": "2025-11-25",
		"2026-07-28": "2025-11-25",
		"2099-01-01": "2025-11-25",
		"":           "2025-11-25",
	}
	for in, want := range tests {
		if got := negotiate(in); got != want {
			t.Errorf("negotiate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestToWire(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int64
	}{
		{"wire error", errorf(codeMethodNotFound, "x"), codeMethodNotFound},
		{"wrapped wire error", fmt.Errorf("context: %w", errorf(codeInvalidParams, "y")), codeInvalidParams},
		{"plain error", errors.New("disk on fire"), codeInternalError},
		{"with data", errorData(codeUnsupportedProtocol, "v", map[string]any{"requested": "x"}), codeUnsupportedProtocol},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := toWire(tt.err)
			if got.Code != tt.code {
				t.Errorf("code = %d, want %d", got.Code, tt.code)
			}
			if tt.code == codeInternalError && !strings.Contains(got.Message, "disk on fire") {
				t.Errorf("message %q lost the cause", got.Message)
			}
			var we *wireError
			if errors.As(tt.err, &we) && we.Data != nil && got.Data == nil {
				t.Error("data dropped")
			}
		})
	}
}

// modernMeta is the _meta of a stateless request.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// TestServeEOFWaitsForInFlight: stdin closes while a request runs; Serve
// returns only after its response is written.
func TestServeEOFWaitsForInFlight(t *testing.T) {
	h := startServer(t, "ada.3md", nil)
	io.WriteString(h.in, `{"jsonrpc":"2.0","id":"slow","method":"test/sleep","params":{"ms":300,`+modernMeta+`}}`+"\n")
	h.in.Close()
	l, ok := h.next(10 * time.Second)
	if !ok || !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":"slow","result":{`) || !strings.Contains(l, `"slept":300`) {
		t.Fatalf("response = %q, %v", l, ok)
	}
	h.finish()
}

// TestServeContextCancel: cancelling ctx ends Serve with nil, promptly,
// even while stdin stays open and requests are blocked.
func TestServeContextCancel(t *testing.T) {
	a := openAda(t)
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	opts := withMethods(&Options{Source: Loaded(a), Router: testRouterOptions(t)}, testMethods())
	go func() { done <- Serve(ctx, inR, io.Discard, opts) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"test/wait"}`+"\n")
	// A request that ignores its context (CPU-bound work) must not hold
	// the server up either: SIGTERM cancels ctx and the process exits.
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"test/stuck"}`+"\n")
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v, want nil on cancel", err)
		}
		// Generous for a loaded machine; the waits on the way out are
		// bounded by a second each.
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("Serve took %v to return after cancel", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
}

func TestServeNeedsAgent(t *testing.T) {
	for _, opts := range []*Options{nil, {}} {
		if err := Serve(context.Background(), strings.NewReader(""), io.Discard, opts); err == nil {
			t.Errorf("Serve(%v) = nil, want an error naming Options.Source", opts)
		}
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestServeReportsWriteFailure(t *testing.T) {
	a := openAda(t)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	err := Serve(context.Background(), in, failWriter{}, &Options{Source: Loaded(a), Router: testRouterOptions(t)})
	if err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("Serve = %v, want the write failure", err)
	}
}

// TestServeMaxInFlight: with two requests in progress and a bound of two,
// a third slow request waits in the queue, yet stdin is still read: the
// ping written after it is answered before any of them.
func TestServeMaxInFlight(t *testing.T) {
	a := openAda(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	opts := withMethods(&Options{Source: Loaded(a), Router: testRouterOptions(t), MaxInFlight: 2}, testMethods())
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), inR, outW, opts); outW.Close() }()
	lines := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for i := 1; i <= 2; i++ {
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"test/wait"}`+"\n", i)
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":3,"method":"test/sleep","params":{"ms":0}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":4,"method":"ping"}`+"\n")
	if l := <-lines; l != `{"jsonrpc":"2.0","id":4,"result":{}}` {
		t.Fatalf("first answer %q, want the ping's while three requests wait", l)
	}
	// Cancelling 1 frees a handler for 3, then for the release of 2.
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":5,"method":"test/release"}`+"\n")
	inW.Close()
	var ids []string
	for l := range lines {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("bad line %q", l)
		}
		ids = append(ids, string(m.ID))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sort.Strings(ids)
	if strings.Join(ids, " ") != "2 3 5" {
		t.Fatalf("answers after the ping: %v, want 2 3 5", ids)
	}
}

// TestEachMember: the one-pass member walk agrees with encoding/json on
// names and raw values, escapes, nesting and spacing included.
func TestEachMember(t *testing.T) {
	inputs := []string{
		`{}`,
		` { } `,
		`{"a":1}`,
		`{ "a" : "x\"}" , "b":[1,{"c":"]"}], "d":{"e":null} ,"f":true,"g":-1.5e3 }`,
		`{"\u006dethod":"ping","id":"a\\"}`,
		"{\"a\":\t\"\\\\\",\n\"b\":\r\n{}}",
		`{"a":1,"a":2}`,
		`{"":"", "x":[[[]]]}`,
		// Names read as constants (knownKey), plain and escaped alike.
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"x","mode":"spec","limit":2}}}`,
		`{"te\u0078t":"a","te":"b","texts":"c","_meta":{},"progressToken":7,"values":{},"tier":"relaxed","query":"q","cursor":"c","uri":"u","result":1,"error":2}`,
	}
	for _, in := range inputs {
		want := map[string]json.RawMessage{}
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got := map[string]json.RawMessage{}
		eachMember([]byte(strings.TrimSpace(in)), func(k string, v []byte) { got[k] = v })
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: members %q, want %q", in, got, want)
		}
	}
}
