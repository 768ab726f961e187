package skillsync

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// fake is a skills server for the tests, in the shapes sync discovers
// (docs/sync.md §2): the skills extension ("ext"), skill resources with
// a _manifest ("manifest"), or skill://<name> resources alone ("alias").
// It answers over HTTP (serveHTTP) or stdio (serveStdio, in a child
// process: see TestMain).
type fake struct {
	mu  sync.Mutex
	cfg fakeConfig
	// reads counts resources/read requests; methods every method asked.
	reads   int
	methods []string
	// block, when set, is waited on by every resources/read past
	// cfg.BlockAfter reads (a server stalled mid-transfer); waiting
	// counts those waiting, and sig is signalled as each starts to.
	block   chan struct{}
	waiting int
	sig     chan struct{}
	// lastURL is where serveHTTP serves it.
	lastURL string
}

type fakeConfig struct {
	Mode   string `json:"mode"`
	Modern bool   `json:"modern"`
	// Skills: name → file path → content.
	Skills map[string]map[string]string `json:"skills"`
	// Lie lists a digest instead of the real one, by file URI.
	Lie map[string]string `json:"lie,omitempty"`
	// SizeLie lists a size instead of the real one, by file URI.
	SizeLie map[string]int `json:"sizeLie,omitempty"`
	// Hidden skills are served but left out of every listing.
	Hidden map[string]bool `json:"hidden,omitempty"`
	// Entries are raw skills/list entries added to the first page;
	// Resources raw resources/list entries.
	Entries   []json.RawMessage `json:"entries,omitempty"`
	Resources []json.RawMessage `json:"resources,omitempty"`
	// Dynamic lists files as "dynamic" in skills/list.
	Dynamic bool `json:"dynamic,omitempty"`
	// FailAfter > 0 makes every resources/read after that many an
	// internal error (a server that died mid-transfer); BlockAfter > 0
	// makes them wait on fake.block.
	FailAfter  int `json:"failAfter,omitempty"`
	BlockAfter int `json:"blockAfter,omitempty"`
	// Expire makes the next requests that carry a cursor fail with
	// -32602, as a server that changed between two pages answers.
	Expire int `json:"expire,omitempty"`
	// PageSize is the skills per listing page (default 3).
	PageSize int `json:"pageSize,omitempty"`
}

func newFake(mode string, skills map[string]map[string]string) *fake {
	return &fake{cfg: fakeConfig{Mode: mode, Modern: true, Skills: skills}, sig: make(chan struct{}, 1)}
}

// stalled is how many reads wait on block.
func (f *fake) stalled() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting
}

func (f *fake) readSignal() <-chan struct{} { return f.sig }

// set changes the configuration under the lock.
func (f *fake) set(fn func(c *fakeConfig)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(&f.cfg)
}

