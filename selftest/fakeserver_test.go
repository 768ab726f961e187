package selftest_test

// A minimal, hand-written MCP server the tests run as a subprocess (the
// test binary re-executed with fakeEnv set). It shares no code with the
// harness, so it checks the harness against an independent reading of the
// protocol. Variants break one behaviour each.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
)

// fakeEnv switches the test binary into the fake server.
const fakeEnv = "AGENT3MD_SELFTEST_FAKE_SERVER"

// Fake server variants.
const (
	vOK           = "ok"             // correct
	vEcho         = "echo"           // copies its input to its output, like cat
	vLegacyOnly   = "legacy-only"    // no server/discover
	vNoTools      = "no-tools"       // declares no tools capability
	vCrashBadJSON = "crash-bad-json" // exits on a malformed line
	vWrongCodes   = "wrong-codes"    // -32603 for unknown methods, tool error for unknown tools
	vNoExit       = "no-exit"        // ignores EOF on stdin
	vExitStatus   = "exit-status"    // exits 3 on EOF
	vBadOutput    = "bad-output"     // wrong route, get, resolve and fill texts
	vChatty       = "chatty"         // answers notifications
	vHang         = "hang"           // never answers
	vHangTools    = "hang-tools"     // never answers tools/call
	vNoLineBound  = "no-line-bound"  // accepts any line length
	vBigCrash     = "big-crash"      // exits on a line over its bound
	vBigGarbage   = "big-garbage"    // answers a line over its bound with a line that is not JSON
	vBigWrongID   = "big-wrong-id"   // answers a line over its bound with an error for another id
	vBigBadResult = "big-bad-result" // answers a line over its bound with a result that is no ping's
	vBigSilent    = "big-silent"     // drops a line over its bound without a word, and keeps serving
	vDropNull     = "drop-null"      // drops requests with "params": null unanswered, as the TypeScript SDK does
	vOld          = "old-2024"       // offers only 2024-11-05; a missing argument is -32602
	vGeneric      = "generic"        // no agent-3md tools; resources and prompts
	vAsks         = "asks"           // asks roots/list, sampling, elicitation, ping before answering tools/list
	vPaged        = "paged"          // list_skills in pages of two, nextCursor in structuredContent
	vOldShape     = "old-shape"      // list_skills answers {"agent","skills"}
	vSlowStart    = "slow-start"     // the first tools/call takes longer than a timeout, reporting progress meanwhile
	vPartial      = "partial"        // an agent-3md server without route_skill
	vFileIgnored  = "file-ignored"   // get_skill declares file but answers the body whatever it names
)

// slowStartSteps and slowStartStep shape vSlowStart's first tool call:
// longer in all than the test's 1 s timeout, each step well inside it.
const (
	slowStartSteps = 5
	slowStartStep  = 300 * time.Millisecond
)

const fakeMaxLine = 4 << 20

var fakeRevs = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

type fakeInput struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

type fakeSkill struct {
	Name     string      `json:"name"`
	Z        int         `json:"z"`
	Triggers []string    `json:"triggers"`
	Cost     string      `json:"cost,omitempty"`
	Tool     string      `json:"tool,omitempty"`
	Desc     string      `json:"description"`
	Inputs   []fakeInput `json:"inputs"`
	Deps     []string    `json:"deps"`
	body     string
}

