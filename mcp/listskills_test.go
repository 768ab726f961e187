package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/loader"
)

// callTool runs tools/call in process on a 2025-11-25 call and returns the
// result as it goes on the wire (what jsonrpc2 encodes), decoded back.
func callTool(t testing.TB, s *server, name string, args map[string]any) (wire []byte, res wireToolResult) {
	t.Helper()
	rawArgs, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	c := &call{srv: s, version: version20251125, params: map[string]json.RawMessage{
		"name": json.RawMessage(fmt.Sprintf("%q", name)), "arguments": rawArgs,
	}}
	out, err := s.toolsCall(context.Background(), c)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if wire, err = json.Marshal(out); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(wire, &res); err != nil {
		t.Fatal(err)
	}
	return wire, res
}

type wireToolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent struct {
		Skills     []json.RawMessage `json:"skills"`
		Total      int               `json:"total"`
		Matched    int               `json:"matched"`
		NextCursor string            `json:"nextCursor"`
	} `json:"structuredContent"`
	IsError bool `json:"isError"`
}

// objectKeys returns the keys of a JSON object in the order they appear.
func objectKeys(t testing.TB, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %.200s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestListSkillsReferenceArray decodes list_skills' text the way a client
// written for the reference server does: a top-level JSON array whose
// elements start with name, z, triggers, cost and tool, in that order,
// with the reference's values (null cost and tool when absent).
func TestListSkillsReferenceArray(t *testing.T) {
	for _, path := range []string{"testdata/ada.3md", "../examples/devtools.3md", "../examples/oncall.3md"} {
		t.Run(path, func(t *testing.T) {
			a, err := loader.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			s := newServer(&Options{Source: Loaded(a)})
			_, res := callTool(t, s, toolListSkills, map[string]any{})
			if res.IsError || len(res.Content) != 1 {
				t.Fatalf("want one text block for a one-page agent, got %+v", res)
			}
			var arr []json.RawMessage
			if err := json.Unmarshal([]byte(res.Content[0].Text), &arr); err != nil {
				t.Fatalf("text is not a JSON array: %v", err)
			}
			infos := a.Skills()
			if len(arr) != len(infos) || res.StructuredContent.Total != len(infos) || len(res.StructuredContent.Skills) != len(infos) {
				t.Fatalf("%d entries, structured %d of total %d, want %d", len(arr), len(res.StructuredContent.Skills), res.StructuredContent.Total, len(infos))
			}
			for i, raw := range arr {
				if keys := objectKeys(t, raw); strings.Join(keys[:5], ",") != "name,z,triggers,cost,tool" {
					t.Errorf("entry %d keys %v: the reference's five must come first, in order", i, keys)
				}
				var e struct {
					Name     string
					Z        float64
					Triggers []string
					Cost     *string
					Tool     *string
				}
				if err := json.Unmarshal(raw, &e); err != nil {
					t.Fatal(err)
				}
				in := infos[i]
				want := fmt.Sprintf("%s %v %q %v %v", in.Name, in.Z, in.Triggers, in.Cost != "", strings.TrimSpace(in.Tool) != "")
				got := fmt.Sprintf("%s %v %q %v %v", e.Name, e.Z, e.Triggers, e.Cost != nil, e.Tool != nil)
				if got != want {
					t.Errorf("entry %d = %s, want %s", i, got, want)
				}
				if e.Cost != nil && *e.Cost != in.Cost || e.Tool != nil && *e.Tool != strings.TrimSpace(in.Tool) {
					t.Errorf("entry %d: cost %v tool %v, want %q %q", i, e.Cost, e.Tool, in.Cost, in.Tool)
				}
				var fromText, fromStructured any
				_ = json.Unmarshal(raw, &fromText)
				_ = json.Unmarshal(res.StructuredContent.Skills[i], &fromStructured)
				if !reflect.DeepEqual(fromText, fromStructured) {
					t.Errorf("entry %d differs between text and structured content", i)
				}
			}
		})
	}
}

// TestListSkillsPagesLargeAgent pages through a synthetic agent under a
// small answer bound: every answer stays under it, and the pages together
// are the whole catalog once, in order.
func TestListSkillsPagesLargeAgent(t *testing.T) {
	a := openSynth(t, 3000)
	names := a.SkillNames()
	for _, bound := range []int{48 << 10, DefaultMaxAnswerBytes} {
		s := newServer(&Options{Source: Loaded(a), MaxAnswerBytes: bound})
		var got []string
		cursor, pages := "", 0
		for {
			args := map[string]any{"limit": maxListLimit}
			if cursor != "" {
				args["cursor"] = cursor
			}
			wire, res := callTool(t, s, toolListSkills, args)
			if res.IsError {
				t.Fatalf("bound %d page %d: %s", bound, pages, res.Content[0].Text)
			}
			if len(wire) > bound {
				t.Fatalf("bound %d: page %d is %d bytes", bound, pages, len(wire))
			}
			var arr []struct{ Name string }
			if err := json.Unmarshal([]byte(res.Content[0].Text), &arr); err != nil {
				t.Fatal(err)
			}
			for _, e := range arr {
				got = append(got, e.Name)
			}
			if res.StructuredContent.Total != len(names) {
				t.Fatalf("total %d, want %d", res.StructuredContent.Total, len(names))
			}
			pages++
			if cursor = res.StructuredContent.NextCursor; cursor == "" {
				break
			}
			if len(res.Content) != 2 || !strings.Contains(res.Content[1].Text, cursor) {
				t.Fatalf("a page with more to come must say the cursor in a second text block: %+v", res.Content[1:])
			}
		}
		if strings.Join(got, "\n") != strings.Join(names, "\n") {
			t.Fatalf("bound %d: %d pages gave %d skills, want the %d in order", bound, pages, len(got), len(names))
		}
		if wantPages := (len(names) + maxListLimit - 1) / maxListLimit; bound == DefaultMaxAnswerBytes && pages != wantPages {
			t.Errorf("default bound: %d pages of %d, want %d", pages, maxListLimit, wantPages)
		}
		if bound < DefaultMaxAnswerBytes && pages < 10 {
			t.Errorf("bound %d: only %d pages; the byte bound did not cut them", bound, pages)
		}
	}
}

// TestListSkillsDefaultPage: with no arguments a large agent gets the
// default page (what fits a host, TestListSkillsDefaultPageFitsHost), the
// total, and a cursor; the query filter counts every match and pages
// through them.
func TestListSkillsDefaultPage(t *testing.T) {
	a := openSynth(t, 3000)
	s := newServer(&Options{Source: Loaded(a)})
	_, res := callTool(t, s, toolListSkills, map[string]any{})
	if n := len(res.StructuredContent.Skills); n == 0 || n > defaultListLimit || res.StructuredContent.NextCursor == "" || res.StructuredContent.Total != 3000 {
		t.Fatalf("default page: %d skills, total %d, cursor %q", n, res.StructuredContent.Total, res.StructuredContent.NextCursor)
	}
	word := strings.SplitN(a.SkillNames()[7], "-", 2)[0]
	want := 0
	for _, in := range a.Skills() {
		hit := strings.Contains(in.Name, word)
		for _, tr := range in.Triggers {
			hit = hit || strings.Contains(strings.ToLower(tr), word)
		}
		if hit {
			want++
		}
	}
	seen, cursor := 0, ""
	for {
		args := map[string]any{"query": strings.ToUpper(word), "limit": 7}
		if cursor != "" {
			args["cursor"] = cursor
		}
		_, res := callTool(t, s, toolListSkills, args)
		if res.IsError || res.StructuredContent.Matched != want {
			t.Fatalf("query %q: matched %d, want %d (%+v)", word, res.StructuredContent.Matched, want, res.Content)
		}
		seen += len(res.StructuredContent.Skills)
		if cursor = res.StructuredContent.NextCursor; cursor == "" {
			break
		}
	}
	if seen != want || want < 2 {
		t.Fatalf("query %q: pages held %d skills, want %d (at least 2)", word, seen, want)
	}
}

// TestListSkillsAllocatesPerPage: a page costs about its own size, not the
// catalog's: the catalog is neither copied nor encoded whole per call.
func TestListSkillsAllocatesPerPage(t *testing.T) {
	a := openSynth(t, 20000)
	s := newServer(&Options{Source: Loaded(a)})
	wire, _ := callTool(t, s, toolListSkills, map[string]any{"limit": 10}) // warm up
	catalogBytes := 0
	for _, in := range a.Skills() {
		catalogBytes += len(in.Name) + len(in.Description) + len(in.Tool) + 64
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const calls = 20
	for range calls {
		callTool(t, s, toolListSkills, map[string]any{"limit": 10, "query": "report"})
	}
	runtime.ReadMemStats(&after)
	perCall := int(after.TotalAlloc-before.TotalAlloc) / calls
	t.Logf("one 10-skill page with a query over %d skills allocates %d bytes; the answer is %d bytes", a.Snapshot().Len(), perCall, len(wire))
	if perCall > 20*len(wire)+64<<10 || perCall > catalogBytes/4 {
		t.Fatalf("one 10-skill page allocates %d bytes (answer %d bytes, catalog about %d bytes)", perCall, len(wire), catalogBytes)
	}
}

// TestAnswerBound: an answer that would pass the bound is a tool error
// that says what to do instead; list_skills names the skill too large for
// any page and the cursor past it.
func TestAnswerBound(t *testing.T) {
	a := openAda(t)
	s := newServer(&Options{Source: Loaded(a), MaxAnswerBytes: 700})
	wire, res := callTool(t, s, toolListSkills, map[string]any{"cursor": encodeListCursor(1, mustListRequest(t, a).fp)})
	if !res.IsError || !strings.Contains(res.Content[0].Text, `skill "commit" alone makes a list_skills answer`) || !strings.Contains(res.Content[0].Text, "700-byte bound") {
		t.Errorf("list_skills: %s", wire)
	}
	for _, tt := range []struct {
		bound int
		want  []string // the text blocks
	}{
		// The whole chain fits.
		{700, []string{"### commit\n", "### search\n", "### style\n"}},
		// Only the requested skill and a note naming the rest fit.
		{600, []string{"### commit\n", "Left out to keep this answer under 40000 characters: 2 of the 3 skills of this chain, in order: search, style."}},
	} {
		s := newServer(&Options{Source: Loaded(a), MaxAnswerBytes: tt.bound})
		wire, res := callTool(t, s, toolResolveSkill, map[string]any{"name": "commit"})
		got := ""
		for _, c := range res.Content {
			got += c.Text + "\n"
		}
		for _, w := range tt.want {
			if res.IsError || !strings.Contains(got, w) {
				t.Errorf("resolve_skill under %d bytes: want %q in %s", tt.bound, w, wire)
			}
		}
		if len(wire) > tt.bound {
			t.Errorf("resolve_skill under %d bytes answered %d", tt.bound, len(wire))
		}
	}
	tiny := newServer(&Options{Source: Loaded(a), MaxAnswerBytes: 250})
	wire, res = callTool(t, tiny, toolResolveSkill, map[string]any{"name": "commit"})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "load these skills with get_skill instead, one per call, in this order: commit, search, style") {
		t.Errorf("resolve_skill when not even its first skill and the note fit: %s", wire)
	}
	tiny = newServer(&Options{Source: Loaded(a), MaxAnswerBytes: 100})
	wire, res = callTool(t, tiny, toolGetSkill, map[string]any{"name": "search"})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "get_skill's answer would be") || !strings.Contains(res.Content[0].Text, "body is too large") {
		t.Errorf("get_skill over the bound: %s", wire)
	}
}

