package mcpclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/agent3md/agent3md/internal/filekind"
	"github.com/agent3md/agent3md/internal/textclip"
)

// HTTP header names of Streamable HTTP (docs/protocol.md §12).
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderSessionID       = "Mcp-Session-Id"
)

// The header values every POST carries (never modified).
var (
	contentJSON = []string{"application/json"}
	acceptBoth  = []string{"application/json, text/event-stream"}
)

// endSessionWait bounds the DELETE that ends a minted session.
const endSessionWait = 2 * time.Second

// NoAnswerError is a request whose HTTP answer did not come before its
// context ended.
type NoAnswerError struct {
	// What names the POST: "POST ping (id 1)".
	What string
}

func (e *NoAnswerError) Error() string { return "no answer to " + e.What + " in time" }

// Dial returns a Conn whose messages are POSTed to the Streamable HTTP
// endpoint at rawURL (docs/protocol.md §12): each message is one POST; a
// JSON answer is one message, an event-stream answer one message per data
// event. Nothing is sent until the first message.
func Dial(rawURL string, o *Options) (*Conn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("server URL %q: %w", rawURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server URL %q: want an absolute http:// or https:// URL, e.g. https://host:8765/mcp", rawURL)
	}
	c := newConn(o)
	ctx, cancel := context.WithCancel(context.Background())
	t := &httpTransport{c: c, client: c.o.HTTPClient, url: rawURL, ctx: ctx, cancel: cancel, version: c.o.ProtocolVersion,
		tails: make(chan struct{}, maxTails)}
	if t.client == nil {
		t.client = &http.Client{}
	}
	c.t, c.perPOST = t, true
	return c, nil
}

// ErrNoCertificate is HTTPClientWithCA's error for PEM data that holds no
// certificate.
var ErrNoCertificate = errors.New("no PEM certificate found (want -----BEGIN CERTIFICATE----- blocks)")

// HTTPClientWithCA is an HTTP client that trusts the PEM certificates in
// pem beside the system's roots (a private or test CA). There is no way
// to skip verification.
func HTTPClientWithCA(pem []byte) (*http.Client, error) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, ErrNoCertificate
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}, nil
}

// MaxCAFileBytes bounds the CA file HTTPClientWithCAFile reads: a chain of
// a few certificates is a few KiB.
const MaxCAFileBytes = 1 << 20

// HTTPClientWithCAFile is HTTPClientWithCA with the PEM certificates of
// the file at path. Only a regular file is read, opened without blocking
// (filekind.Open): a plain open of a named pipe waits for a writer for
// ever. A file over MaxCAFileBytes is refused, not read whole: it is not
// a CA bundle. A file that holds no certificate is ErrNoCertificate as it
// is; the caller names the file. (agent3md's --ca-file reads the file
// with httpd.ReadCAFile, which also bounds the time a read may take.)
func HTTPClientWithCAFile(path string) (*http.Client, error) {
	f, err := filekind.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxCAFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxCAFileBytes {
		return nil, fmt.Errorf("%s: over %d bytes; is it the right file?", path, MaxCAFileBytes)
	}
	return HTTPClientWithCA(data)
}

// httpTransport speaks Streamable HTTP. Its state is the revision
// initialize negotiated, which handshake-era clients send in
// MCP-Protocol-Version on every later request, and, only when a server
// mints one anyway, its session id: echoed as the specification requires
// of clients, and ended with DELETE on Close.
type httpTransport struct {
	c      *Conn
	client *http.Client
	url    string
	ctx    context.Context // ends every open request on stop
	cancel context.CancelFunc
	wg     sync.WaitGroup // event streams being read
	tails  chan struct{}  // streams read past their answer (awaitEnd)

	mu      sync.Mutex
	version string // MCP-Protocol-Version for handshake-era requests
	session string // Mcp-Session-Id minted by initialize; "" when none
}

// send POSTs each message in turn. An event-stream answer is read in the
// background; a JSON answer is read here, so the messages reach the
// server in the order sent.
func (t *httpTransport) send(ctx context.Context, lines [][]byte, ps []*Pending) error {
	for i, b := range lines {
		if err := t.post(ctx, b, ps[i]); err != nil {
			return err
		}
	}
	return nil
}

