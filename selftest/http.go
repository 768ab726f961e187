package selftest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
	"time"
)

// HTTP header names of Streamable HTTP (docs/protocol.md §12).
const (
	headerProtocolVersion = "MCP-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerSessionID       = "Mcp-Session-Id"
)

// httpTransport speaks Streamable HTTP (docs/selftest.md §7): each
// message is one POST; a JSON answer is one message, and each data event
// of an event-stream answer is one. Its state is the revision initialize
// negotiated, which legacy clients send in MCP-Protocol-Version on every
// later request, and, only when a server mints one anyway, its session
// id: echoed as the specification requires of clients, so the other
// checks still run on a stateful server (http/session-id fails it).
type httpTransport struct {
	client  *http.Client
	url     string
	token   string
	timeout time.Duration
	maxLen  int
	log     *httpLog

	ctx    context.Context // ends every open request on stop
	cancel context.CancelFunc
	q      *lineQueue
	wg     sync.WaitGroup // event streams being read

	version string // negotiated by initialize; "" before
	session string // Mcp-Session-Id minted by initialize; "" when none
}

// dial returns a conn whose messages are POSTed to o.URL. Nothing is
// sent until the first message.
func dial(o *Options, log *httpLog) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	t := &httpTransport{
		client:  o.HTTPClient,
		url:     o.URL,
		token:   o.Token,
		timeout: o.Timeout,
		maxLen:  o.MaxResponseBytes,
		log:     log,
		ctx:     ctx,
		cancel:  cancel,
	}
	c := newConn(t, o)
	t.q = &lineQueue{out: c.lines, quit: c.quit, wake: make(chan struct{}, 1)}
	go t.q.pump()
	return c
}

// peeked is what the transport reads of a message to frame it.
type peeked struct {
	parsed  bool            // a JSON object with a method
	method  string          // "" for a response or a message that is not JSON-RPC
	id      json.RawMessage // compacted; nil for a notification
	modern  string          // params._meta's protocolVersion, "" when absent
	name    string          // params.name or params.uri, for Mcp-Name
	initReq bool            // an initialize request
}

// request reports whether the message needs an answer.
func (p peeked) request() bool { return p.method != "" && p.id != nil }

// what names the message for a failure detail.
func (p peeked) what() string {
	switch {
	case p.request():
		return "POST " + p.method + " (id " + string(p.id) + ")"
	case p.method != "":
		return "POST of notification " + p.method
	case p.parsed:
		return "POST of a response"
	}
	return "POST of a malformed message"
}

// peekMessage reads the fields the HTTP framing needs; anything it cannot
// read is left empty (the server judges the message, not the harness).
func peekMessage(b []byte) peeked {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(b, &m) != nil {
		return peeked{}
	}
	p := peeked{parsed: true}
	if json.Unmarshal(m.Method, &p.method) != nil {
		p.method = ""
	}
	var id bytes.Buffer
	if len(m.ID) > 0 && json.Compact(&id, m.ID) == nil {
		p.id = id.Bytes()
	}
	var params struct {
		Name json.RawMessage `json:"name"`
		URI  json.RawMessage `json:"uri"`
		Meta map[string]json.RawMessage
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(m.Params, &raw) == nil {
		params.Name, params.URI = raw["name"], raw["uri"]
		json.Unmarshal(raw["_meta"], &params.Meta)
	}
	json.Unmarshal(params.Meta[metaProtocolVersion], &p.modern)
	switch p.method {
	case "tools/call", "prompts/get":
		json.Unmarshal(params.Name, &p.name)
	case "resources/read":
		json.Unmarshal(params.URI, &p.name)
	}
	p.initReq = p.method == "initialize" && p.request()
	return p
}

// newRequest is the POST of b with the headers its era wants.
func (t *httpTransport) newRequest(ctx context.Context, b []byte, p peeked) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("build the %s: %w", p.what(), err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	switch {
	case p.modern != "":
		req.Header.Set(headerProtocolVersion, headerSafe(p.modern))
		if p.request() {
			req.Header.Set(headerMethod, headerSafe(p.method))
			if p.name != "" {
				req.Header.Set(headerName, headerSafe(p.name))
			}
		}
	case t.version != "":
		req.Header.Set(headerProtocolVersion, t.version)
	}
	if t.session != "" {
		req.Header.Set(headerSessionID, t.session)
	}
	return req, nil
}

// headerSafe is v as a header value: as it is when it is printable ASCII
// without edge spaces, else in the =?base64?…?= form servers decode.
func headerSafe(v string) string {
	plain := v != "" && v[0] != ' ' && v[len(v)-1] != ' '
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] < 0x7f
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// send POSTs b. An event-stream answer is read in the background; a JSON
// answer is read here, so messages reach the server in the order sent.
func (t *httpTransport) send(b []byte) error {
	p := peekMessage(b)
	ctx, cancel := context.WithCancel(t.ctx)
	// The timer bounds the wait for a JSON answer; an event stream's
	// messages are bounded by the conn's await instead.
	timer := time.AfterFunc(t.timeout, cancel)
	req, err := t.newRequest(ctx, b, p)
	if err != nil {
		cancel()
		return err
	}
	resp, err := t.client.Do(req)
	if err != nil {
		cancel()
		if !timer.Stop() {
			return fmt.Errorf("%w to %s within %v", errNoAnswer, p.what(), t.timeout)
		}
		return fmt.Errorf("%s: %w", p.what(), err) // err names the URL, password stripped
	}
	if p.initReq && resp.StatusCode == http.StatusOK {
		t.session = resp.Header.Get(headerSessionID)
	}
	if mediaType(resp) == "text/event-stream" && resp.StatusCode == http.StatusOK {
		t.log.add(exchange{peeked: p, status: resp.StatusCode, stream: true})
		if p.initReq {
			// Read here: later requests need the revision it negotiates.
			defer cancel()
			defer resp.Body.Close()
			answer := t.readEvents(resp.Body, p)
			if !timer.Stop() {
				return fmt.Errorf("%w to %s within %v", errNoAnswer, p.what(), t.timeout)
			}
			t.learnVersion(answer)
			return nil
		}
		timer.Stop()
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			defer cancel()
			defer resp.Body.Close()
			t.readEvents(resp.Body, p)
		}()
		return nil
	}
	defer cancel()
	body, tooLong, err := readBody(resp.Body, t.maxLen)
	resp.Body.Close()
	if !timer.Stop() {
		return fmt.Errorf("%w to %s within %v", errNoAnswer, p.what(), t.timeout)
	}
	if err != nil {
		return fmt.Errorf("reading the answer to %s: %w", p.what(), err)
	}
	t.deliver(resp, p, body, tooLong)
	return nil
}