func mustListRequest(t *testing.T, a *loader.Agent) *listRequest {
	req, problem := parseListRequest(a.Snapshot(), &listSkillsInput{})
	if problem != "" {
		t.Fatal(problem)
	}
	return req
}

// TestEncodedStringLen: list_skills' size estimate never undercounts what
// encoding/json writes.
func TestEncodedStringLen(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\`, "<a>&\n\t\x01", "é€😀", "\u2028\u2029", "bad\xff\xfe", strings.Repeat("x<", 50)} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		inner := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		again, _ := json.Marshal(string(inner))
		if got := encodedStringLen(inner); got < len(again) {
			t.Errorf("encodedStringLen(%s) = %d, encoding/json writes %d", inner, got, len(again))
		}
	}
}

// TestToolDescriptionsBounded: on a large agent tools/list stays small, no
// description invites an unbounded call, and fill_skill's values lists the
// inputs of the skills that fit, then says where the others' are; on a
// small agent it lists every skill's inputs.
func TestToolDescriptionsBounded(t *testing.T) {
	for _, n := range []int{4, 3000} {
		a := openSized(t, n)
		s := newServer(&Options{Source: Loaded(a)})
		res, err := s.toolsList(context.Background(), &call{srv: s, version: version20251125, params: map[string]json.RawMessage{}})
		if err != nil {
			t.Fatal(err)
		}
		wire, _ := json.Marshal(res)
		if len(wire) > 16<<10 {
			t.Errorf("%d skills: tools/list is %d bytes", n, len(wire))
		}
		var values string
		for _, tool := range res.(*toolsListResult).Tools {
			if strings.Contains(tool.Description, "call list_skills.") || strings.Contains(tool.Description, "see them all") {
				t.Errorf("%d skills: %s's description invites listing everything: %q", n, tool.Name, tool.Description)
			}
			if tool.Name == toolFillSkill {
				values = tool.InputSchema["properties"].(map[string]any)["values"].(map[string]any)["description"].(string)
			}
		}
		snap := a.Snapshot()
		listed, withTool := 0, 0
		for i := 0; i < snap.Len(); i++ {
			if sk := snap.Skill(i); sk.HasTool && strings.TrimSpace(sk.Tool) != "" {
				withTool++
				if strings.Contains(values, skillInputs(sk)) {
					listed++
				}
			}
		}
		switch {
		case len(values) > maxFillInputsBytes+400:
			t.Errorf("%d skills: values description is %d bytes", n, len(values))
		case n == 4 && (listed != withTool || withTool == 0):
			t.Errorf("small agent: %d of %d skills' inputs listed: %q", listed, withTool, values)
		case n > 4 && (listed == 0 || !strings.Contains(values, fmt.Sprintf("and %d more skills with commands", withTool-listed))):
			t.Errorf("large agent: %d of %d listed, and the rest not pointed at: %q", listed, withTool, values)
		}
	}
}

// TestListSkillsQueryBound: every query word is matched against every
// skill, so a query past maxQueryWords words (or its byte allowance) is a
// tool error pointing at route_skill, answered without scanning.
func TestListSkillsQueryBound(t *testing.T) {
	s := newServer(&Options{Source: Loaded(openAda(t))})
	for _, tt := range []struct {
		name, query, want string
		refused           bool
	}{
		{"at the bound", strings.TrimSpace(strings.Repeat("a ", maxQueryWords)), "", false},
		{"one word over", strings.TrimSpace(strings.Repeat("a ", maxQueryWords+1)), "words", true},
		{"huge", strings.Repeat("x", 1<<20), "bytes", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wire, _ := callTool(t, s, toolListSkills, map[string]any{"query": tt.query})
			var res struct {
				IsError bool
				Content []struct{ Text string }
			}
			if err := json.Unmarshal(wire, &res); err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.refused || (tt.refused && (!strings.Contains(res.Content[0].Text, tt.want) || !strings.Contains(res.Content[0].Text, "route_skill"))) {
				t.Errorf("query %.40q…: %.300s", tt.query, wire)
			}
		})
	}
}

// TestUnknownSkillEchoCut: an unknown name is echoed cut, so a client
// cannot make the answer as long as its request.
func TestUnknownSkillEchoCut(t *testing.T) {
	s := newServer(&Options{Source: Loaded(openAda(t))})
	wire, _ := callTool(t, s, toolGetSkill, map[string]any{"name": strings.Repeat("z", 1<<20)})
	if len(wire) > 2048 || !strings.Contains(string(wire), "Unknown skill: zzz") {
		t.Errorf("answer is %d bytes: %.200s", len(wire), wire)
	}
}