var fakeSkills = []fakeSkill{
	// First, so fill checks must look past a skill without a template.
	{Name: "triage", Z: 4, Desc: "Triage an alert.", Triggers: []string{"triage alert"},
		Inputs: []fakeInput{{"alert", "string", true}}, Deps: []string{}, body: "# Triage\n\nLook first."},
	{Name: "deploy", Z: 1, Desc: "Deploy the app.", Triggers: []string{"deploy app", "ship release"},
		Inputs: []fakeInput{{"env", "string", true}, {"replicas", "number", true}, {"dry", "boolean", false}},
		Tool:   "kubectl apply --env {env} --replicas {replicas}", Cost: "net", Deps: []string{"build"},
		body: "# Deploy\n\nShip it after [[z=2|the build]]."},
	{Name: "build", Z: 2, Desc: "Build the binary.", Triggers: []string{"build binary", "compile"},
		Deps: []string{}, body: "# Build\n\nRun the compiler."},
	{Name: "docs", Z: 3, Desc: "Write docs.", Triggers: []string{"write docs"},
		Inputs: []fakeInput{{"topic", "string", false}}, Tool: "mkdocs build {topic}",
		Deps: []string{}, body: "# Docs\n\nWrite them."},
}

type fakeReq struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type fakeServer struct {
	variant string
	out     *bufio.Writer
	// vAsks: the request held until the server's own requests are
	// answered, those requests' methods by id, and whether every answer
	// was right.
	warmed    bool // vSlowStart: the slow first call is over
	held      *fakeReq
	asking    map[string]string
	badAnswer string
}

// serveFake runs the fake server until EOF and returns its exit status.
func serveFake(variant string, in io.Reader, out io.Writer) int {
	s := &fakeServer{variant: variant, out: bufio.NewWriter(out)}
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := fakeReadLine(br, variant != vNoLineBound)
		if tooLong {
			if !s.tooLong() {
				return 2
			}
		} else if len(bytes.TrimSpace(line)) > 0 && variant != vHang {
			if !s.handle(line) {
				return 2
			}
		}
		if err != nil {
			break
		}
	}
	switch variant {
	case vNoExit:
		time.Sleep(time.Hour)
	case vExitStatus:
		return 3
	}
	return 0
}

// fakeReadLine reads one line, discarding the rest of one over fakeMaxLine.
func fakeReadLine(br *bufio.Reader, bounded bool) ([]byte, bool, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if bounded && len(line)+len(chunk) > fakeMaxLine+1 {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// tooLong answers a line over the bound as the variant does; false
// means "crash".
func (s *fakeServer) tooLong() bool {
	switch s.variant {
	case vBigCrash:
		return false
	case vBigGarbage:
		s.out.WriteString("line too long, giving up on it\n")
		s.out.Flush()
	case vBigWrongID:
		s.sendError(json.RawMessage("99"), -32600, "line too long")
	case vBigBadResult:
		s.send(map[string]any{"jsonrpc": "2.0", "id": "selftest-big", "result": "pong"})
	case vBigSilent:
	default:
		s.sendError(nil, -32600, "line too long")
	}
	return true
}

// handle answers one line; false means "crash".
func (s *fakeServer) handle(line []byte) bool {
	var req fakeReq
	if err := json.Unmarshal(line, &req); err != nil {
		if s.variant == vCrashBadJSON {
			return false
		}
		s.sendError(nil, -32700, "Parse error")
		return true
	}
	if req.Method == nil && req.ID != nil && s.asking != nil {
		s.takeAnswer(line)
		return true
	}
	if string(req.Params) == "null" {
		if s.variant == vDropNull {
			return true // the TypeScript SDK's schema check drops it
		}
		s.sendError(req.ID, -32600, "Invalid request: params must be an object or array, or omitted")
		return true
	}
	if req.JSONRPC != "2.0" || req.Method == nil || !validID(req.ID) {
		s.sendError(nil, -32600, "Invalid request")
		return true
	}
	if req.ID == nil {
		if s.variant == vChatty {
			s.sendError(json.RawMessage("null"), -32601, "notification answered")
		}
		return true
	}
	if s.variant == vHangTools && *req.Method == "tools/call" {
		return true
	}
	if s.variant == vSlowStart && *req.Method == "tools/call" && !s.warmed {
		s.warmed = true
		s.reportProgress(req.Params)
	}
	if s.variant == vAsks && *req.Method == "tools/list" && s.asking == nil {
		s.ask(&req)
		return true
	}
	s.answer(&req)
	return true
}

// answer dispatches a request and sends its response.
func (s *fakeServer) answer(req *fakeReq) {
	result, code, msg, data := s.dispatch(*req.Method, req.Params)
	if s.badAnswer != "" {
		result, code, msg = nil, -32603, s.badAnswer
	}
	if code != 0 {
		s.send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": code, "message": msg, "data": data}})
	} else {
		s.send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
}

// reportProgress works slowly on a request, sending a progress
// notification per step when the request carries a progress token.
func (s *fakeServer) reportProgress(params json.RawMessage) {
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	json.Unmarshal(params, &p)
	for i := range slowStartSteps {
		time.Sleep(slowStartStep)
		if p.Meta.Token != nil {
			s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
				"params": map[string]any{"progressToken": p.Meta.Token, "progress": i + 1, "total": slowStartSteps}})
		}
	}
}

// ask holds req and sends the server's own requests, as servers that
// need the client's roots or a model's help do.
func (s *fakeServer) ask(req *fakeReq) {
	s.held = req
	s.asking = map[string]string{}
	for i, m := range []string{"roots/list", "sampling/createMessage", "elicitation/create", "ping"} {
		id := fmt.Sprintf("srv-%d", i)
		s.asking[`"`+id+`"`] = m
		params := map[string]any{}
		if m == "sampling/createMessage" {
			params = map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}, "maxTokens": 10}
		}
		s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": m, "params": params})
	}
}