// readBody reads at most max bytes of an answer; tooLong says there was
// more (and drops what was read).
func readBody(r io.Reader, max int) (body []byte, tooLong bool, err error) {
	body, err = io.ReadAll(io.LimitReader(r, int64(max)+1))
	if len(body) > max {
		return nil, true, err
	}
	return bytes.TrimSpace(body), false, err
}

// mediaType is an answer's Content-Type without parameters, "" when none.
func mediaType(resp *http.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt
}

// deliver hands a JSON answer to the conn, or a line saying why the
// answer is not one. An empty answer to a notification or a response is
// what the transport expects (202); anything the server says about such a
// message is delivered only when it is JSON (an error about a malformed
// message).
func (t *httpTransport) deliver(resp *http.Response, p peeked, body []byte, tooLong bool) {
	status := resp.StatusCode
	isJSON := len(body) > 0 && !tooLong && json.Valid(body)
	t.log.add(exchange{peeked: p, status: status, code: errorCode(body), empty: len(body) == 0,
		notJSON: len(body) > 0 && !tooLong && !isJSON})
	needsAnswer := p.request() || !p.parsed
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		// A refused notification is left to the next request, refused too.
		if needsAnswer {
			t.q.push(rawLine{bad: fmt.Sprintf("%s answered %s%s", p.what(), resp.Status, t.authHint(status))})
		}
	case tooLong:
		t.q.push(rawLine{bad: fmt.Sprintf("the answer to %s is over %d bytes", p.what(), t.maxLen)})
	case len(body) == 0:
		if needsAnswer {
			t.q.push(rawLine{bad: fmt.Sprintf("%s answered %s with no body; a request needs its JSON-RPC answer", p.what(), resp.Status)})
		}
	case isJSON:
		if p.initReq && status == http.StatusOK {
			t.learnVersion(body)
		}
		t.q.push(rawLine{b: body})
	case needsAnswer:
		t.q.push(rawLine{bad: fmt.Sprintf("%s answered %s (Content-Type %q) with something that is not JSON: %s",
			p.what(), resp.Status, resp.Header.Get("Content-Type"), snippet(string(body), 120))})
	}
}

// authHint explains a 401 or 403 for the detail.
func (t *httpTransport) authHint(status int) string {
	switch {
	case status == http.StatusForbidden:
		return "; the server refused the request (its Origin, Host or the token's scope)"
	case t.token == "":
		return "; the server wants a bearer token and none was given"
	}
	return "; the server refused the bearer token given"
}

// learnVersion remembers the revision an initialize result negotiated.
func (t *httpTransport) learnVersion(body []byte) {
	var m struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(body, &m) == nil && m.Result.ProtocolVersion != "" {
		t.version = headerSafe(m.Result.ProtocolVersion)
	}
}