// post sends one message; ctx bounds it up to the answer's headers, and
// for a JSON answer (or initialize's event stream) its body too.
func (t *httpTransport) post(ctx context.Context, b []byte, p *Pending) error {
	out := ParseOutgoing(b)
	reqCtx, cancel := context.WithCancel(t.ctx)
	stop := context.AfterFunc(ctx, cancel)
	noAnswer := func() error {
		if t.ctx.Err() != nil {
			return fmt.Errorf("%w: %s was cancelled", ErrClosed, out.What())
		}
		return &NoAnswerError{What: out.What()}
	}
	req, err := t.newRequest(reqCtx, b, out)
	if err != nil {
		stop()
		cancel()
		return err
	}
	resp, err := t.client.Do(req)
	if err != nil {
		if !stop() || t.ctx.Err() != nil {
			cancel()
			return noAnswer()
		}
		cancel()
		return fmt.Errorf("%s: %w", out.What(), err) // err names the URL, password stripped
	}
	if out.IsInitialize() && resp.StatusCode == http.StatusOK {
		t.setSession(resp.Header.Get(HeaderSessionID))
	}
	if mediaType(resp) == "text/event-stream" && resp.StatusCode == http.StatusOK {
		t.exchange(Exchange{Outgoing: out, Status: resp.StatusCode, Stream: true})
		if out.IsInitialize() {
			// Read here: later requests need the revision it negotiates.
			defer cancel()
			defer resp.Body.Close()
			answer := t.readEvents(reqCtx, resp.Body, out, p)
			if !stop() {
				return noAnswer()
			}
			if answer != nil {
				t.awaitEnd(resp.Body, cancel)
			}
			t.learnVersion(answer)
			return nil
		}
		if !stop() {
			resp.Body.Close()
			cancel()
			return noAnswer()
		}
		if p != nil {
			p.stream, p.status = cancel, resp.StatusCode
		}
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			defer cancel()
			defer resp.Body.Close()
			if t.readEvents(reqCtx, resp.Body, out, p) != nil {
				t.awaitEnd(resp.Body, cancel)
			}
		}()
		return nil
	}
	body, tooLong, err := readBody(resp.Body, t.c.o.MaxLineBytes)
	resp.Body.Close()
	at := time.Now()
	fired := !stop()
	cancel()
	if fired {
		return noAnswer()
	}
	if err != nil {
		return fmt.Errorf("reading the answer to %s: %w", out.What(), err)
	}
	t.deliver(resp, out, body, tooLong, p, at)
	return nil
}

// A stream is read past its answer only to see it end: a server that
// ends it at once (as it should: nothing may follow the answer) leaves
// the connection fit for the next request, which matters over TLS and
// against servers that answer every request as a stream; one that holds
// it open is cut off after streamGrace. At most maxTails streams wait so
// at once, and any more are closed at their answer: a server that holds
// every stream costs at most that many descriptors beyond the requests
// in flight, whatever its pace.
const (
	streamGrace     = 50 * time.Millisecond
	streamTailBytes = 64 << 10
	maxTails        = 32
)

// awaitEnd reads what follows an answer on its stream, up to
// streamTailBytes and for at most streamGrace (then cancel ends the
// request, and with it the read), and drops it; with maxTails streams
// already waiting, it returns at once.
func (t *httpTransport) awaitEnd(body io.Reader, cancel context.CancelFunc) {
	select {
	case t.tails <- struct{}{}:
		defer func() { <-t.tails }()
	default:
		return
	}
	timer := time.AfterFunc(streamGrace, cancel)
	defer timer.Stop()
	io.Copy(io.Discard, io.LimitReader(body, streamTailBytes))
}

// newRequest is the POST of b with the headers its era wants.
func (t *httpTransport) newRequest(ctx context.Context, b []byte, out Outgoing) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("build the %s: %w", out.What(), err)
	}
	// Canonical keys, assigned: no canonicalization per request.
	req.Header["Content-Type"] = contentJSON
	req.Header["Accept"] = acceptBoth
	if t.c.o.Token != "" {
		req.Header["Authorization"] = []string{"Bearer " + t.c.o.Token}
	}
	t.mu.Lock()
	version, session := t.version, t.session
	t.mu.Unlock()
	switch {
	case out.Modern != "":
		req.Header.Set(HeaderProtocolVersion, HeaderSafe(out.Modern))
		if out.IsRequest() {
			req.Header.Set(HeaderMethod, HeaderSafe(out.Method))
			if out.Name != "" {
				req.Header.Set(HeaderName, HeaderSafe(out.Name))
			}
		}
	case version != "":
		req.Header.Set(HeaderProtocolVersion, version)
	}
	if session != "" {
		req.Header.Set(HeaderSessionID, session)
	}
	return req, nil
}