// takeAnswer records the client's answer to one of the server's
// requests; when all are in, the held request is answered (with an error
// if any answer was wrong).
func (s *fakeServer) takeAnswer(line []byte) {
	var resp struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	json.Unmarshal(line, &resp)
	method, ok := s.asking[string(resp.ID)]
	if !ok {
		s.badAnswer = "answer to an unknown id " + string(resp.ID)
		return
	}
	delete(s.asking, string(resp.ID))
	var roots struct {
		Roots []any `json:"roots"`
	}
	switch {
	case method == "roots/list" && (json.Unmarshal(resp.Result, &roots) != nil || roots.Roots == nil):
		s.badAnswer = "roots/list answer has no roots array"
	case method == "ping" && string(resp.Result) != "{}":
		s.badAnswer = "ping answer is not {}"
	case (method == "sampling/createMessage" || method == "elicitation/create") && (resp.Error == nil || resp.Error.Code != -32601):
		s.badAnswer = method + " should get -32601 from a client without the capability"
	}
	if len(s.asking) == 0 {
		held := s.held
		s.held = nil
		s.answer(held)
		s.badAnswer = ""
	}
}

func validID(id json.RawMessage) bool {
	if id == nil {
		return true
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(id))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return false
	}
	switch v := v.(type) {
	case string:
		return true
	case json.Number:
		_, err := v.Int64()
		return err == nil
	}
	return false
}

func (s *fakeServer) send(v any) {
	b, _ := json.Marshal(v)
	s.out.Write(append(b, '\n'))
	s.out.Flush()
}