// errorCode is the JSON-RPC error code of an answer, 0 when it is none.
// A large answer is taken for a result without reading it twice: errors
// are small.
func errorCode(body []byte) int {
	if len(body) > 64<<10 {
		return 0
	}
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &m) != nil || m.Error == nil {
		return 0
	}
	return m.Error.Code
}

// readEvents delivers each data event of an event stream, and says so
// when the stream of a request ends without the request's answer. It
// returns that answer (nil when none came).
func (t *httpTransport) readEvents(body io.Reader, p peeked) (answer []byte) {
	br := bufio.NewReaderSize(body, 64<<10)
	var (
		data      []byte
		seen      bool // a data field since the last dispatch
		tooLong   bool
		readError error
	)
	dispatch := func() {
		switch {
		case tooLong:
			t.q.push(rawLine{bad: fmt.Sprintf("an event answering %s is over %d bytes", p.what(), t.maxLen)})
		case seen:
			if answer == nil && isAnswerTo(data, p.id) {
				answer = data
			}
			t.q.push(rawLine{b: data})
		}
		data, seen, tooLong = nil, false, false
	}
	for {
		line, long, err := readLine(br, t.maxLen)
		switch {
		case long:
			tooLong = true
		case len(line) == 0:
			dispatch()
		case line[0] == ':': // a comment (keep-alive)
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			if string(field) == "data" {
				if seen {
					data = append(data, '\n')
				}
				data = append(data, bytes.TrimPrefix(value, []byte(" "))...)
				seen = true
				tooLong = tooLong || len(data) > t.maxLen
			}
		}
		if err != nil {
			readError = err
			break
		}
	}
	dispatch()
	if p.request() && answer == nil && t.ctx.Err() == nil {
		t.q.push(rawLine{bad: fmt.Sprintf("the event stream answering %s ended without its answer (%v)", p.what(), readError)})
	}
	return answer
}

// isAnswerTo reports whether data is the response to the request id.
func isAnswerTo(data []byte, id json.RawMessage) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return id != nil && json.Unmarshal(data, &m) == nil && m.Method == "" && sameID(m.ID, id)
}

func (t *httpTransport) stop()                 { t.cancel() }
func (t *httpTransport) done() <-chan struct{} { return nil }
func (t *httpTransport) endNote() string       { return "" }
func (t *httpTransport) stderrNote() string    { return "" }

// release waits for the event streams, which end with the context, and
// ends a session a stateful server minted.
func (t *httpTransport) release() {
	t.cancel()
	t.wg.Wait()
	if t.session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(t.timeout, endSessionWait))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, t.url, nil)
	if err != nil {
		return
	}
	req.Header.Set(headerSessionID, t.session)
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	if resp, err := t.client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// endSessionWait bounds the DELETE that ends a minted session.
const endSessionWait = 2 * time.Second

// maxQueued bounds the messages received and not yet read by the conn;
// past it new ones are dropped (a server flooding an event stream cannot
// grow the harness's memory without bound).
const maxQueued = 4096

// lineQueue hands messages to the conn in the order received without
// ever blocking the sender: the conn's own goroutine sends requests and
// may not be reading at that moment.
type lineQueue struct {
	mu    sync.Mutex
	items []rawLine
	wake  chan struct{} // capacity 1
	out   chan<- rawLine
	quit  <-chan struct{}
}

func (q *lineQueue) push(l rawLine) {
	q.mu.Lock()
	if len(q.items) < maxQueued {
		q.items = append(q.items, l)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pump feeds out until quit is closed.
func (q *lineQueue) pump() {
	for {
		q.mu.Lock()
		if len(q.items) == 0 {
			q.mu.Unlock()
			select {
			case <-q.wake:
				continue
			case <-q.quit:
				return
			}
		}
		l := q.items[0]
		q.items[0] = rawLine{}
		q.items = q.items[1:]
		q.mu.Unlock()
		select {
		case q.out <- l:
		case <-q.quit:
			return
		}
	}
}

// exchange is one POST as the status check judges it.
type exchange struct {
	peeked
	status  int
	code    int  // the answer's JSON-RPC error code, 0 when none
	empty   bool // no body
	notJSON bool // a body that is not JSON (judged by the check that waited)
	stream  bool // answered as an event stream
}

// httpLog collects the run's exchanges for http/status-codes. Safe for
// concurrent use.
type httpLog struct {
	mu   sync.Mutex
	list []exchange
}

// maxLogged bounds the exchanges remembered.
const maxLogged = 10000

func (l *httpLog) add(x exchange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.list) < maxLogged {
		l.list = append(l.list, x)
	}
}

func (l *httpLog) all() []exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]exchange(nil), l.list...)
}