func (f *fake) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, m := range f.methods {
		if m == method {
			n++
		}
	}
	return n
}

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func fileURI(name, p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "skill://" + name + "/" + strings.Join(segs, "/")
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// names is the listed skills, sorted.
func (c *fakeConfig) names() []string {
	var out []string
	for n := range c.Skills {
		if !c.Hidden[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// paths is a skill's files, SKILL.md first.
func paths(files map[string]string) []string {
	var out []string
	for p := range files {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "SKILL.md":
			return -1
		case b == "SKILL.md":
			return 1
		}
		return strings.Compare(a, b)
	})
	return out
}

func (c *fakeConfig) entry(name string) map[string]any {
	files := c.Skills[name]
	var res []any
	for _, p := range paths(files) {
		uri := fileURI(name, p)
		d := sha(files[p])
		if l, ok := c.Lie[uri]; ok {
			d = l
		}
		n := len(files[p])
		if l, ok := c.SizeLie[uri]; ok {
			n = l
		}
		res = append(res, map[string]any{"uri": uri, "digest": d, "size": n})
	}
	e := map[string]any{"uri": fileURI(name, "SKILL.md"), "frontmatter": map[string]any{"name": name, "description": "The " + name + " skill."}, "resources": res}
	if c.Dynamic {
		e["resources"] = "dynamic"
	}
	return e
}

// handle answers one request.
func (f *fake) handle(method string, params json.RawMessage) (any, *rpcErr) {
	f.mu.Lock()
	f.methods = append(f.methods, method)
	c := f.cfg
	f.mu.Unlock()
	var p struct {
		URI    string `json:"uri"`
		Cursor string `json:"cursor"`
	}
	json.Unmarshal(params, &p)
	if p.Cursor != "" && c.Expire > 0 {
		f.mu.Lock()
		f.cfg.Expire--
		f.mu.Unlock()
		return nil, &rpcErr{-32602, "Invalid params: unknown cursor"}
	}
	size := c.PageSize
	if size == 0 {
		size = 3
	}
	switch method {
	case "server/discover":
		if !c.Modern {
			return nil, &rpcErr{-32601, "Method not found"}
		}
		return map[string]any{"supportedVersions": []string{"2026-07-28"}, "capabilities": c.capabilities(), "_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "fake", "version": "1"}}}, nil
	case "initialize":
		return map[string]any{"protocolVersion": "2025-11-25", "capabilities": c.capabilities(), "serverInfo": map[string]any{"name": "fake", "version": "1"}}, nil
	case "skills/list":
		if c.Mode != "ext" {
			return nil, &rpcErr{-32601, "Method not found"}
		}
		names := c.names()
		start := 0
		fmt.Sscanf(p.Cursor, "%d", &start)
		end := min(start+size, len(names))
		var skills []any
		if start == 0 {
			for _, e := range c.Entries {
				skills = append(skills, e)
			}
		}
		for _, n := range names[start:end] {
			skills = append(skills, c.entry(n))
		}
		res := map[string]any{"skills": skills}
		if end < len(names) {
			res["nextCursor"] = fmt.Sprint(end)
		}
		return res, nil
	case "skills/get":
		name, ok := strings.CutSuffix(strings.TrimPrefix(p.URI, "skill://"), "/SKILL.md")
		if _, served := c.Skills[name]; !ok || !served || c.Mode != "ext" {
			return nil, &rpcErr{-32602, "No skill is served at " + p.URI}
		}
		return map[string]any{"skill": c.entry(name)}, nil
	case "resources/list":
		all := c.resourcesList()
		start := 0
		fmt.Sscanf(p.Cursor, "%d", &start)
		end := min(start+2*size, len(all))
		res := map[string]any{"resources": all[start:end]}
		if end < len(all) {
			res["nextCursor"] = fmt.Sprint(end)
		}
		return res, nil
	case "resources/read":
		return f.read(c, p.URI)
	case "resources/directory/read":
		return c.directory(p.URI)
	case "resources/subscribe":
		return map[string]any{}, nil
	}
	return nil, &rpcErr{-32601, "Method not found: " + method}
}

func (c *fakeConfig) capabilities() map[string]any {
	caps := map[string]any{"resources": map[string]any{"subscribe": true, "listChanged": true}}
	if c.Mode == "ext" {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/skills": map[string]any{"directoryRead": true}}
	}
	return caps
}

func (c *fakeConfig) resourcesList() []any {
	var out []any
	for _, r := range c.Resources {
		out = append(out, r)
	}
	for _, n := range c.names() {
		switch c.Mode {
		case "alias":
			out = append(out, map[string]any{"uri": "skill://" + n, "name": n, "mimeType": "text/markdown"})
		default:
			out = append(out, map[string]any{"uri": fileURI(n, "SKILL.md"), "name": n, "mimeType": "text/markdown"})
			if c.Mode == "manifest" {
				out = append(out, map[string]any{"uri": fileURI(n, "_manifest"), "name": n + "-manifest", "mimeType": "application/json"})
			}
		}
	}
	return out
}

func (f *fake) read(c fakeConfig, uri string) (any, *rpcErr) {
	f.mu.Lock()
	f.reads++
	n := f.reads
	block := f.block
	f.mu.Unlock()
	if c.FailAfter > 0 && n > c.FailAfter {
		return nil, &rpcErr{-32603, "internal error: the server is going away"}
	}
	if c.BlockAfter > 0 && n > c.BlockAfter && block != nil {
		f.mu.Lock()
		f.waiting++
		f.mu.Unlock()
		select {
		case f.sig <- struct{}{}:
		default:
		}
		<-block
	}
	rest := strings.TrimPrefix(uri, "skill://")
	name, p, _ := strings.Cut(rest, "/")
	files, ok := c.Skills[name]
	if !ok {
		return nil, &rpcErr{-32602, "unknown resource " + uri}
	}
	if p == "" && c.Mode == "alias" {
		p = "SKILL.md"
	}
	if p == "_manifest" && c.Mode == "manifest" {
		var list []any
		for _, fp := range paths(files) {
			h := sha(files[fp])
			if l, ok := c.Lie[fileURI(name, fp)]; ok {
				h = l
			}
			n := len(files[fp])
			if l, ok := c.SizeLie[fileURI(name, fp)]; ok {
				n = l
			}
			list = append(list, map[string]any{"path": fp, "size": n, "hash": h})
		}
		b, _ := json.Marshal(map[string]any{"skill": name, "files": list})
		return contents(uri, string(b)), nil
	}
	dec, err := url.PathUnescape(p)
	data, ok := files[dec]
	if err != nil || !ok {
		return nil, &rpcErr{-32602, "unknown resource " + uri}
	}
	return contents(uri, data), nil
}

func contents(uri, data string) any {
	c := map[string]any{"uri": uri}
	if utf8.ValidString(data) {
		c["text"] = data
	} else {
		c["blob"] = base64.StdEncoding.EncodeToString([]byte(data))
	}
	return map[string]any{"contents": []any{c}}
}

func (c *fakeConfig) directory(uri string) (any, *rpcErr) {
	rest := strings.TrimPrefix(uri, "skill://")
	name, dir, _ := strings.Cut(rest, "/")
	files, ok := c.Skills[name]
	if !ok {
		return nil, &rpcErr{-32602, "no directory " + uri}
	}
	var out []any
	seen := map[string]bool{}
	for _, p := range paths(files) {
		sub, ok := strings.CutPrefix(p, dir)
		if dir != "" {
			if !ok || !strings.HasPrefix(sub, "/") {
				continue
			}
			sub = sub[1:]
		}
		head, _, isDir := strings.Cut(sub, "/")
		child := head
		if dir != "" {
			child = dir + "/" + head
		}
		if seen[child] {
			continue
		}
		seen[child] = true
		if isDir {
			out = append(out, map[string]any{"uri": fileURI(name, child), "name": head, "mimeType": "inode/directory"})
		} else {
			out = append(out, map[string]any{"uri": fileURI(name, child), "name": head, "size": len(files[child])})
		}
	}
	return map[string]any{"resources": out}, nil
}

type wireMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

func (f *fake) answer(m wireMsg) []byte {
	res, e := f.handle(m.Method, m.Params)
	out := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if e != nil {
		out["error"] = e
	} else {
		out["result"] = res
	}
	b, _ := json.Marshal(out)
	return b
}

// newHTTPServer serves h until the test ends; it returns the base URL.
func newHTTPServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// serveHTTP starts the fake as a Streamable HTTP server.
func (f *fake) serveHTTP(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m, ok := readCall(w, r)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(f.answer(m))
	}))
	t.Cleanup(func() {
		f.unblock()
		srv.Close()
	})
	f.mu.Lock()
	f.lastURL = srv.URL + "/mcp"
	f.mu.Unlock()
	return srv.URL + "/mcp"
}

// unblock lets stalled reads go on.
func (f *fake) unblock() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.block != nil {
		close(f.block)
		f.block = nil
	}
}

// serveStdio answers newline-delimited messages from r on w until r
// ends; notify, when signalled, sends list_changed.
func (f *fake) serveStdio(r io.Reader, w io.Writer, notify <-chan struct{}) {
	var mu sync.Mutex
	write := func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		w.Write(append(b, '\n'))
	}
	go func() {
		for range notify {
			write([]byte(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`))
		}
	}()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m wireMsg
		if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 || m.Method == "" {
			continue
		}
		write(f.answer(m))
	}
}

// readCall reads one JSON-RPC message a fake HTTP server was posted: a
// request comes back to be answered; bad JSON gets 400 and a
// notification 202 here, and ok is false.
func readCall(w http.ResponseWriter, r *http.Request) (m wireMsg, ok bool) {
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return m, false
	}
	if len(m.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return m, false
	}
	return m, true
}