func (s *fakeServer) sendError(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

// modernVersion returns the _meta protocol version, or "".
func modernVersion(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(params, &p)
	var v string
	json.Unmarshal(p.Meta["io.modelcontextprotocol/protocolVersion"], &v)
	return v
}

func (s *fakeServer) dispatch(method string, params json.RawMessage) (any, int, string, any) {
	modern := modernVersion(params)
	if modern != "" && modern != "2026-07-28" {
		return nil, -32022, "Unsupported protocol version", map[string]any{"supported": fakeRevs, "requested": modern}
	}
	caps := map[string]any{"tools": map[string]any{}}
	switch s.variant {
	case vNoTools:
		caps = map[string]any{}
	case vGeneric:
		caps["resources"], caps["prompts"] = map[string]any{}, map[string]any{}
	}
	if slices.Contains(skillsVariants, s.variant) {
		skillsCaps(caps)
	}
	switch {
	case method == "initialize" && modern == "":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(params, &p)
		v := "2025-11-25"
		if slices.Contains(fakeRevs[1:], p.ProtocolVersion) {
			v = p.ProtocolVersion
		}
		if s.variant == vOld {
			v = "2024-11-05"
		}
		return map[string]any{"protocolVersion": v, "capabilities": caps,
			"serverInfo": map[string]any{"name": "fake", "version": "0.0.1"}}, 0, "", nil
	case method == "ping" && modern == "":
		return map[string]any{}, 0, "", nil
	case method == "server/discover" && s.variant != vLegacyOnly:
		if modern == "" {
			return nil, -32602, "missing _meta protocolVersion", nil
		}
		return map[string]any{"resultType": "complete", "supportedVersions": fakeRevs, "capabilities": caps,
			"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "fake", "version": "0.0.1"}},
			"ttlMs": 60000, "cacheScope": "public"}, 0, "", nil
	case method == "tools/list":
		tools := fakeTools()
		switch s.variant {
		case vGeneric:
			tools = genericTools()
		case vPartial:
			tools = slices.DeleteFunc(tools, func(t map[string]any) bool { return t["name"] == "route_skill" })
		case vFileIgnored:
			tools[2]["inputSchema"].(map[string]any)["properties"].(map[string]any)["file"] = map[string]any{"type": "string"}
		}
		res := map[string]any{"tools": tools}
		if modern != "" {
			res["resultType"], res["ttlMs"], res["cacheScope"] = "complete", 0, "public"
		}
		return res, 0, "", nil
	case method == "tools/call" && s.variant == vGeneric:
		return callGeneric(params)
	case method == "tools/call":
		return s.callTool(params)
	case s.variant == vGeneric && (strings.HasPrefix(method, "resources/") || strings.HasPrefix(method, "prompts/")):
		return genericMethod(method, params, modern != "")
	case slices.Contains(skillsVariants, s.variant) && (strings.HasPrefix(method, "resources/") ||
		strings.HasPrefix(method, "prompts/") || strings.HasPrefix(method, "skills/") || method == "completion/complete"):
		return s.skillsMethod(method, params, modern != "")
	}
	if s.variant == vWrongCodes {
		return nil, -32603, "internal error", nil
	}
	return nil, -32601, "Method not found: " + method, nil
}

func fakeTools() []map[string]any {
	obj := func(props map[string]any, req ...string) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": req}
	}
	str := map[string]any{"type": "string"}
	return []map[string]any{
		{"name": "list_skills", "inputSchema": obj(map[string]any{})},
		{"name": "route_skill", "inputSchema": obj(map[string]any{"text": str}, "text")},
		{"name": "get_skill", "inputSchema": obj(map[string]any{"name": str}, "name")},
		{"name": "resolve_skill", "inputSchema": obj(map[string]any{"name": str}, "name")},
		{"name": "fill_skill", "inputSchema": obj(map[string]any{"name": str,
			"values": map[string]any{"type": "object", "additionalProperties": str}}, "name")},
	}
}

func toolText(text string, isError bool) (any, int, string, any) {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": isError}, 0, "", nil
}