// HeaderSafe is v as a header value: as it is when it is printable ASCII
// without edge spaces, else in the =?base64?…?= form servers decode.
func HeaderSafe(v string) string {
	plain := v != "" && v[0] != ' ' && v[len(v)-1] != ' '
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] < 0x7f
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
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

// deliver dispatches a JSON answer, or fails the request with why the answer
// is not one. An empty answer to a notification or a response is what
// the transport expects (202); anything the server says about such a
// message is dispatched only when it is JSON (an error about a malformed
// message).
func (t *httpTransport) deliver(resp *http.Response, out Outgoing, body []byte, tooLong bool, p *Pending, at time.Time) {
	status := resp.StatusCode
	if p != nil {
		p.status = status
	}
	// A body that reads as a message is dispatched, and its waiter decodes it;
	// whether other bytes are JSON at all is asked only to say what they
	// are (and for OnExchange, which wants to know exactly).
	isJSON := len(body) > 0 && !tooLong
	if _, err := peekEnvelope(body); isJSON && (err != nil || t.c.o.OnExchange != nil) {
		isJSON = json.Valid(body)
	}
	if t.c.o.OnExchange != nil {
		t.exchange(Exchange{Outgoing: out, Status: status, ErrorCode: ErrorCode(body), Empty: len(body) == 0,
			NotJSON: len(body) > 0 && !tooLong && !isJSON})
	}
	needsAnswer := out.IsRequest() || !out.Parsed
	var problem error
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		// A refused notification is left to the next request, refused too.
		if needsAnswer {
			problem = fmt.Errorf("%s answered %s%s", out.What(), resp.Status, t.authHint(status))
		}
	case tooLong:
		problem = fmt.Errorf("the answer to %s is over %d bytes", out.What(), t.c.o.MaxLineBytes)
	case len(body) == 0:
		if needsAnswer {
			problem = fmt.Errorf("%s answered %s with no body; a request needs its JSON-RPC answer", out.What(), resp.Status)
		}
	case isJSON:
		if out.IsInitialize() && status == http.StatusOK {
			t.learnVersion(body)
		}
		t.c.receive(body, at, p)
		if p != nil && out.IsRequest() && !p.isDone() {
			problem = fmt.Errorf("%s answered %s with a message that is not its answer: %s", out.What(), resp.Status, textclip.Bytes(string(body), 120))
		}
	case needsAnswer:
		problem = fmt.Errorf("%s answered %s (Content-Type %q) with something that is not JSON: %s",
			out.What(), resp.Status, resp.Header.Get("Content-Type"), textclip.Bytes(string(body), 120))
	}
	if problem != nil {
		t.c.failWaiting(p, body, refused(status, resp.Status, out.What(), body, problem))
	}
}

// isDone reports whether p's answer is in.
func (p *Pending) isDone() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// authHint explains a 401 or 403 for the detail.
func (t *httpTransport) authHint(status int) string {
	switch {
	case status == http.StatusForbidden:
		return "; the server refused the request (its Origin, Host or the token's scope)"
	case t.c.o.Token == "":
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
		t.mu.Lock()
		t.version = HeaderSafe(m.Result.ProtocolVersion)
		t.mu.Unlock()
	}
}

func (t *httpTransport) setSession(id string) {
	t.mu.Lock()
	t.session = id
	t.mu.Unlock()
}

func (t *httpTransport) exchange(x Exchange) {
	if t.c.o.OnExchange != nil {
		t.c.o.OnExchange(x)
	}
}

// ErrorCode is the JSON-RPC error code of an answer, 0 when it is none.
// A large answer is taken for a result without reading it twice: errors
// are small.
func ErrorCode(body []byte) int {
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

func (t *httpTransport) stop() { t.cancel() }

// release waits for the event streams, which end with the context, and
// ends a session a stateful server minted.
func (t *httpTransport) release() {
	t.cancel()
	t.wg.Wait()
	t.mu.Lock()
	session := t.session
	t.mu.Unlock()
	if session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), endSessionWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, t.url, nil)
	if err != nil {
		return
	}
	req.Header.Set(HeaderSessionID, session)
	if t.c.o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+t.c.o.Token)
	}
	if resp, err := t.client.Do(req); err == nil {
		resp.Body.Close()
	}
}