func (s *fakeServer) callTool(params json.RawMessage) (any, int, string, any) {
	var p struct {
		Name      string `json:"name"`
		Arguments struct {
			Name   *string           `json:"name"`
			Text   string            `json:"text"`
			Values map[string]string `json:"values"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, -32602, "bad params: " + err.Error(), nil
	}
	a := p.Arguments
	var sk *fakeSkill
	if a.Name != nil {
		if i := slices.IndexFunc(fakeSkills, func(s fakeSkill) bool { return s.Name == *a.Name }); i >= 0 {
			sk = &fakeSkills[i]
		}
	}
	switch p.Name {
	case "list_skills":
		return s.listSkills(params)
	case "route_skill":
		return toolText(s.route(a.Text), false)
	case "get_skill", "resolve_skill", "fill_skill":
		if a.Name == nil && s.variant == vOld {
			return nil, -32602, "missing required argument: name", nil
		}
		if a.Name == nil {
			return toolText("missing required argument: name", true)
		}
		if sk == nil {
			return toolText("Unknown skill: "+*a.Name, true)
		}
	default:
		if s.variant == vWrongCodes {
			return toolText("no such tool", true)
		}
		return nil, -32602, "Unknown tool: " + p.Name, nil
	}
	switch p.Name {
	case "get_skill":
		if s.variant == vBadOutput && sk.Name == "build" {
			return toolText("", false)
		}
		return toolText(sk.body, false)
	case "resolve_skill":
		return toolText(s.resolve(sk), false)
	}
	return toolText(s.fill(sk, a.Values), false)
}

func fakeTokens(s string) map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		out[f] = true
	}
	return out
}

func (s *fakeServer) route(text string) string {
	req := fakeTokens(text)
	type hit struct {
		sk   fakeSkill
		hits []string
	}
	var hits []hit
	for _, sk := range fakeSkills {
		var h []string
		for _, t := range sk.Triggers {
			all := true
			for tok := range fakeTokens(t) {
				all = all && req[tok]
			}
			if all {
				h = append(h, t)
			}
		}
		if len(h) > 0 {
			hits = append(hits, hit{sk, h})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return len(hits[i].hits) > len(hits[j].hits) })
	if len(hits) == 0 || s.variant == vBadOutput {
		return "no skill matched"
	}
	var lines []string
	for _, h := range hits {
		lines = append(lines, fmt.Sprintf("%s  (score %d; matched: %s)", h.sk.Name, len(h.hits), strings.Join(h.hits, ", ")))
	}
	return strings.Join(lines, "\n")
}

func (s *fakeServer) resolve(sk *fakeSkill) string {
	parts := []string{"### " + sk.Name + "\n" + sk.body}
	for _, d := range sk.Deps {
		i := slices.IndexFunc(fakeSkills, func(s fakeSkill) bool { return s.Name == d })
		parts = append(parts, "### "+d+"\n"+fakeSkills[i].body)
	}
	if s.variant == vBadOutput {
		return sk.body
	}
	return strings.Join(parts, "\n\n")
}

func (s *fakeServer) fill(sk *fakeSkill, values map[string]string) string {
	if sk.Tool == "" {
		return "skill " + sk.Name + " has no command template to fill"
	}
	var missing []string
	for _, in := range sk.Inputs {
		if _, ok := values[in.Name]; in.Required && !ok {
			missing = append(missing, in.Name)
		}
	}
	if len(missing) > 0 {
		return "cannot fill " + sk.Name + ": missing " + strings.Join(missing, ", ")
	}
	cmd := sk.Tool
	for k, v := range values {
		q := "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
		if s.variant == vBadOutput {
			q = v
		}
		cmd = strings.ReplaceAll(cmd, "{"+k+"}", q)
	}
	return cmd
}

// fakeArg is the first argument of a fake-server command line; together
// with fakeEnv it keeps other re-executions of the test binary (fuzz
// workers) from turning into the fake.
const fakeArg = "selftest-fake-server"

// runFakeIfAsked turns the test binary into the fake server.
func runFakeIfAsked() {
	if os.Getenv(fakeEnv) != "1" || len(os.Args) < 3 || os.Args[1] != fakeArg {
		return
	}
	if os.Args[2] == vSDK {
		os.Exit(serveSDK())
	}
	if os.Args[2] == vEcho {
		// Not a server: a program that copies its input, as cat does.
		if _, err := io.Copy(os.Stdout, os.Stdin); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(serveFake(os.Args[2], os.Stdin, os.Stdout))
}
